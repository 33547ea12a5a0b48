"""The room the graph gets, read from the real page with widgets 1,100 px wide: the default split in
both viewers and each diff pane, the inspector's fold and divider, maximize and Escape, the image
export of both viewers, and the toolbar by keyboard."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, KernelAccess
from tests.helpers.notebook import RecordedPage, notebook_session

WIDGET_WIDTH = 1100
CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(32, 32), nn.ReLU())]).eval()
x = torch.randn(2, 32)
with torch.no_grad():
    a = tl.trace(model, x)
    b = tl.trace(model, x * 2)""",
    "me = tlw.explore(a, height=420)\nme",
    "d = tlw.diff(a, b, height=420)\nd",
    "nt = tlw.explore(a, viewer='netron', height=420)\nnt",
]
ME, DIFF, NETRON = 0, 1, 2  # widget index on the page


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    @property
    def p(self) -> Any:
        return self.page.page

    def root(self, index: int) -> Any:
        return self.p.locator(".tlw-root").nth(index)

    def frame(self, index: int) -> Any:
        return self.root(index).locator("iframe.tlw-frame").content_frame

    def box(self, locator: Any) -> dict[str, float]:
        box = locator.bounding_box()
        assert box is not None, f"{locator} has no box"
        return dict(box)

    def graph_canvases(self, index: int) -> list[dict[str, float]]:
        """Model Explorer's graph canvases (one per pane), as drawn on the page."""
        canvases = self.frame(index).locator("webgl-renderer canvas.main")
        expect(canvases.first).to_be_visible(timeout=30_000)
        return [self.box(canvases.nth(i)) for i in range(canvases.count())]


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "layout.ipynb", CELLS, widgets=3) as (page, kernel):
        s = Session(page, kernel)
        for name in ("me", "d", "nt"):
            kernel.wait_ready(name)
        # The viewport that makes the widgets WIDGET_WIDTH wide (the cell has margins of its own).
        viewport = page.page.viewport_size
        width = s.box(s.root(ME))["width"]
        wider = round(viewport["width"] + WIDGET_WIDTH - width)
        page.page.set_viewport_size({"width": wider, "height": 1000})
        page.page.wait_for_function(
            "w => Math.abs(document.querySelector('.tlw-root').getBoundingClientRect().width - w) < 2",
            arg=WIDGET_WIDTH,
        )
        yield s
        assert page.console_errors == [], page.console_errors


def wait_for_width(
    session: Session, locator: Any, predicate: Callable[[float], bool], timeout: float = 30
) -> float:
    """Waits until the element's width on the page satisfies ``predicate`` and returns it.

    Read from Python: the element may be in Model Explorer's frame, an out-of-process frame whose
    elements the page's own scripts cannot be handed."""
    deadline = time.monotonic() + timeout
    while True:
        width = session.box(locator)["width"]
        if predicate(width):
            return width
        if time.monotonic() > deadline:
            raise AssertionError(f"the width stayed {width} px")
        time.sleep(0.1)


def test_the_graph_gets_most_of_the_width_in_both_viewers_and_each_diff_pane(
    session: Session, artifacts: Path
) -> None:
    root = session.box(session.root(ME))
    assert abs(root["width"] - WIDGET_WIDTH) < 2
    # Model Explorer: its own info panel starts closed; the canvas takes the rest beside the inspector.
    frame = session.frame(ME)
    expect(frame.locator("info-panel .hide-toggle").first).to_be_attached(timeout=30_000)
    session.p.wait_for_timeout(1_000)  # the app's resize observer, after the panel closed
    [canvas] = session.graph_canvases(ME)
    assert canvas["width"] >= 0.6 * root["width"], (canvas, root)
    session.root(ME).screenshot(path=str(artifacts / "layout-model-explorer-1100.png"))

    # Each diff pane: the pane's canvas gets at least 60% of its half of the widget.
    session.root(DIFF).scroll_into_view_if_needed()
    canvases = session.graph_canvases(DIFF)
    assert len(canvases) == 2
    for pane in canvases:
        assert pane["width"] >= 0.6 * WIDGET_WIDTH / 2, canvases
    session.root(DIFF).screenshot(path=str(artifacts / "layout-diff-1100.png"))

    # Netron: the frame gets the graph's share; a selection opens its sidebar on at most half of it.
    session.root(NETRON).scroll_into_view_if_needed()
    netron = session.box(session.root(NETRON).locator("iframe.tlw-frame"))
    assert netron["width"] >= 0.6 * WIDGET_WIDTH, netron
    session.kernel.run("nt.select(a.layer_labels[2])")
    sidebar = session.frame(NETRON).locator("#sidebar")
    expect(sidebar).to_be_visible(timeout=30_000)
    session.p.wait_for_timeout(800)  # Netron's sidebar slides in
    sidebar_width = session.box(sidebar)["width"]
    graph_width = session.box(session.frame(NETRON).locator("#target"))["width"]
    assert sidebar_width <= netron["width"] / 2 + 1, (sidebar_width, netron)
    assert graph_width >= netron["width"] / 2 - 1, (graph_width, netron)
    session.root(NETRON).screenshot(path=str(artifacts / "layout-netron-selected-1100.png"))


