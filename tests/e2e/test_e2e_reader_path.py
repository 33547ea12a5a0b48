"""A notebook of many viewers, run with Run All and read the way a reader reads it, in a real JupyterLab.

The page holds two views of one widget, Model Explorer and Netron at both granularities (one under the
public profile), an overlay, a diff and a cell after them. After Run All the reader scrolls with the
mouse wheel from the top to each widget in turn, then back up. At every step: no viewer frame holds the
keyboard focus the user did not give it, the notebook stays where the reader scrolled, and each view
draws once it is on screen, read from the page's pixels. "Ready" is never shown over an unpainted graph.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, KernelAccess, open_notebook, run_all_cells
from tests.helpers.notebook import RecordedPage
from tests.helpers.pixels import shows_a_graph

SETUP = """import torch, torchlens as tl, torchlens_widgets as tlw, sys
from IPython.display import display
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
model = GPT2LMHeadModel(config).eval()
tokens = torch.randint(0, 1000, (1, 16))
log = tl.trace(model, tokens)
other = GPT2LMHeadModel(config).eval()
log_other = tl.trace(other, tokens)
c_fc_out = log.modules["transformer.h.1.mlp.c_fc"].output_ops[0]


def spread(record):
    out = record.out
    return out.float().std() if isinstance(out, torch.Tensor) and out.numel() > 1 else None"""

CELLS = [
    SETUP,
    "w = tlw.explore(log, height=420)\ndisplay(w)\ndisplay(w)",
    'op = tlw.explore(log, viewer="netron", granularity="op", height=420)\nop',
    'pub = tlw.explore(log, viewer="netron", privacy_profile="public", height=420)\npub',
    'timed = tlw.explore(log, overlay="time", height=420)\ntimed',
    "d = tlw.diff(log, log_other, height=420)\nd",
    "after_the_widgets = 'ran'",
]
# The widget each view on the page belongs to, in page order (two views of `w`).
VIEWS = ["w", "w", "op", "pub", "timed", "d"]

FOCUS_IN_A_FRAME = "() => document.activeElement?.tagName === 'IFRAME'"
SCROLLER = ".jp-WindowedPanel-outer"
SCROLL_TOP = f"() => document.querySelector('{SCROLLER}').scrollTop"
# Every view a reader sees now (100 px of it or more, inside the notebook's scroll box) has drawn, and at
# least one is on screen: Run All may leave the notebook at its end or, on a busy machine, at its top.
ON_SCREEN_DRAWN = f"""() => {{
  const view = document.querySelector('{SCROLLER}').getBoundingClientRect();
  const shown = [...document.querySelectorAll('.tlw-root')].filter((root) => {{
    const box = root.getBoundingClientRect();
    return Math.min(box.bottom, view.bottom) - Math.max(box.top, view.top) >= 100;
  }});
  const drawn = (root) => root.querySelector('.tlw-status').dataset.state === 'ready';
  return shown.length > 0 && shown.every(drawn);
}}"""
# The wheel scrolls smoothly: true once the scroll box has not moved for a few animation frames.
SCROLL_SETTLED = f"""() => new Promise((resolve) => {{
  const box = document.querySelector('{SCROLLER}');
  let last = box.scrollTop, still = 0;
  const step = () => {{
    still = box.scrollTop === last ? still + 1 : 0;
    last = box.scrollTop;
    if (still >= 6) resolve(true); else requestAnimationFrame(step);
  }};
  requestAnimationFrame(step);
}})"""
# Where the root's top is, from the top of the notebook's scroll box.
ROOT_OFFSET = f"""i => {{
  const root = document.querySelectorAll('.tlw-root')[i];
  return root.getBoundingClientRect().top - document.querySelector('{SCROLLER}').getBoundingClientRect().top;
}}"""


@pytest.fixture(scope="module")
def reader(jupyter_lab: JupyterServer, browser: Any) -> Iterator[tuple[RecordedPage, KernelAccess]]:
    """The notebook, opened and run with Run All; the test reads it from the cells' end."""
    notebook = jupyter_lab.write_notebook("reader-path.ipynb", CELLS)
    page = RecordedPage(browser)
    try:
        open_notebook(page.page, jupyter_lab, notebook)
        kernel = jupyter_lab.kernel_for(notebook)
        try:
            run_all_cells(page.page)
            kernel.wait_for("globals().get('after_the_widgets')", "ran", timeout=240)
            expect(page.page.locator(".tlw-root")).to_have_count(len(VIEWS), timeout=60_000)
            yield page, kernel
        finally:
            kernel.close()
    finally:
        page.close()
        jupyter_lab.shut_down_notebook(notebook)


def wheel_to(page: Any, index: int) -> None:
    """Scrolls with the mouse wheel, as a reader does, until widget ``index`` is near the top. The pointer
    rests on the cells' prompt column, not on a frame (a wheel over Netron zooms its graph)."""
    scroller = page.locator(SCROLLER).bounding_box()
    page.mouse.move(scroller["x"] + 30, scroller["y"] + scroller["height"] / 2)
    for _ in range(200):
        offset = page.evaluate(ROOT_OFFSET, index)
        if 20 <= offset <= 160:
            return
        page.mouse.wheel(0, max(-400, min(400, offset - 80)))
        page.wait_for_function(SCROLL_SETTLED, timeout=10_000)
    raise AssertionError(f"could not scroll to widget {index}")


