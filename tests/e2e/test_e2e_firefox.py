"""The widget in Firefox: Debian's Firefox ESR on a virtual display (Xvfb), driven over WebDriver BiDi
(tests/helpers/firefox), in a real JupyterLab. One notebook with a Model Explorer view and a Netron view of
GPT-2 (2 blocks, 64 wide, random weights), run with Run All: both draw (read from the page's pixels), the
focus stays in the notebook, a click in each viewer reaches the kernel, ``select()`` from Python reaches
each, an overlay recolours each in place, no request leaves the machine, the console logs no error."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.firefox import VIEWER_FRAMES, FirefoxPage, missing_parts
from tests.helpers.harness import JupyterServer, KernelAccess, open_notebook, run_all_cells
from tests.helpers.notebook import SETTLED
from tests.helpers.pixels import GRAPH_AREAS, PAINTED_FRACTION, changed_fraction, painted_fraction

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(
    n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64, bos_token_id=0, eos_token_id=0
)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 1000, (1, 12)))""",
    "w = tlw.explore(log, height=640)\nw",
    'n = tlw.explore(log, viewer="netron", height=420)\nn',
]
EXPLORER, NETRON = 0, 1  # the views' order on the page (and of their frames)

# The page has the keyboard focus, on the notebook, not in a viewer frame inside it.
FOCUS_IN_THE_NOTEBOOK = """() => { const active = document.activeElement;
  return document.hasFocus() && active?.tagName !== 'IFRAME' && !!active?.closest('.jp-Notebook'); }"""
# Where widget i's viewer frame shows its document, in page coordinates (scrolled into view first).
FRAME_BOX = """i => {
  const root = document.querySelectorAll('.tlw-root')[i];
  root.scrollIntoView({ block: 'nearest' });
  const frame = root.querySelector('iframe.tlw-frame');
  const box = frame.getBoundingClientRect();
  return { x: box.x + frame.clientLeft, y: box.y + frame.clientTop, width: frame.clientWidth,
           height: frame.clientHeight };
}"""
# In a frame: the box of the first element matching the selector (and containing the text), or null.
# It is scrolled into view within the frame's own boxes first (the frame keeps the page where it is).
ELEMENT_BOX = """([selector, text]) => {
  const element = [...document.querySelectorAll(selector)].find((e) => !text || e.textContent.includes(text));
  element?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  const box = element?.getBoundingClientRect();
  return box && box.width > 0 ? { x: box.x, y: box.y, width: box.width, height: box.height } : null;
}"""
# Marks every element matching a selector (a later check finds the mark on the very same element).
MARK = "selector => { for (const e of document.querySelectorAll(selector)) e.tlwMark = 'before'; }"
MARKED = "([selector, i]) => document.querySelectorAll(selector)[i]?.tlwMark === 'before'"
INFO_PANEL_OPEN = "() => (document.querySelector('info-panel')?.getBoundingClientRect().width ?? 0) >= 100"
SEARCH_CLOSED = "() => !document.querySelector('search-bar .search-results-container')"
# Model Explorer's info panel row torchlens_label, as the app shows the node it selected.
INFO_LABEL = """() => [...document.querySelectorAll('info-panel tr')]
  .find((row) => row.querySelector('td.key')?.textContent.includes('torchlens_label'))
  ?.querySelector('td.value .one-line-text')?.textContent.trim() ?? null"""


@dataclass
class Session:
    page: FirefoxPage
    kernel: KernelAccess

    def box(self, view: int, selector: str, text: str = "") -> dict[str, float]:
        """Page coordinates of an element in view ``view``'s frame, cut to the frame and the viewport
        (what a user can see and press); waits until it is laid out."""
        frame = self.page.evaluate(FRAME_BOX, view)
        inner = self.page.wait_for_function(ELEMENT_BOX, [selector, text], frame=view)
        left, top = max(frame["x"] + inner["x"], frame["x"], 0), max(frame["y"] + inner["y"], frame["y"], 0)
        right = min(frame["x"] + inner["x"] + inner["width"], frame["x"] + frame["width"])
        bottom = min(frame["y"] + inner["y"] + inner["height"], frame["y"] + frame["height"])
        viewport = self.page.viewport_size
        right, bottom = min(right, viewport["width"]), min(bottom, viewport["height"])
        assert right - left >= 4 and bottom - top >= 4, f"{selector} {text!r} is out of sight in view {view}"
        return {"x": left, "y": top, "width": right - left, "height": bottom - top}

    def press(self, view: int, selector: str, text: str = "", modifiers: tuple[str, ...] = ()) -> None:
        """A mouse click on the middle of an element in view ``view``'s frame, as a user gives it."""
        box = self.box(view, selector, text)
        self.page.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, modifiers)

    def graph_area(self, view: int, viewer: str) -> dict[str, float]:
        return self.box(view, GRAPH_AREAS[viewer])

    def toggle_info_panel(self, shown: bool) -> None:
        """Opens or closes Model Explorer's own info panel with its toggle, as a user does."""
        if self.page.evaluate(INFO_PANEL_OPEN, frame=EXPLORER) != shown:
            self.press(EXPLORER, "info-panel .hide-toggle")
        self.page.wait_for_function(f"() => ({INFO_PANEL_OPEN})() === {str(shown).lower()}", frame=EXPLORER)