# Model Explorer's title bar, read in its frame: the frame's width, the bar's bottom, and the farthest
# right and lowest edges of its controls (buttons, the title, the graph selector, the node data button).
TITLE_BAR = """() => {
  const bar = document.querySelector("title-bar > .container");
  const selector = "button, .title, graph-selector, node-data-provider-dropdown .icon-container";
  const boxes = [...bar.querySelectorAll(selector)]
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width > 0);
  return {
    frame: document.documentElement.clientWidth,
    barBottom: bar.getBoundingClientRect().bottom,
    controls: boxes.length,
    right: Math.max(...boxes.map((r) => r.right)),
    bottom: Math.max(...boxes.map((r) => r.bottom)),
  };
}"""


def test_model_explorers_title_bar_keeps_one_row_with_every_control_in_the_frame(
    session: Session, artifacts: Path
) -> None:
    # The app is made for a whole page; in a cell its title bar wrapped "Add per-node data" onto three
    # lines over the graph's toolbar and pushed its last buttons out of the frame.
    viewport = session.p.viewport_size
    try:
        for width in (WIDGET_WIDTH, 800):
            session.p.set_viewport_size({"width": viewport["width"] + width - WIDGET_WIDTH, "height": 1000})
            wait_for_width(session, session.root(ME), lambda w, width=width: abs(w - width) < 2)
            frame = session.frame(ME)
            session.root(ME).scroll_into_view_if_needed()
            expect(frame.locator("title-bar > .container")).to_be_visible(timeout=30_000)
            session.p.wait_for_timeout(300)  # the frame's layout after the resize
            bar = frame.locator("title-bar").evaluate(f"(_el) => ({TITLE_BAR})()")
            assert bar["controls"] >= 6, bar
            assert bar["right"] <= bar["frame"] + 0.5, (
                f"a control ends outside the frame at {width} px: {bar}"
            )
            assert bar["bottom"] <= bar["barBottom"] + 0.5, f"the title bar wraps at {width} px: {bar}"
            session.root(ME).screenshot(path=str(artifacts / f"layout-title-bar-{width}.png"))
    finally:
        session.p.set_viewport_size(viewport)
        wait_for_width(session, session.root(ME), lambda w: abs(w - WIDGET_WIDTH) < 2)


# Marks the app's info panel (its element and the clicks its toggle receives) before the user's click,
# so that a failure can tell a click that never reached the toggle from a panel the app replaced (the
# frame's shim closes each new panel once) or one closed again.
MARK_PANEL = """panel => {
  panel.__tlwMarked = true;
  panel.querySelector('.hide-toggle').addEventListener('click', () => {
    panel.__tlwClicks = (panel.__tlwClicks || 0) + 1;
  });
}"""
PANELS = """panels => panels.map((panel) => ({
  marked: !!panel.__tlwMarked, clicks: panel.__tlwClicks || 0,
  width: Math.round(panel.getBoundingClientRect().width),
}))"""