def read_widget(page: RecordedPage, index: int, timeout: float = 90) -> None:
    """Waits, at the reader's scroll position, until widget ``index`` shows its graph in pixels. Fails if
    the focus goes into a frame, if the notebook scrolls away from the reader, or if the view says
    "ready" over a graph area that shows nothing."""
    where = page.page.evaluate(SCROLL_TOP)
    deadline = time.monotonic() + timeout
    while True:
        assert not page.page.evaluate(FOCUS_IN_A_FRAME), f"a viewer frame took the focus (widget {index})"
        now = page.page.evaluate(SCROLL_TOP)
        assert abs(now - where) < 2, f"the notebook scrolled from {where} to {now} while widget {index} drew"
        state = page.page.locator(".tlw-root").nth(index).locator(".tlw-status").get_attribute("data-state")
        painted = shows_a_graph(page.page, index)
        if state == "ready":
            assert painted, f"widget {index} says ready over a graph area that shows nothing"
            return
        assert state != "error", page.page.locator(".tlw-root").nth(index).text_content()
        assert time.monotonic() < deadline, f"widget {index} did not draw on screen in {timeout} s ({state})"
        page.page.wait_for_timeout(250)


def test_run_all_leaves_the_focus_in_the_notebook(reader: tuple[RecordedPage, KernelAccess]) -> None:
    page, _kernel = reader
    # The views Run All left on screen draw (a viewer focuses its graph as it draws), and the focus
    # stays in the notebook.
    page.page.wait_for_function(ON_SCREEN_DRAWN, timeout=120_000)
    assert not page.page.evaluate(FOCUS_IN_A_FRAME)
    # JupyterLab's command mode still has the keys: B adds a cell below the active one.
    cells = page.page.locator(".jp-Notebook .jp-Cell")
    count = cells.count()
    page.page.keyboard.press("Escape")
    page.page.keyboard.press("b")
    expect(cells).to_have_count(count + 1)
    page.page.keyboard.press("d")
    page.page.keyboard.press("d")
    expect(cells).to_have_count(count)


def test_a_reader_scrolling_down_then_back_up_sees_every_view_drawn(
    reader: tuple[RecordedPage, KernelAccess], artifacts: Any
) -> None:
    page, kernel = reader
    page.page.locator(SCROLLER).evaluate("el => el.scrollTo(0, 0)")
    for index in range(len(VIEWS)):
        wheel_to(page.page, index)
        read_widget(page, index)
    page.page.screenshot(path=str(artifacts / "reader-path-bottom.png"))
    for index in reversed(range(len(VIEWS))):
        wheel_to(page.page, index)
        read_widget(page, index)
    page.page.screenshot(path=str(artifacts / "reader-path-top.png"))
    for name in sorted(set(VIEWS)):
        # The page said "ready"; the kernel hears it a message later (and the error if it did not).
        kernel.wait_for(f"({name}.status, {name}.error)", ("ready", ""), timeout=30)
    assert page.console_errors == []


def test_a_click_gives_a_frame_the_keys_and_escape_gives_them_back(
    reader: tuple[RecordedPage, KernelAccess],
) -> None:
    page, _kernel = reader
    netron = 2  # `op`: Netron cancels its graph's presses (to pan), which also cancels their focus
    wheel_to(page.page, netron)
    read_widget(page, netron)
    frame = page.page.locator(".tlw-root").nth(netron).locator("iframe.tlw-frame")
    box = frame.bounding_box()
    page.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.page.wait_for_function(FOCUS_IN_A_FRAME)
    page.page.keyboard.press("Escape")
    page.page.wait_for_function(f"() => !({FOCUS_IN_A_FRAME})()")
    cells = page.page.locator(".jp-Notebook .jp-Cell")
    count = cells.count()
    page.page.keyboard.press("b")  # a command-mode key reaches the notebook again
    expect(cells).to_have_count(count + 1)
    page.page.keyboard.press("d")
    page.page.keyboard.press("d")
    expect(cells).to_have_count(count)
    assert page.console_errors == []


def test_a_custom_overlay_and_a_lineage_redraw_on_screen_with_netron_below(
    reader: tuple[RecordedPage, KernelAccess],
) -> None:
    page, kernel = reader
    wheel_to(page.page, 0)
    read_widget(page, 0)
    before = kernel.draws("w")
    kernel.run("w.add_overlay('spread', spread)")
    kernel.run("w.overlay = 'spread'")
    kernel.wait_drawn("w", since=before, timeout=120)
    read_widget(page, 0)
    before = kernel.draws("w")
    frame = page.page.locator(".tlw-root").nth(0).locator("iframe.tlw-frame")
    frame.evaluate("frame => { frame.tlwBeforeLineage = true; }")
    kernel.run("w.lineage(c_fc_out)")
    expect(page.page.locator(".tlw-root").nth(0).locator(".tlw-status")).to_contain_text("highlighted")
    # Marked on the graph drawn (test_e2e_debug reads the marks' pixels), in place: the same frame, no
    # new draw, while the reader stays where they are.
    read_widget(page, 0)
    assert frame.evaluate("frame => frame.tlwBeforeLineage") is True
    assert kernel.draws("w") == before
    assert page.console_errors == []
