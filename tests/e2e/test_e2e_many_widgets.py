"""Many explorers on one page, and a cell re-run many times, in a real JupyterLab + Chromium.

Chromium keeps at most 16 WebGL contexts per page; a dozen Model Explorers (36 contexts: more than twice
what a page keeps live) and the model in Netron
below them) still all draw (the longest-hidden ones pause and redraw when scrolled back), each with its
own selection, read from the page's pixels as a reader scrolls down and back up; read-only views (after
a kernel restart) count too, and give their frames up for their saved pictures. A WebGL context lost
on screen redraws at once. Re-running a cell frees the old view's frame, listeners and timers, even
when the old view was closed before it painted.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import KERNEL, JupyterServer, open_info_panel
from tests.helpers.notebook import AFTER_TWO_FRAMES, SETTLED, notebook_session
from tests.helpers.pixels import shows_a_graph, wait_for_a_painted_graph

SETUP = """import torch, torchlens as tl, torchlens_widgets as tlw
from IPython.display import display
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))
names = ['linear_1_1', 'relu_1_2', 'linear_2_3', 'relu_2_4', 'linear_3_5']"""

EXPLORERS = 12
MANY = f"""ws = [tlw.explore(log, height=220) for _ in range({EXPLORERS})]
for i, w in enumerate(ws):
    w.select(names[i % 5])