def test_model_explorer_info_panel_reopens_with_its_own_toggle(session: Session) -> None:
    frame = session.frame(ME)
    [before] = session.graph_canvases(ME)
    frame.locator("info-panel").first.evaluate(MARK_PANEL)
    frame.locator("info-panel .hide-toggle").first.click()
    canvas = frame.locator("webgl-renderer canvas.main").first
    try:
        narrower = wait_for_width(session, canvas, lambda w: w < before["width"] - 100)
    except AssertionError as stayed:
        panels = frame.locator("info-panel").evaluate_all(PANELS)
        raise AssertionError(f"{stayed} after one click on its toggle; the panels: {panels}") from None
    assert narrower < before["width"]
    frame.locator("info-panel .hide-toggle").first.click()  # closed again, for the tests after this one
    wait_for_width(session, canvas, lambda w: w > before["width"] - 2)


def test_inspector_folds_to_a_strip_and_the_divider_sets_its_width(session: Session) -> None:
    root = session.root(ME)
    inspector = root.locator(".tlw-inspector")
    divider = root.locator(".tlw-divider")
    body = root.locator(".tlw-body")
    start = session.box(inspector)["width"]
    assert abs(start - session.kernel.value("me.inspector_width")) < 2

    # Keyboard: the focused divider moves with the arrow keys (16 px a press).
    separator = root.get_by_role("separator", name="Inspector width (arrow keys move it)")
    separator.focus()
    for _ in range(3):
        session.p.keyboard.press("ArrowLeft")
    session.kernel.wait_for("me.inspector_width", round(start) + 48)
    assert abs(session.box(inspector)["width"] - (start + 48)) < 2

    # Drag: the pointer crosses the viewer's frame on the way.
    handle = session.box(divider)
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    session.p.mouse.move(x, y)
    session.p.mouse.down()
    session.p.mouse.move(x - 60, y, steps=4)
    session.p.mouse.move(x - 120, y, steps=4)
    session.p.mouse.up()
    dragged = session.box(inspector)["width"]
    assert abs(dragged - (start + 48 + 120)) < 3, dragged
    session.kernel.wait_for("me.inspector_width", round(dragged))

    # Fold: a thin strip with a "show" button; the graph gets the room.
    graph_before = session.box(body)["width"]
    root.get_by_role("button", name="Hide the inspector").click()
    expect(inspector).to_be_hidden()
    session.kernel.wait_for("me.inspector_collapsed", True)
    strip = session.box(divider)["width"]
    assert strip <= 24
    assert session.box(body)["width"] >= WIDGET_WIDTH - strip - 4 > graph_before
    root.get_by_role("button", name="Show the inspector").click()
    expect(inspector).to_be_visible()
    session.kernel.wait_for("me.inspector_collapsed", False)
    assert abs(session.box(inspector)["width"] - dragged) < 2  # the width was remembered

    # From Python, as a user's next cell would.
    session.kernel.run("me.inspector_width = 300")
    wait_for_width(session, inspector, lambda w: abs(w - 300) < 2)

    # The diff folds its row of inspectors; its panes keep their height.
    diff = session.root(DIFF)
    panes_before = session.box(diff.locator(".tlw-body"))["height"]
    diff_before = session.box(diff)["height"]
    diff.get_by_role("button", name="Hide the inspectors").click()
    expect(diff.locator(".tlw-side")).to_be_hidden()
    session.kernel.wait_for("d.inspector_collapsed", True)
    assert session.box(diff)["height"] < diff_before - 200
    assert abs(session.box(diff.locator(".tlw-body"))["height"] - panes_before) < 2
    diff.get_by_role("button", name="Show the inspectors").click()
    expect(diff.locator(".tlw-side")).to_be_visible()


