"""tlw.compare in a real JupyterLab + Chromium: three runs of one model on one graph; the run scrubber's
next button sets the kernel's c.run and recolours the same Model Explorer frame in place."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, KernelAccess, open_notebook, select_in_viewer_ui
from tests.helpers.notebook import RecordedPage, notebook_session
from tests.helpers.pixels import changed_fraction, colour_pixels
from torchlens_widgets._protocol import NOT_IN_EVERY_RUN_BORDER

# The border Model Explorer draws around an op that some runs lack, as RGB.
NOT_IN_EVERY_RUN_RGB = (
    int(NOT_IN_EVERY_RUN_BORDER[1:3], 16),
    int(NOT_IN_EVERY_RUN_BORDER[3:5], 16),
    int(NOT_IN_EVERY_RUN_BORDER[5:7], 16),
)

# Every op at the top level (no module around it), so each shows its colour in the graph as drawn. Run
# step1 moves w1 (every op after it changes), step2 moves w3 (the ops before it do not): their deltas
# from step0 colour different ops.
CELLS = [
    """import copy, torch, torchlens as tl, torchlens_widgets as tlw

class Flat(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w1, self.w2, self.w3 = (torch.nn.Parameter(torch.randn(16, 16)) for _ in range(3))

    def forward(self, x):
        h = torch.tanh(x @ self.w1)
        h = torch.relu(h @ self.w2)
        return torch.sigmoid(h @ self.w3)

torch.manual_seed(0)
model, x = Flat(), torch.randn(4, 16)

def moved(name):
    other = copy.deepcopy(model)
    with torch.no_grad():
        getattr(other, name).add_(torch.randn(16, 16))
    return other

with torch.no_grad():
    runs = {"step0": tl.trace(model, x)}
    runs |= {"step1": tl.trace(moved("w1"), x), "step2": tl.trace(moved("w3"), x)}""",
    "c = tlw.compare(runs, height=560)\nc",
    # A run of a longer model beside the reference: its last op (a mul) only it has.
    """class Longer(Flat):
    def forward(self, x):
        return super().forward(x) * 2

longer = Longer()
longer.load_state_dict(model.state_dict())
with torch.no_grad():
    longer_run = tl.trace(longer, x)
extra = next(op.label for op in longer_run.layer_list if op.label.startswith("mul"))
c2 = tlw.compare({"step0": runs["step0"], "longer": longer_run}, height=560)
c2""",
]


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[tuple[RecordedPage, KernelAccess]]:
    with notebook_session(jupyter_lab, browser, "compare.ipynb", CELLS, widgets=2) as (page, kernel):
        kernel.wait_ready("c", timeout=120)
        yield page, kernel


def test_the_scrubber_recolours_the_same_frame_in_place(
    session: tuple[RecordedPage, KernelAccess], artifacts: Any
) -> None:
    page, kernel = session
    root = page.page.locator(".tlw-root").first
    scrubber = root.locator(".tlw-scrubber")
    expect(scrubber.locator(".tlw-scrub-name")).to_have_text("step1 · 2/3")
    assert kernel.value("c.run") == "step1" and kernel.value("c.runs") == ["step0", "step1", "step2"]
    iframe = page.page.locator("iframe.tlw-frame").first
    canvas = iframe.content_frame.locator("webgl-renderer canvas.main").first
    iframe.evaluate("frame => { frame.__tlwMark = 'before the scrub'; }")
    canvas.evaluate("canvas => { canvas.__tlwMark = 'before the scrub'; }")
    focused = page.page.evaluate("() => document.activeElement?.className ?? ''")
    assert "tlw-scrub" not in focused, "the scrubber took the focus by itself"
    look = canvas.screenshot()
    drawn = kernel.draws("c")
    root.screenshot(path=str(artifacts / "compare-step1.png"))

    scrubber.locator(".tlw-scrub-next").click()
    kernel.wait_for("c.run", "step2", timeout=30)
    kernel.wait_drawn("c", since=drawn, timeout=120)
    expect(scrubber.locator(".tlw-scrub-name")).to_have_text("step2 · 3/3")
    assert iframe.evaluate("frame => frame.__tlwMark") == "before the scrub", "a new frame was made"
    assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the scrub", "the app drew anew"
    assert changed_fraction(look, canvas.screenshot()) > 0.002, "the run's colours changed no pixel"
    assert "run step2 vs step0" in kernel.value("c.overlay_summary")
    expect(root.locator(".tlw-overlay-info")).to_contain_text("run step2 vs step0")
    root.screenshot(path=str(artifacts / "compare-step2.png"))
    step2 = canvas.screenshot()

    # Back a run and forward again: step2's colours come from what the page and the frame kept of
    # them (neither unpacked nor coloured again), and the canvas must show step2 as it did.
    for button, run in (("previous", "step1"), ("next", "step2")):
        drawn = kernel.draws("c")
        scrubber.locator(f".tlw-scrub-{button}").click()
        kernel.wait_for("c.run", run, timeout=30)
        kernel.wait_drawn("c", since=drawn, timeout=120)
    again = canvas.screenshot()
    assert changed_fraction(step2, again) < 0.001, "step2 shown again is not the picture it was"
    assert changed_fraction(look, again) > 0.002, "step2 shown again shows step1's colours"
    assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the scrub", "the app drew anew"
    assert page.console_errors == [], page.console_errors


def test_the_inspector_shows_every_run_and_a_click_there_shows_that_run(
    session: tuple[RecordedPage, KernelAccess], artifacts: Any
) -> None:
    page, kernel = session
    root = page.page.locator(".tlw-root").first
    drawn, was = kernel.draws("c"), kernel.value("c.run")
    # The last op: every run moved it.
    kernel.run("c.run = 'step1'\nc.select(runs['step0'].layer_list[-2].label)")
    if was != "step1":  # recoloured for step1 first
        kernel.wait_drawn("c", since=drawn, timeout=120)
    rows = root.locator(".tlw-inspector .tlw-insp-run")
    expect(rows).to_have_count(3, timeout=30_000)
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.run)") == ["step0", "step1", "step2"]
    values = kernel.value("c.values()")
    numbers = rows.locator(".tlw-insp-run-number").all_text_contents()
    assert numbers[0] == "reference" and values["step0"] is None
    expected = [values["step1"], values["step2"]]
    assert [float(text) for text in numbers[1:]] == pytest.approx(expected, rel=1e-3)
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.shown)") == ["false", "true", "false"]
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.reference)") == ["true", "false", "false"]
    iframe = page.page.locator("iframe.tlw-frame").first
    canvas = iframe.content_frame.locator("webgl-renderer canvas.main").first
    iframe.evaluate("frame => { frame.__tlwMark = 'before the click'; }")
    canvas.evaluate("canvas => { canvas.__tlwMark = 'before the click'; }")
    page.page.wait_for_timeout(1000)  # the selection centred and settled
    look = canvas.screenshot()
    drawn = kernel.draws("c")
    root.screenshot(path=str(artifacts / "compare-multiples-step1.png"))

    rows.nth(2).click()
    kernel.wait_for("c.run", "step2", timeout=30)
    kernel.wait_drawn("c", since=drawn, timeout=120)
    expect(rows.nth(2)).to_have_attribute("data-shown", "true")
    expect(rows.nth(1)).to_have_attribute("data-shown", "false")
    expect(root.locator(".tlw-scrubber .tlw-scrub-name")).to_have_text("step2 · 3/3")
    assert iframe.evaluate("frame => frame.__tlwMark") == "before the click", "a new frame was made"
    assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the click", "the app drew anew"
    assert changed_fraction(look, canvas.screenshot()) > 0.002, "the run's colours changed no pixel"
    root.screenshot(path=str(artifacts / "compare-multiples-step2.png"))
    assert page.console_errors == [], page.console_errors


def test_a_click_in_the_graph_gives_python_every_runs_record(
    session: tuple[RecordedPage, KernelAccess],
) -> None:
    # A user's selection in Model Explorer (its search box, Alt+click on the result) reaches the kernel:
    # c.selected holds each run's own live record of that op.
    page, kernel = session
    kernel.run("c.select(runs['step0'].layer_list[1].label)\nclicked = []\nc.on_select(clicked.append)")
    target = kernel.value("[op.label for op in runs['step0'].layer_list if op.label.startswith('relu')][0]")
    frame = page.page.locator("iframe.tlw-frame").first.content_frame
    select_in_viewer_ui(frame, target, kernel.value(f"c._source.index.id_of_label({target!r})"))
    kernel.wait_for("c.selected_label", target, timeout=30)
    records = {"step0": "runs['step0']", "step1": "runs['step1']", "step2": "runs['step2']"}
    for run, trace in records.items():
        assert kernel.value(f"c.selected[{run!r}] is {trace}[{target!r}]") is True, run
    assert kernel.value("len(clicked)") == 1
    expect(page.page.locator(".tlw-status").first).to_contain_text(f"selected {target}")
    assert page.console_errors == [], page.console_errors


# Runs one cell from the page, as its run button does (the notebook does not scroll to it).
RUN_CELL = """i => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = i;
  return window.jupyterapp.commands.execute('notebook:run-cell');
}"""


def test_a_view_whose_frame_is_below_the_fold_waits_for_it_and_draws_when_scrolled_to(
    jupyter_lab: JupyterServer, browser: Any
) -> None:
    # The widget's toolbars in the viewport, its graph below the fold (a cell run at the bottom of the
    # window): the frame cannot draw there (Chromium runs no animation frame in it), so the view must
    # say it waits to be on screen and not count its draw time-out, which it did when the toolbar alone
    # made it "on screen" (after 120 s: "did not draw the graph", it needs WebGL).
    name = jupyter_lab.write_notebook("compare-below-the-fold.ipynb", CELLS)
    page = RecordedPage(browser, height=1000)
    try:
        open_notebook(page.page, jupyter_lab, name)
        kernel = jupyter_lab.kernel_for(name)
        try:
            page.page.evaluate(RUN_CELL, 0)
            kernel.wait_for("len(runs)", 3, timeout=120)
            box = page.page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputArea").bounding_box()
            assert box is not None
            # Room for the widget's toolbar and the scrubber's row under it, not for its frame.
            page.page.set_viewport_size({"width": 1400, "height": round(box["y"] + box["height"] + 60)})
            page.page.evaluate(RUN_CELL, 1)
            status = page.page.locator(".tlw-status").first
            expect(status).to_contain_text("Waiting to be on screen", timeout=120_000)
            assert kernel.draws("c") == 0
            page.page.wait_for_timeout(3_000)  # still waiting, never "Laying out" over a frame out of view
            expect(status).to_contain_text("Waiting to be on screen")
            assert page.page.locator(".tlw-root").first.locator(".tlw-error").inner_text() == ""

            page.page.set_viewport_size({"width": 1400, "height": 1000})
            page.page.locator("iframe.tlw-frame").first.scroll_into_view_if_needed()
            kernel.wait_drawn("c", since=0, timeout=120)
            expect(status).to_have_attribute("data-state", "ready")
            assert page.console_errors == [], page.console_errors
        finally:
            kernel.close()
    finally:
        page.close()
        jupyter_lab.shut_down_notebook(name)


def test_an_op_only_another_run_has_is_drawn_marked_and_selectable_in_both_viewers(
    session: tuple[RecordedPage, KernelAccess], artifacts: Any
) -> None:
    # Model Explorer draws the reference run's graph with the ops only other runs have added: the
    # longer run's mul is a node of the frame's graph, says which run lacks it, and a user's selection
    # of it gives Python that run's record (None for the run without it) and the inspector its panel.
    page, kernel = session
    root = page.page.locator(".tlw-root").nth(1)
    root.scroll_into_view_if_needed()
    kernel.wait_ready("c2", timeout=120)
    assert kernel.value("c2.not_drawn") == {}
    extra = kernel.value("extra")
    frame = page.page.locator("iframe.tlw-frame").nth(1).content_frame
    # On the canvas, the op not in every run has its thick dark border (no other pixel is that colour).
    canvas = frame.locator("webgl-renderer canvas.main").first
    assert colour_pixels(canvas, NOT_IN_EVERY_RUN_RGB, margin=8) > 60
    root.screenshot(path=str(artifacts / "compare-longer-unselected.png"))
    select_in_viewer_ui(frame, extra, kernel.value(f"c2._source.index.id_of_label({extra!r})"))
    kernel.wait_for("c2.selected_label", extra, timeout=30)
    assert kernel.value(f"c2.selected['longer'] is longer_run[{extra!r}]") is True
    assert kernel.value("c2.selected['step0'] is None") is True
    expect(root.locator(".tlw-inspector")).to_contain_text(extra, timeout=30_000)
    rows = root.locator(".tlw-inspector .tlw-insp-run")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("not in this run")
    # The app's own info of the selected node (its side panel, closed here) holds its "not in runs"
    # row: step0 lacks it.
    expect(frame.locator("body")).to_contain_text("not_in_runs", timeout=30_000)
    root.screenshot(path=str(artifacts / "compare-longer.png"))

    # Netron draws it too: selected from Python, its sidebar opens on it with the "not in runs" row.
    drawn = kernel.draws("c2")
    kernel.run("c2.viewer = 'netron'")
    kernel.wait_drawn("c2", since=drawn, timeout=120)
    assert kernel.value("c2.not_drawn") == {}
    kernel.run("c2.select(extra)")
    netron = page.page.locator("iframe.tlw-frame").nth(1).content_frame
    sidebar = netron.locator("#sidebar-content")
    expect(sidebar).to_contain_text(extra.split(":")[0], timeout=60_000)
    expect(sidebar.get_by_role("textbox", name="not in runs")).to_have_count(1)  # the row's name
    expect(sidebar).to_contain_text("step0")  # its value: the run that lacks it
    # Its box has the dark border of an op some runs lack, as in Model Explorer; no other box has.
    bordered = netron.locator("g.node.tlw-not-in-runs")
    expect(bordered).to_have_count(1)
    expect(bordered).to_have_class(re.compile(r"\bselect\b"))  # the op selected from Python
    border = bordered.locator("path.node-border").first
    assert border.evaluate("path => getComputedStyle(path).strokeWidth") == "3px"
    root.screenshot(path=str(artifacts / "compare-longer-netron.png"))
    assert page.console_errors == [], page.console_errors
