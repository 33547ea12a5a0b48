"""Kernel interrupt and restart with explorers on the page, in a real JupyterLab + Chromium.

An interrupt keeps the widget's comm: the widget stays live. A restart ends it: every view says so and
stays readable (its graph still painted, read from the pixels), and re-running the cell gives a live
widget again. A view the reader had not scrolled to yet when the kernel restarted (its graph landed,
its frame waiting to be on screen) draws once scrolled to and still says the kernel restarted: it never
says "ready" for a kernel that is gone.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import KERNEL, JupyterServer, run_all_cells
from tests.helpers.notebook import SETTLED, notebook_session
from tests.helpers.pixels import wait_for_a_painted_graph

CELLS = [
    """import time, torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))""",
    "w = tlw.explore(log, height=320)\nw",
    "n = tlw.explore(log, viewer='netron', height=320)\nn",
    # A tall output: the two views below it are not on screen after Run All.
    """from IPython.display import HTML
HTML('<div style="height: 2400px">filler</div>')""",
    "below = tlw.explore(log, height=320)\nbelow",
    "below_n = tlw.explore(log, viewer='netron', height=320)\nbelow_n",
]
ON_SCREEN, BELOW = (0, 1), (2, 3)

# Runs a minute's sleep in the kernel and records when the cell says it started and how it ended (the
# error's name: an interrupt ends it with KeyboardInterrupt).
SLEEP_UNTIL_INTERRUPTED = f"""() => {{
  window.__tlwSleep = {{ started: false, ended: "" }};
  const future = {KERNEL}.requestExecute({{ code: "print('sleeping', flush=True)\\ntime.sleep(60)" }});
  future.onIOPub = (msg) => {{
    if (msg.header.msg_type === "stream") window.__tlwSleep.started = true;
  }};
  future.onReply = (msg) => {{ window.__tlwSleep.ended = msg.content.ename || msg.content.status; }};
}}"""

# Every state and text the views' status lines take from now on, in order (what a reader could see).
RECORD_STATUSES = """() => {
  window.__tlwStatuses = [];
  document.querySelectorAll('.tlw-status').forEach((status, index) => {
    new MutationObserver(() => window.__tlwStatuses.push([index, status.dataset.state, status.textContent]))
      .observe(status, { attributes: true, childList: true, characterData: true, subtree: true });
  });
}"""


def settled_with_two_waiting(page: Any) -> None:
    """The two views at the top drew; the two below the filler hold their graph and wait to be on screen."""
    statuses = page.page.locator(".tlw-status")
    expect(statuses).to_have_count(4, timeout=120_000)
    for index in ON_SCREEN:
        page.page.locator(".tlw-root").nth(index).scroll_into_view_if_needed()
        expect(statuses.nth(index)).to_have_attribute("data-state", "ready", timeout=180_000)
    page.page.locator(".tlw-root").nth(0).scroll_into_view_if_needed()
    for index in BELOW:
        expect(statuses.nth(index)).to_contain_text("Waiting to be on screen", timeout=120_000)


# The command line of the process the kernel was forked from (the warm kernels' zygote, or the server).
FORKED_FROM = "open(f'/proc/{__import__(\"os\").getppid()}/cmdline').read()"


def test_interrupt_keeps_the_widget_live_and_restart_says_it_is_disconnected(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    with notebook_session(
        jupyter_lab, browser, "lifecycle.ipynb", CELLS, settled=settled_with_two_waiting
    ) as (page, kernel):
        kernel.wait_ready("w")
        statuses = page.page.locator(".tlw-status")
        roots = page.page.locator(".tlw-root")

        # Interrupt a busy kernel: its comms survive, so a selection still round-trips afterwards. The
        # interrupt is sent once the cell says it sleeps (an interrupt that arrives before the cell runs
        # is lost, and the sleep would hold every later request for a minute), and must end the sleep.
        page.page.evaluate(SLEEP_UNTIL_INTERRUPTED)
        page.page.wait_for_function("() => window.__tlwSleep.started", timeout=30_000)
        page.page.evaluate(f"() => {KERNEL}.interrupt()")
        page.page.wait_for_function("() => window.__tlwSleep.ended", timeout=30_000)
        assert page.page.evaluate("() => window.__tlwSleep.ended") == "KeyboardInterrupt"
        kernel.run("w.select('linear_1_1')")
        expect(statuses.nth(0)).to_contain_text("selected linear_1_1", timeout=30_000)
        expect(statuses.nth(0)).to_have_attribute("data-state", "ready")
        for index in BELOW:  # still waiting: nothing scrolled them into view
            assert roots.nth(index).evaluate("el => el.parentElement.dataset.draws") is None

        # Restart: every view says it is no longer live; the two that drew keep showing the graph.
        page.page.evaluate(RECORD_STATUSES)
        page.page.evaluate(f"() => {KERNEL}.restart()")
        for index in range(4):
            expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected", timeout=30_000)
            expect(statuses.nth(index)).to_contain_text("Re-run the cell")
        for index in ON_SCREEN:
            roots.nth(index).scroll_into_view_if_needed()
            wait_for_a_painted_graph(page.page, index)
        expect(page.page.locator(".tlw-overlay-select").first).to_be_disabled()
        roots.first.screenshot(path=str(artifacts / "kernel-restarted.png"))

        # The reader scrolls down to the views that had not drawn: each draws its graph (the pixels,
        # and the view's own draw count as the fresh signal) and still says the kernel restarted.
        for index in BELOW:
            roots.nth(index).scroll_into_view_if_needed()
            wait_for_a_painted_graph(page.page, index)
            page.page.wait_for_function(
                "i => document.querySelectorAll('.tlw-root')[i].parentElement.dataset.draws === '1'",
                arg=index,
                timeout=120_000,
            )
            expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected")
            expect(statuses.nth(index)).to_contain_text("The kernel restarted")
        roots.nth(BELOW[0]).screenshot(path=str(artifacts / "kernel-restarted-below.png"))
        seen = page.page.evaluate("() => window.__tlwStatuses")
        said_live = [entry for entry in seen if entry[1] != "disconnected"]
        assert said_live == [], f"a view of a restarted kernel said it was live: {said_live}"
        assert page.console_errors == []

        # Re-running the notebook gives live widgets again (the new kernel has the trace again).
        page.page.wait_for_function(f"() => {KERNEL}.status === 'idle'", timeout=60_000)
        run_all_cells(page.page)
        page.page.wait_for_function(
            "() => document.querySelectorAll(\".tlw-status[data-state='disconnected']\").length === 0",
            timeout=120_000,
        )
        page.page.wait_for_function(SETTLED, arg=4, timeout=240_000)
        # A new client for the restarted kernel: the old one's IOPub subscription can miss the new
        # kernel's first messages (seen in CI as "Timeout waiting for output").
        fresh = jupyter_lab.kernel_for("lifecycle.ipynb")
        try:
            fresh.wait_ready("w")
            # Restarted, the kernel was forked warm again (tests/helpers/warm_kernels.py): a kernel the
            # server started plain would not fail a test, only make the suite minutes longer.
            assert "kernel_zygote.py" in fresh.value(FORKED_FROM), "the restarted kernel did not start warm"
            fresh.run("w.select('linear_2_3')")
        finally:
            fresh.close()
        roots.first.scroll_into_view_if_needed()
        expect(statuses.nth(0)).to_contain_text("selected linear_2_3", timeout=30_000)