def test_maximize_fills_the_window_and_escape_restores(session: Session, artifacts: Path) -> None:
    root = session.root(ME)
    root.scroll_into_view_if_needed()
    viewport = session.p.viewport_size
    before = session.box(root)
    [canvas_before] = session.graph_canvases(ME)
    root.get_by_role("button", name="Maximize the widget").click()
    session.kernel.wait_for("me.maximized", True)
    session.p.wait_for_function(
        "([el, w, h]) => { const r = el.getBoundingClientRect();"
        " return r.left === 0 && r.top === 0 && Math.abs(r.width - w) < 2 && Math.abs(r.height - h) < 2; }",
        arg=[root.element_handle(), viewport["width"], viewport["height"]],
    )
    canvas = session.frame(ME).locator("webgl-renderer canvas.main").first
    wide = wait_for_width(session, canvas, lambda w: w > canvas_before["width"] + 50)
    assert wide > canvas_before["width"]
    root.screenshot(path=str(artifacts / "layout-maximized.png"))
    # Escape restores, wherever the focus is on the page.
    session.p.keyboard.press("Escape")
    session.kernel.wait_for("me.maximized", False)
    wait_for_width(session, root, lambda w: abs(w - before["width"]) < 2)
    after = session.box(root)
    assert abs(after["height"] - before["height"]) < 2
    wait_for_width(session, canvas, lambda w: abs(w - canvas_before["width"]) < 2)

    # From Python; Escape inside Netron's (sandboxed) frame restores it too.
    netron = session.root(NETRON)
    netron_before = session.box(netron)
    session.kernel.run("nt.maximize()")
    wait_for_width(session, netron, lambda w: abs(w - viewport["width"]) < 2)
    expect(netron.get_by_role("button", name="Restore the widget size (Escape)")).to_be_visible()
    session.frame(NETRON).locator("#target").focus()  # the keys go to the sandboxed frame now
    session.p.keyboard.press("Escape")
    session.kernel.wait_for("nt.maximized", False)
    wait_for_width(session, netron, lambda w: abs(w - netron_before["width"]) < 2)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk comes first
    return width, height


def download(session: Session, button: Any, tmp_path: Path) -> bytes:
    with session.p.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    return path.read_bytes()


def test_save_image_downloads_what_each_viewer_shows(session: Session, tmp_path: Path) -> None:
    # Model Explorer: a PNG of its graph canvas.
    root = session.root(ME)
    root.scroll_into_view_if_needed()
    [canvas] = session.graph_canvases(ME)
    data = download(session, root.get_by_role("button", name="Save an image of the graph (PNG)"), tmp_path)
    width, height = png_size(data)
    # At the app's drawing resolution (its pixel ratio), the canvas' shape.
    assert width >= canvas["width"] - 2, (width, canvas)
    assert abs(width / height - canvas["width"] / canvas["height"]) < 0.02, (width, height, canvas)
    assert len(data) > 5_000  # a drawn graph, not an empty canvas

    # The diff: both panes in one image.
    diff = session.root(DIFF)
    diff.scroll_into_view_if_needed()
    panes = session.graph_canvases(DIFF)
    data = download(session, diff.get_by_role("button", name="Save an image of the graph (PNG)"), tmp_path)
    width, height = png_size(data)
    together = sum(pane["width"] for pane in panes)
    assert abs(width / height - together / panes[0]["height"]) < 0.05, (width, height, panes)

    # Netron: its own PNG and SVG export, downloaded through the page's guarded path.
    netron = session.root(NETRON)
    netron.scroll_into_view_if_needed()
    data = download(session, netron.get_by_role("button", name="Save an image of the graph (PNG)"), tmp_path)
    width, height = png_size(data)
    assert width > 100 and height > 100 and len(data) > 5_000
    data = download(session, netron.get_by_role("button", name="Save an image of the graph (SVG)"), tmp_path)
    assert data.lstrip().startswith(b"<svg") and b"graph-node" in data and len(data) > 5_000
    expect(netron.locator(".tlw-notice")).to_be_hidden()


def test_every_control_is_reachable_with_tab_and_named(session: Session) -> None:
    root = session.root(ME)
    root.scroll_into_view_if_needed()
    # In Tab order, from the overlay choice: the memory strip's switch, the image button, then maximize
    # (then the viewer's frame).
    root.locator(".tlw-overlay-select").focus()
    reached = []
    for _ in range(3):
        session.p.keyboard.press("Tab")
        reached.append(
            session.p.evaluate(
                "() => { const el = document.activeElement;"
                " return el.getAttribute('aria-label') || el.textContent.trim(); }"
            )
        )
    assert reached == [
        "Show torchlens' live bytes over execution order under the graph",
        "Save an image of the graph (PNG)",
        "Maximize the widget",
    ], reached
    # Every control of every widget has a name and can take the focus.
    unnamed = session.p.evaluate(
        """() => [...document.querySelectorAll(
            '.tlw-root button, .tlw-root select, .tlw-root [role=separator]')]
          .filter((el) => el.offsetParent !== null)
          .filter((el) => el.tabIndex < 0
            || !(el.getAttribute('aria-label') || el.textContent.trim() || el.closest('label')))
          .map((el) => el.outerHTML.slice(0, 120))"""
    )
    assert unnamed == []