@pytest.fixture(scope="module")
def firefox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirefoxPage]:
    missing = missing_parts()
    if missing:
        needs = ", ".join(missing)
        pytest.fail(f"The Firefox lane needs {needs}: run `bash scripts/test.sh` (its set-up installs them).")
    page = FirefoxPage(tmp_path_factory.mktemp("firefox"), height=1200)
    try:
        yield page
    finally:
        page.close()


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, firefox: FirefoxPage) -> Iterator[Session]:
    notebook = jupyter_lab.write_notebook("firefox.ipynb", CELLS)
    try:
        open_notebook(firefox, jupyter_lab, notebook)
        kernel = jupyter_lab.kernel_for(notebook)
        try:
            run_all_cells(firefox)
            firefox.wait_for_function(SETTLED, arg=2, timeout=240_000)
            yield Session(firefox, kernel)
        finally:
            kernel.close()
    finally:
        jupyter_lab.shut_down_notebook(notebook)


def test_run_all_draws_both_viewers_and_leaves_the_focus_in_the_notebook(
    session: Session, artifacts: Path
) -> None:
    page, kernel = session.page, session.kernel
    for name in ("w", "n"):
        kernel.wait_ready(name, timeout=120)
    focused = page.evaluate("() => document.activeElement?.outerHTML.slice(0, 120)")
    assert page.evaluate(FOCUS_IN_THE_NOTEBOOK), f"the notebook lost the focus after Run All, to {focused}"
    for view, viewer in ((EXPLORER, "model-explorer"), (NETRON, "netron")):
        area = session.graph_area(view, viewer)
        painted = painted_fraction(page, area)
        (artifacts / f"firefox-{viewer}.png").write_bytes(page.screenshot(area))
        assert painted >= PAINTED_FRACTION, f"{viewer} is ready over a blank graph ({painted:.4f} painted)"


def test_a_click_on_a_netron_box_reaches_the_kernel(session: Session) -> None:
    session.press(NETRON, "g.node .node-item-type", "transformer")
    session.kernel.wait_for("n.selected_label", "transformer", timeout=30)
    assert session.kernel.value("n.selected is log.modules['transformer']") is True


def test_a_click_in_model_explorer_reaches_the_kernel(session: Session) -> None:
    """Model Explorer's own search box, then an Alt+click on the result (a plain click only centres it),
    as tests/helpers/harness.py select_in_viewer_ui does in Chromium."""
    kernel = session.kernel
    label = kernel.value("log.modules['transformer.h.0.mlp.c_proj'].output_ops[0]")
    node_id = kernel.value(f"w._source.index.id_of_label({label!r})")
    session.press(EXPLORER, 'search-bar input[placeholder="Search nodes/layers by regex"]')
    session.page.type(f"^torchlens_label={re.escape(label)}$")
    session.press(EXPLORER, f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node', modifiers=("Alt",))
    kernel.wait_for("w.selected_label", label, timeout=30)
    assert kernel.value("w.selected_node") == node_id
    # The user clears the search: its results no longer cover the graph.
    session.press(EXPLORER, "search-bar .btn-clear-container")
    session.page.wait_for_function(SEARCH_CLOSED, frame=EXPLORER)


def test_select_from_python_reaches_both_viewers(session: Session) -> None:
    page, kernel = session.page, session.kernel
    label = kernel.value("log.modules['transformer.h.1.mlp.c_fc'].output_ops[0]")
    kernel.run(f"w.select({label!r})\nn.select({label!r})")
    # Model Explorer's own info panel (the widget starts it closed) shows the node's torchlens label.
    session.toggle_info_panel(shown=True)
    page.wait_for_function(f"() => ({INFO_LABEL})() === {label!r}", frame=EXPLORER)
    session.toggle_info_panel(shown=False)  # the graph's full width again
    # Netron drilled into the module call and its sidebar shows the node.
    node = kernel.value("n.selected_node")
    page.wait_for_function(
        "id => document.querySelector('#sidebar-content')?.textContent.includes(id)", node, frame=NETRON
    )


# Per view: its widget and viewer, and an element of its drawing (an in-place switch keeps it, a new
# layout or a new app does not).
OVERLAID = (
    (EXPLORER, "w", "model-explorer", "webgl-renderer canvas.main"),
    (NETRON, "n", "netron", "g.node"),
)


def test_an_overlay_recolours_both_viewers_in_place(session: Session) -> None:
    """``overlay = "time"``: other pixels in the same frame and on the same drawing (no new boot, no new
    layout), and each viewer names the overlay."""
    page, kernel = session.page, session.kernel
    for view, name, viewer, drawing in OVERLAID:
        page.evaluate(MARK, VIEWER_FRAMES)
        page.evaluate(MARK, drawing, frame=view)
        look = page.screenshot(session.graph_area(view, viewer))
        drawn = kernel.draws(name)
        kernel.run(f"{name}.overlay = 'time'")
        kernel.wait_drawn(name, since=drawn, timeout=120)
        assert page.evaluate(MARKED, [VIEWER_FRAMES, view]), f"{viewer}: a new frame was made for the overlay"
        assert page.evaluate(MARKED, [drawing, 0], frame=view), f"{viewer}: the graph was drawn anew"
        changed = changed_fraction(look, page.screenshot(session.graph_area(view, viewer)))
        assert changed > 0.002, f"{viewer}: the overlay changed {changed:.2%} of the graph's pixels"
    session.box(NETRON, "#tlw-overlay-legend", "time")  # the legend the widget's Netron host draws
    session.toggle_info_panel(shown=True)  # Model Explorer lists the overlay among its node data
    session.box(EXPLORER, "info-panel", "time (ms per op)")


def test_no_request_left_the_machine_and_no_console_error(session: Session) -> None:
    recorded = session.page.recorded()
    assert recorded["requests"], "the driver saw no request at all"
    assert session.page.off_machine_requests() == []
    assert recorded["consoleErrors"] == []
