"""Model Explorer inline in a real JupyterLab, driven by headless Chromium, on GPT-2 (random weights)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.helpers.harness import JupyterServer, KernelAccess, open_info_panel, select_in_viewer_ui
from tests.helpers.notebook import AFTER_TWO_FRAMES, RecordedPage, notebook_session
from tests.helpers.pixels import colour_pixels, wait_for_colour

GPT2_CELLS = [
    """import time, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
# Narrow (n_embd 64): the same 579-op graph as full-width GPT-2's, built and traced in 1.8 s instead of 4.6.
model = GPT2LMHeadModel(GPT2Config(n_layer=12, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 1000, (1, 16)))""",
    "w = tl.widgets.explore(log, height=700)\nw",
    """small = tl.trace(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)),
                 torch.randn(2, 4))
w2 = tlw.explore(small, height=420)
w2""",
]


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    @property
    def frames(self) -> list[Any]:
        return [frame for frame in self.page.page.frames if frame.name == "" and frame.parent_frame]

    def viewer(self, index: int) -> Any:
        """The Model Explorer frame of the index-th widget on the page."""
        return self.page.page.locator("iframe.tlw-frame").nth(index).content_frame


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "gpt2.ipynb", GPT2_CELLS, widgets=2) as (page, kernel):
        yield Session(page, kernel)


def viewer_text(frame: Any) -> str:
    return str(frame.locator("body").inner_text())


def test_gpt2_graph_renders_in_the_cell(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    kernel.wait_ready("w")
    execution_nodes = kernel.value("w._graph_info['graphs']['00-execution']")
    assert execution_nodes > 500
    frame = session.viewer(0)
    # The app's own graph selector names the graph and its node count once it is laid out.
    frame.get_by_text("00-execution").first.wait_for(timeout=30_000)
    assert f"{execution_nodes} nodes" in viewer_text(frame)
    # The WebGL canvas exists and has a drawing surface.
    assert frame.locator("canvas").first.evaluate("c => c.width * c.height") > 10_000
    session.page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "model-explorer-gpt2.png"))


# The highlight's border colour (js/kernel/protocol.ts HIGHLIGHT_COLOUR), within a rendering margin.
HIGHLIGHT = (0xD8, 0x1B, 0x60)


def test_a_highlight_inside_collapsed_layers_borders_the_layers_around_it(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    kernel.wait_ready("w")
    page = session.page.page
    frame_element = page.locator("iframe.tlw-frame").first
    frame_element.scroll_into_view_if_needed()
    page.wait_for_timeout(1_000)  # as drawn, nothing selected: every layer collapsed
    before = colour_pixels(frame_element, HIGHLIGHT)
    drawn = kernel.draws("w")
    frame_element.evaluate("frame => { frame.tlwBeforeHighlight = true; }")
    # Ops deep inside a collapsed layer: the layers drawn around them stand for them, as in Netron.
    kernel.run("w.highlight(log.modules['transformer.h.5.mlp'].output_ops)")
    after = wait_for_colour(page, frame_element, HIGHLIGHT, more_than=before + 100)
    root = page.locator(".tlw-root").first
    root.screenshot(path=str(artifacts / "model-explorer-highlight-collapsed.png"))
    assert after > before + 100, f"no layer marked ({before} -> {after} highlight-coloured pixels)"
    assert frame_element.evaluate("frame => !!frame.tlwBeforeHighlight") and kernel.draws("w") == drawn
    kernel.run("w.highlight(None)")
    cleared = colour_pixels(frame_element, HIGHLIGHT)
    for _ in range(20):
        if cleared <= before + 20:
            break
        page.wait_for_timeout(250)
        cleared = colour_pixels(frame_element, HIGHLIGHT)
    assert cleared <= before + 20, f"the marks stayed ({after} -> {cleared} highlight-coloured pixels)"


def test_click_in_viewer_reaches_the_kernel(session: Session) -> None:
    kernel = session.kernel
    frame = session.viewer(0)
    target = kernel.value("log['transformer.h.2.mlp.c_proj'].label")  # e.g. "addmm_..:1"
    node_id = kernel.value(f"w._source.index.id_of_label({target!r})")
    select_in_viewer_ui(frame, target, node_id)
    kernel.wait_for("w.selected_label", target, timeout=30)
    assert kernel.value(f"w.selected is log[{target!r}]") is True
    assert kernel.value("w.selected_node") == node_id


def test_select_from_kernel_moves_the_viewer(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    frame = session.viewer(0)
    kernel.run("w.select('transformer.h.7.attn.c_attn')")
    label = kernel.value("w.selected_label")
    assert label
    # The viewer's side panel switches to the node and shows its attributes, torchlens_label included.
    open_info_panel(frame)  # the widget starts the app's own panel closed
    row = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="torchlens_label"))
    frame.locator("info-panel .section .header", has_text="Node info").first.wait_for(timeout=30_000)
    expect_text(row.locator("td.value .one-line-text").first, label)
    status = session.page.page.locator(".tlw-status").first.inner_text()
    assert f"selected {label}" in status
    session.page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "model-explorer-select.png"))

    # A select of a node inside collapsed layers, then one of a node on screen: the app opens the layers
    # in its layout worker and then selects the first node, after it selected the second at once. The
    # viewer shows the second, also once the layers around the first are open. The layout request is
    # held until the second select is taken, so that the first's answer surely comes last.
    hidden = kernel.value("log['transformer.h.10.mlp.c_fc'].label")
    hidden_id = kernel.value(f"w._source.index.id_of_label({hidden!r})")
    label_id = kernel.value("w.selected_node")
    viewer = session.page.page.locator("iframe.tlw-frame").first.element_handle().content_frame()
    assert viewer.evaluate(NODE_DRAWN, hidden_id) is False
    kernel.run("w.select(log.modules['transformer.h.7.attn.c_attn'].layer_labels[1])")  # on screen too
    viewer.wait_for_function(SELECTED_IN_APP, arg=kernel.value("w.selected_node"), timeout=30_000)
    viewer.evaluate(HOLD_LAYOUT_FOR, hidden_id)
    kernel.run(f"w.select({hidden!r})")
    viewer.wait_for_function("() => window.__tlwHeldLayouts.length > 0", timeout=30_000)
    kernel.run(f"w.select({label!r})")
    viewer.wait_for_function(SELECTED_IN_APP, arg=label_id, timeout=30_000)
    assert viewer.evaluate(RELEASE_LAYOUTS) == 1
    viewer.wait_for_function(NODE_DRAWN, arg=hidden_id, timeout=60_000)
    viewer.evaluate(AFTER_TWO_FRAMES)
    expect_text(row.locator("td.value .one-line-text").first, label)
    assert viewer.evaluate(SELECTED_IN_APP, label_id) is True
    assert kernel.value("w.selected_label") == label


# Inside a Model Explorer frame: whether the app has drawn node `nodeId` (its layers are open), and
# whether its renderer has `nodeId` selected.
NODE_DRAWN = "(nodeId) => window.me_test.renderers['0'].nodeBodies.savedRectangles[nodeId] !== undefined"
SELECTED_IN_APP = "(nodeId) => window.me_test.renderers['0'].selectedNodeId === nodeId"
# Holds the app's requests to its layout worker that would reveal and select `nodeId`, until released.
HOLD_LAYOUT_FOR = """(nodeId) => {
  const worker = window.me_test.renderers['0'].workerService.worker;
  const post = worker.postMessage.bind(worker);
  window.__tlwHeldLayouts = [];
  worker.postMessage = (message, ...rest) => {
    const reveals = message.selectedNodeId === nodeId && message.targetDeepestGroupNodeIdsToExpand;
    if (window.__tlwHeldLayouts && reveals) window.__tlwHeldLayouts.push(() => post(message, ...rest));
    else post(message, ...rest);
  };
}"""
RELEASE_LAYOUTS = """() => {
  const held = window.__tlwHeldLayouts;
  window.__tlwHeldLayouts = null;
  for (const send of held) send();
  return held.length;
}"""


def test_second_widget_renders_without_a_second_asset_transfer(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_ready("w2")
    transfers = session.page.page.evaluate("globalThis.__torchlensWidgetsTransfers")
    assert transfers["requests"] == 1
    first, second = kernel.value("w.bytes_sent"), kernel.value("w2.bytes_sent")
    assets = kernel.value("tlw.viewers.model_explorer.model_explorer_assets().wire_bytes")
    assert first > assets  # the assets plus GPT-2's graph
    assert second < 50_000  # only the small graph: no asset bytes again
    assert "nodes" in viewer_text(session.viewer(1))


# Inside a Model Explorer frame: where on the page (relative to the frame) the middle of node `nodeId`
# is drawn, from the app's own box for it and its camera.
NODE_ON_SCREEN = """(nodeId) => {
  const renderer = window.me_test.renderers['0'];
  const bodies = renderer.nodeBodies;
  const at = bodies.savedRectangles[nodeId].index * 16;
  const m = bodies.meshForRayCasting.instanceMatrix.array;
  const camera = renderer.webglRendererThreejsService.camera;
  const times = (e, v) => [0, 1, 2, 3].map((r) => e[r] * v[0] + e[4 + r] * v[1] + e[8 + r] * v[2]
    + e[12 + r] * v[3]);
  const centre = [m[at + 12], m[at + 13], m[at + 14], 1];
  const clip = times(camera.projectionMatrix.elements, times(camera.matrixWorldInverse.elements, centre));
  const box = document.querySelector('webgl-renderer canvas.main').getBoundingClientRect();
  const [x, y] = [clip[0] / clip[3], clip[1] / clip[3]];
  return { x: box.left + ((x + 1) / 2) * box.width, y: box.top + ((1 - y) / 2) * box.height };
}"""

# Inside a Model Explorer frame: how many of the scene's materials are hidden from the renderer (the
# app's hit boxes), and whether the canvas would look any different with them drawn.
HIT_BOXES_DRAWN = """() => {
  const three = window.me_test.renderers['0'].webglRendererThreejsService;
  const hidden = three.scene.children.map((mesh) => mesh.material)
    .filter((material) => material && material.visible === false);
  const canvas = document.querySelector('webgl-renderer canvas.main');
  three.render();
  const without = canvas.toDataURL();
  for (const material of hidden) material.visible = true;
  three.render();
  const drawn = canvas.toDataURL();
  for (const material of hidden) material.visible = false;
  three.render();
  return { hidden: hidden.length, same: without === drawn };
}"""


def test_a_click_on_a_drawn_node_selects_it_and_the_hit_boxes_are_not_drawn(session: Session) -> None:
    # The app finds the node under the pointer with boxes of its own that draw nothing; the frame keeps
    # them out of every draw (shim-hit-boxes.ts): the picture is the same, and a click still hits.
    kernel = session.kernel
    kernel.wait_ready("w2")
    root = session.page.page.locator(".tlw-root").nth(1)
    root.scroll_into_view_if_needed()
    frame_element = session.page.page.locator("iframe.tlw-frame").nth(1)
    viewer = frame_element.element_handle().content_frame()
    checked = viewer.evaluate(HIT_BOXES_DRAWN)
    assert checked["hidden"] >= 1 and checked["same"], checked
    target = "linear_2_3:1"
    at = viewer.evaluate(NODE_ON_SCREEN, kernel.value(f"w2._source.index.id_of_label({target!r})"))
    box = frame_element.bounding_box()
    assert box is not None
    x, y = box["x"] + at["x"], box["y"] + at["y"]
    mouse = session.page.page.mouse
    mouse.move(x - 5, y - 5)
    mouse.move(x, y)  # the app finds the node under the pointer as it moves
    mouse.click(x, y)
    kernel.wait_for("w2.selected_label", target, timeout=30)
    assert kernel.value(f"w2.selected is small[{target!r}]") is True


# A new cell at the end of the notebook, run as a user runs it.
RUN_NEW_CELL = """async (source) => {
  const app = window.jupyterapp;
  const notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = notebook.widgets.length - 1;
  await app.commands.execute("notebook:insert-cell-below");
  notebook.activeCell.model.sharedModel.setSource(source);
  await app.commands.execute("notebook:run-cell");
}"""

PARKED = "document.querySelector('.tlw-parked-app iframe.tlw-parked-frame')"


def test_a_later_explorer_takes_the_app_parked_for_it(session: Session, artifacts: Any) -> None:
    # Once the page is quiet after an explorer drew, a Model Explorer app boots out of sight: the next
    # explorer of one pane without an overlay takes it, and skips the app's boot.
    page = session.page.page
    page.wait_for_function(f"() => {PARKED} !== null", timeout=60_000)
    holder = page.locator(".tlw-parked-app")
    assert holder.evaluate("e => e.inert && getComputedStyle(e).opacity === '0'")
    assert page.locator(".tlw-parked-app iframe").content_frame.locator("canvas").count() == 0  # no WebGL yet
    page.evaluate(f"() => {{ {PARKED}.tlwParked = true; }}")
    page.evaluate(RUN_NEW_CELL, "w3 = tlw.explore(log, height=500)\nw3")
    root = page.locator(".tlw-root").nth(2)
    root.scroll_into_view_if_needed(timeout=60_000)  # a frame draws in the viewport
    kernel = session.kernel
    kernel.wait_ready("w3", timeout=120)
    frame = root.locator("iframe.tlw-frame")
    assert frame.evaluate("e => e.tlwParked === true")  # the very frame that was parked, not reloaded
    assert frame.get_attribute("sandbox") == "allow-scripts"
    viewer = frame.content_frame
    nodes = kernel.value("w3._graph_info['graphs']['00-execution']")
    viewer.get_by_text(f"{nodes} nodes").first.wait_for(timeout=30_000)
    canvas = viewer.locator("webgl-renderer canvas").first
    assert canvas.evaluate("c => c.width * c.height") > 10_000
    # It fills its widget, as a frame made for it would.
    box, canvas_box = frame.bounding_box(), canvas.bounding_box()
    assert box is not None and canvas_box is not None and canvas_box["width"] > box["width"] * 0.8
    # Selections cross both ways: the adopting view's, not the parked frame's placeholder.
    target = kernel.value("log['transformer.h.4.mlp.c_fc'].label")
    select_in_viewer_ui(viewer, target, kernel.value(f"w3._source.index.id_of_label({target!r})"))
    kernel.wait_for("w3.selected_label", target, timeout=30)
    kernel.run("w3.select('transformer.h.9.attn.c_proj')")
    label = kernel.value("w3.selected_label")
    open_info_panel(viewer)
    row = viewer.locator("info-panel tr").filter(has=viewer.locator("td.key", has_text="torchlens_label"))
    expect_text(row.locator("td.value .one-line-text").first, label)
    root.screenshot(path=str(artifacts / "model-explorer-adopted.png"))
    assert session.page.console_errors == []


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.requests, "the recorder saw nothing at all"
    assert session.page.off_machine_requests() == []


def expect_text(locator: Any, text: str, timeout: float = 30_000) -> None:
    from playwright.sync_api import expect

    expect(locator).to_have_text(text, timeout=timeout)
