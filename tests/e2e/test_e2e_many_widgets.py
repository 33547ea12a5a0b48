"""Many explorers on one page, and a cell re-run many times, in a real JupyterLab + Chromium.

Chromium keeps at most 16 WebGL contexts per page; twenty Model Explorers (and the model in Netron
below them) still all draw (the longest-hidden ones pause and redraw when scrolled back), each with its
own selection, read from the page's pixels as a reader scrolls down and back up. Re-running a cell
frees the old view's frame and listeners.
"""

from __future__ import annotations

import time
from typing import Any

from conftest import SETTLED, notebook_session
from harness import JupyterServer, open_info_panel
from pixels import shows_a_graph
from playwright.sync_api import expect

SETUP = """import torch, torchlens as tl, torchlens_widgets as tlw
from IPython.display import display
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))
names = ['linear_1_1', 'relu_1_2', 'linear_2_3', 'relu_2_4', 'linear_3_5']"""

TWENTY = """ws = [tlw.explore(log, height=220) for _ in range(20)]
for i, w in enumerate(ws):
    w.select(names[i % 5])
n = tlw.explore(log, viewer="netron", height=220)
display(*ws, n)"""

WEBGL_TROUBLE = ("Too many active WebGL contexts", "CONTEXT_LOST", "context lost")


def wait_for_a_painted_graph(page: Any, index: int, timeout: float = 120) -> None:
    """Polls the page's pixels until widget ``index``, on screen, shows a painted graph."""
    deadline = time.monotonic() + timeout
    while not shows_a_graph(page, index):
        if time.monotonic() > deadline:
            status = page.locator(".tlw-root").nth(index).locator(".tlw-status")
            raise AssertionError(f"widget {index} shows no graph after {timeout} s: {status.text_content()}")
        page.wait_for_timeout(250)  # the poll's interval