n = tlw.explore(log, viewer="netron", height=220)
display(*ws, n)"""

WEBGL_TROUBLE = ("Too many active WebGL contexts", "CONTEXT_LOST", "context lost")


def test_a_dozen_explorers_and_netron_all_draw_with_their_own_selection(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    with notebook_session(jupyter_lab, browser, "many.ipynb", [SETUP, MANY]) as (page, kernel):
        names = kernel.value("names")
        roots = page.page.locator(".tlw-root")
        expect(roots).to_have_count(EXPLORERS + 1, timeout=60_000)
        # A reader scrolls from the top to the bottom: each view, once scrolled to, shows its graph
        # (read from the pixels) and says which node is selected.
        for index in range(EXPLORERS + 1):
            root = roots.nth(index)
            root.scroll_into_view_if_needed()
            wait_for_a_painted_graph(page.page, index)
            status = root.locator(".tlw-status")
            expect(status).to_have_attribute("data-state", "ready", timeout=120_000)
            if index < EXPLORERS:
                expect(status).to_contain_text(f"selected {names[index % 5]}")
        kernel.wait_ready("n")
        expected = [f"{names[index % 5]}:1" for index in range(EXPLORERS)]
        assert kernel.value("[w.selected_label for w in ws]") == expected
        # At most 5 live Model Explorer frames (3 WebGL contexts each, 16 per page); the rest paused.
        live = page.page.evaluate("globalThis.__torchlensWidgetsLiveFrames.size")
        explorers = page.page.locator(".tlw-root iframe.tlw-frame[title='Model Explorer']").count()
        assert live <= 5 and explorers <= 5, (live, explorers)
        assert page.page.locator(".tlw-status[data-state='paused']").count() == EXPLORERS - explorers
        assert not [text for text in page.console_messages if any(t in text for t in WEBGL_TROUBLE)]
        # Back up to the first explorer: it was paused, and shows a drawn graph again, selection included.
        first = roots.nth(0)
        first.scroll_into_view_if_needed()
        wait_for_a_painted_graph(page.page, 0)
        expect(first.locator(".tlw-status")).to_contain_text(f"selected {names[0]}", timeout=120_000)
        expect(first.locator(".tlw-status")).to_have_attribute("data-state", "ready")
        first.screenshot(path=str(artifacts / "many-first-again.png"))
        assert page.console_errors == []


# jupyterlab-manager's LuminoWidget gets a posted message after a fast re-run disposed it; a minimal
# anywidget that only sets el.textContent shows the same error (measured), so it is not ours.
UPSTREAM = "reading 'processLuminoMessage'"

# Re-runs the explorer's cell `runs` times, each time once the view it replaces is laying out its graph
# (its frame booted, not painted yet) or has drawn: most views close before they painted.
RERUN = """async (runs) => {
  const app = window.jupyterapp;
  app.shell.currentWidget.content.activeCellIndex = 1;
  const layingOutOrDrawn = () => {
    const status = document.querySelector(".tlw-status");
    return status && (status.textContent.startsWith("Laying out") || status.dataset.state === "ready");
  };
  for (let i = 0; i < runs; i += 1) {
    await app.commands.execute("notebook:run-cell");
    for (let waited = 0; waited < 30_000 && !layingOutOrDrawn(); waited += 20)
      await new Promise((r) => setTimeout(r, 20));
  }
}"""

COUNTS = """() => ({
  frames: document.querySelectorAll("iframe").length,
  parkedApps: document.querySelectorAll(".tlw-parked-app").length,
  widgets: document.querySelectorAll(".tlw-root").length,
  listeners: window.__tlwMessageListeners(),
  intervals: window.__tlwLiveIntervals(),
  live: globalThis.__torchlensWidgetsLiveFrames.size,
})"""

# The page once every replaced view has closed: one widget, its frame live, a parked app waiting.
CLOSED = """() => document.querySelectorAll(".tlw-root").length === 1
  && globalThis.__torchlensWidgetsLiveFrames.size === 1
  && document.querySelectorAll(".tlw-parked-app iframe").length === 1"""


def test_rerunning_a_cell_many_times_frees_frames_listeners_and_timers(
    jupyter_lab: JupyterServer, browser: Any
) -> None:
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw"]
    with notebook_session(jupyter_lab, browser, "rerun.ipynb", cells, count_listeners=True) as (page, kernel):

        def rerun(times: int) -> dict[str, int]:
            # Each run replaces a view still laying out its graph: closed before it painted.
            page.page.evaluate(RERUN, times)
            page.page.wait_for_function(SETTLED, arg=1, timeout=120_000)
            # Once the page is quiet a Model Explorer app is parked for the next explorer: counted with
            # the rest, so a parked app left behind by a re-run shows as a leak like any other frame.
            page.page.wait_for_function(CLOSED, timeout=60_000)
            return page.page.evaluate(COUNTS)

        # Anything one re-run leaves behind shows five times over in the second count.
        after_three = rerun(3)
        after_eight = rerun(5)
        assert after_three["widgets"] == after_eight["widgets"] == 1
        assert after_eight == after_three, (after_three, after_eight)
        assert after_three["live"] == after_three["parkedApps"] == 1
        kernel.wait_ready("w")
        assert [text for text in page.console_errors if UPSTREAM not in text] == []


# Loses every WebGL context of the frame, as Chromium does past its per-page limit or on a GPU reset.
LOSE_CONTEXTS = """() => {
  let lost = 0;
  for (const canvas of document.querySelectorAll("canvas")) {
    const gl = canvas.getContext("webgl2") || canvas.getContext("webgl");
    const extension = gl && gl.getExtension("WEBGL_lose_context");
    if (extension) {
      extension.loseContext();
      lost += 1;
    }
  }
  return lost;
}"""

# A cell tall enough to scroll the explorer above it fully out of view.
FILLER = """from IPython.display import HTML
HTML('<div style="height: 2400px">filler</div><div class="tlw-test-end">end of filler</div>')"""


def test_a_lost_webgl_context_redraws_on_screen_at_once_and_off_screen_when_scrolled_back(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw.select('linear_2_3')\nw", FILLER]
    with notebook_session(jupyter_lab, browser, "context-lost.ipynb", cells) as (page, kernel):
        kernel.wait_ready("w")
        root = page.page.locator(".tlw-root").first
        status = root.locator(".tlw-status")
        expect(status).to_contain_text("selected linear_2_3")

        def lose_contexts() -> None:
            frame = root.locator("iframe.tlw-frame").element_handle(timeout=30_000).content_frame()
            frame.locator("webgl-renderer canvas").first.wait_for(state="attached", timeout=60_000)
            assert frame.evaluate(LOSE_CONTEXTS) >= 1

        # On screen: the view redraws by itself (no scroll, no click), selection included, and the
        # page shows a drawn graph again, read from its pixels.
        before = kernel.draws("w")
        lose_contexts()
        kernel.wait_drawn("w", since=before, timeout=120)
        expect(status).to_have_attribute("data-state", "ready")
        expect(status).to_contain_text("selected linear_2_3")
        # Drawn means painted (the frame reports it once its canvas holds more than its background).
        assert shows_a_graph(page.page, 0), "the redrawn view shows no graph"
        root.screenshot(path=str(artifacts / "context-lost-redrawn-on-screen.png"))

        # Off screen: the view pauses (never "ready" over a blank canvas), offers a Redraw button,
        # and redraws when scrolled back, selection included.
        page.page.locator(".tlw-test-end").scroll_into_view_if_needed()
        page.page.wait_for_function(
            "() => document.querySelector('.tlw-root').getBoundingClientRect().bottom < 0", timeout=30_000
        )
        # The view learns it is off screen from an IntersectionObserver, told in a task after the next
        # rendering update: a context lost before that task ran is one lost on screen (redrawn at once,
        # then waiting to be on screen), seen once on a loaded machine. Two frames and a task later it knows.
        page.page.evaluate(AFTER_TWO_FRAMES)
        lose_contexts()
        expect(status).to_have_attribute("data-state", "paused", timeout=30_000)
        expect(root.locator(".tlw-placeholder")).to_contain_text("WebGL context")
        expect(root.locator(".tlw-placeholder button")).to_have_text("Redraw")
        expect(root.locator("iframe.tlw-frame")).to_have_count(0)
        kernel.wait_for("w.status", "paused", timeout=30)
        before = kernel.draws("w")
        root.scroll_into_view_if_needed()
        kernel.wait_drawn("w", since=before, timeout=120)
        expect(status).to_contain_text("selected linear_2_3")
        viewer = root.locator("iframe.tlw-frame").content_frame
        expect(viewer.locator("webgl-renderer canvas").first).to_be_attached(timeout=60_000)
        open_info_panel(viewer)  # the widget starts the app's own panel closed
        row = viewer.locator("info-panel tr").filter(has=viewer.locator("td.key", has_text="torchlens_label"))
        expect(row.locator("td.value .one-line-text").first).to_have_text("linear_2_3:1", timeout=30_000)
        root.screenshot(path=str(artifacts / "context-lost-redrawn.png"))
        assert page.console_errors == []


FIVE = "old = [tlw.explore(log, height=220) for _ in range(5)]\ndisplay(*old)"
# Run again by hand once the kernel restarted (`restarted` is set then): three live explorers.
THREE_MORE = "if restarted:\n    new = [tlw.explore(log, height=220) for _ in range(3)]\n    display(*new)"
RUN_LAST_CELL = """() => {
  const app = window.jupyterapp;
  app.shell.currentWidget.content.activeCellIndex = 2;
  return app.commands.execute("notebook:run-cell");
}"""


def test_read_only_views_keep_their_webgl_contexts_in_the_budget(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    """Five explorers fill the page's WebGL budget; the kernel restarts (they become read-only, and
    keep their frames); three live explorers drawn after it take the places of the read-only views
    hidden longest, which show their saved pictures: the page never goes past Chromium's limit."""
    cells = [SETUP + "\nrestarted = False", FIVE, THREE_MORE]
    with notebook_session(jupyter_lab, browser, "read-only-budget.ipynb", cells, widgets=5) as (page, kernel):
        kernel.wait_for("all(w._picture for w in old)", True, timeout=120)
        statuses = page.page.locator(".tlw-status")
        page.page.evaluate(f"() => {KERNEL}.restart()")
        for index in range(5):
            expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected", timeout=30_000)
        assert page.page.locator("iframe.tlw-frame").count() == 5  # read-only views keep their graphs
        page.page.wait_for_function(f"() => {KERNEL}.status === 'idle'", timeout=60_000)
        fresh = jupyter_lab.kernel_for("read-only-budget.ipynb")
        try:
            fresh.run(SETUP + "\nrestarted = True")
            page.page.evaluate(RUN_LAST_CELL)
            page.page.wait_for_function(SETTLED, arg=3, timeout=240_000)
            for index in range(3):
                fresh.wait_drawn(f"new[{index}]", since=0, timeout=120)
        finally:
            fresh.close()
        roots = page.page.locator(".tlw-root")
        expect(roots).to_have_count(8)
        frames = page.page.locator("iframe.tlw-frame").count()
        live = page.page.evaluate("globalThis.__torchlensWidgetsLiveFrames.size")
        assert frames <= 5 and live == frames, (frames, live)  # 3 WebGL contexts each, 16 per page
        # The read-only views that gave up their frames show the picture of their last draw.
        pictures = page.page.locator(".tlw-root .tlw-saved-picture")
        assert pictures.count() == 8 - frames, pictures.count()
        for index in range(pictures.count()):
            assert (pictures.nth(index).get_attribute("src") or "").startswith("data:image/")
        first_status = roots.nth(0).locator(".tlw-status")
        expect(first_status).to_contain_text("A picture of its last draw. The kernel restarted")
        roots.nth(0).scroll_into_view_if_needed()
        roots.nth(0).screenshot(path=str(artifacts / "read-only-retired.png"))
        assert not [text for text in page.console_messages if any(t in text for t in WEBGL_TROUBLE)]
        assert page.console_errors == []