def test_twenty_explorers_and_netron_all_draw_with_their_own_selection(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    with notebook_session(jupyter_lab, browser, "twenty.ipynb", [SETUP, TWENTY]) as (page, kernel):
        names = kernel.value("names")
        roots = page.page.locator(".tlw-root")
        expect(roots).to_have_count(21, timeout=60_000)
        # A reader scrolls from the top to the bottom: each view, once scrolled to, shows its graph
        # (read from the pixels) and says which node is selected.
        for index in range(21):
            root = roots.nth(index)
            root.scroll_into_view_if_needed()
            wait_for_a_painted_graph(page.page, index)
            status = root.locator(".tlw-status")
            expect(status).to_have_attribute("data-state", "ready", timeout=120_000)
            if index < 20:
                expect(status).to_contain_text(f"selected {names[index % 5]}")
        kernel.wait_ready("n")
        expected = [f"{names[index % 5]}:1" for index in range(20)]
        assert kernel.value("[w.selected_label for w in ws]") == expected
        # At most 5 live Model Explorer frames (3 WebGL contexts each, 16 per page); the rest paused.
        live = page.page.evaluate("globalThis.__torchlensWidgetsLiveFrames.size")
        explorers = page.page.locator(".tlw-root iframe.tlw-frame[title='Model Explorer']").count()
        assert live <= 5 and explorers <= 5, (live, explorers)
        assert page.page.locator(".tlw-status[data-state='paused']").count() == 20 - explorers
        assert not [text for text in page.console_messages if any(t in text for t in WEBGL_TROUBLE)]
        # Back up to the first explorer: it was paused, and shows a drawn graph again, selection included.
        first = roots.nth(0)
        first.scroll_into_view_if_needed()
        wait_for_a_painted_graph(page.page, 0)
        expect(first.locator(".tlw-status")).to_contain_text(f"selected {names[0]}", timeout=120_000)
        expect(first.locator(".tlw-status")).to_have_attribute("data-state", "ready")
        first.screenshot(path=str(artifacts / "twenty-first-again.png"))
        assert page.console_errors == []


# jupyterlab-manager's LuminoWidget gets a posted message after a fast re-run disposed it; a minimal
# anywidget that only sets el.textContent shows the same error (measured), so it is not ours.
UPSTREAM = "reading 'processLuminoMessage'"

RERUN = """async (runs) => {
  const app = window.jupyterapp;
  app.shell.currentWidget.content.activeCellIndex = 1;
  for (let i = 0; i < runs; i += 1) await app.commands.execute("notebook:run-cell");
}"""

COUNTS = """() => ({
  frames: document.querySelectorAll("iframe").length,
  spares: document.querySelectorAll(".tlw-spare").length,
  widgets: document.querySelectorAll(".tlw-root").length,
  listeners: window.__tlwMessageListeners(),
  live: globalThis.__torchlensWidgetsLiveFrames.size,
})"""


def test_rerunning_a_cell_fifty_times_frees_frames_and_listeners(
    jupyter_lab: JupyterServer, browser: Any
) -> None:
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw"]
    with notebook_session(jupyter_lab, browser, "rerun.ipynb", cells, count_listeners=True) as (page, kernel):

        def rerun(times: int) -> dict[str, int]:
            page.page.evaluate(RERUN, times)
            page.page.wait_for_function(SETTLED, arg=1, timeout=120_000)
            # Once the page is quiet a Model Explorer app is parked for the next explorer: counted with
            # the rest, so a spare left behind by a re-run shows as a leak like any other frame.
            page.page.wait_for_function("() => document.querySelector('.tlw-spare iframe')", timeout=60_000)
            page.page.wait_for_timeout(1_000)  # let the replaced views finish closing
            return page.page.evaluate(COUNTS)

        after_five = rerun(5)
        after_fifty_five = rerun(50)
        assert after_five["widgets"] == after_fifty_five["widgets"] == 1
        assert after_fifty_five == after_five, (after_five, after_fifty_five)
        assert after_five["live"] == after_five["spares"] == 1
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


def test_a_lost_webgl_context_pauses_the_view_and_redraws_it_with_the_selection(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw.select('linear_2_3')\nw", FILLER]
    with notebook_session(jupyter_lab, browser, "context-lost.ipynb", cells) as (page, kernel):
        kernel.wait_ready("w")
        root = page.page.locator(".tlw-root").first
        status = root.locator(".tlw-status")
        expect(status).to_contain_text("selected linear_2_3")
        frame = root.locator("iframe.tlw-frame").element_handle(timeout=30_000).content_frame()
        frame.locator("webgl-renderer canvas").first.wait_for(state="attached", timeout=60_000)
        assert frame.evaluate(LOSE_CONTEXTS) >= 1
        # Never "ready" over a blank canvas: the view says it is paused, in the page and in the kernel.
        expect(status).to_have_attribute("data-state", "paused", timeout=30_000)
        expect(root.locator(".tlw-placeholder")).to_contain_text("WebGL context")
        expect(root.locator("iframe.tlw-frame")).to_have_count(0)
        kernel.wait_for("w.status", "paused", timeout=30)
        root.screenshot(path=str(artifacts / "context-lost-paused.png"))
        # On screen again (scrolled away and back): it redraws, selection included.
        page.page.locator(".tlw-test-end").scroll_into_view_if_needed()
        page.page.wait_for_function(
            "() => document.querySelector('.tlw-root').getBoundingClientRect().bottom < 0", timeout=30_000
        )
        root.scroll_into_view_if_needed()
        expect(status).to_have_attribute("data-state", "ready", timeout=120_000)
        expect(status).to_contain_text("selected linear_2_3")
        kernel.wait_ready("w")
        viewer = root.locator("iframe.tlw-frame").content_frame
        expect(viewer.locator("webgl-renderer canvas").first).to_be_attached(timeout=60_000)
        open_info_panel(viewer)  # the widget starts the app's own panel closed
        row = viewer.locator("info-panel tr").filter(has=viewer.locator("td.key", has_text="torchlens_label"))
        expect(row.locator("td.value .one-line-text").first).to_have_text("linear_2_3:1", timeout=30_000)
        root.screenshot(path=str(artifacts / "context-lost-redrawn.png"))
        assert page.console_errors == []
