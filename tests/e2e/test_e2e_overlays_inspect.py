"""Overlays from the toolbar and click-to-inspect, in a real JupyterLab + Chromium, in both viewers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import (
    WIDGET_MODEL,
    JupyterServer,
    KernelAccess,
    alt_click_search_result,
    open_info_panel,
)
from tests.helpers.notebook import NotebookSession, RecordedPage, notebook_session
from tests.helpers.pixels import changed_fraction

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)).eval()
tokens = torch.randint(0, 1000, (1, 12))
with torch.no_grad():
    log = tl.trace(model, tokens)
    bare = tl.trace(model, torch.randint(0, 1000, (1, 12)),
                    capture=tl.options.CaptureOptions(structure_only=True))""",
    "w = tlw.explore(log, height=620)\nw",
]


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    @property
    def root(self) -> Any:
        return self.page.page.locator(".tlw-root").first

    @property
    def frame(self) -> Any:
        return self.page.page.locator("iframe.tlw-frame").first.content_frame

    @property
    def notebook(self) -> NotebookSession:
        """The shared helpers on this page (its one widget is widget 0)."""
        return NotebookSession(self.page, self.kernel)


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "overlays.ipynb", CELLS, widgets=1) as (page, kernel):
        session = Session(page, kernel)
        kernel.wait_ready("w", timeout=120)
        yield session


def choose_overlay(session: Session, overlay: str) -> None:
    session.page.page.locator(".tlw-overlay-select").first.select_option(overlay)


def test_toolbar_overlay_reaches_the_kernel_and_recolours_model_explorer(
    session: Session, artifacts: Any
) -> None:
    before = session.notebook.drawn_at(0)
    choose_overlay(session, "time")
    session.kernel.wait_for("w.overlay", "time", timeout=30)
    session.notebook.wait_redrawn(0, before)
    # Model Explorer loaded the values as node data: its side panel lists the provider.
    open_info_panel(session.frame)  # the widget starts the app's own panel closed
    expect(session.frame.get_by_text("time (ms per op)").first).to_be_visible(timeout=30_000)
    summary = session.kernel.value("w.overlay_summary")
    assert summary.startswith("time on ") and " of " in summary
    expect(session.root.locator(".tlw-overlay-info")).to_have_text(summary)
    session.root.screenshot(path=str(artifacts / "overlay-time-model-explorer.png"))


def test_model_explorer_switches_overlays_in_place(session: Session, artifacts: Any) -> None:
    """An overlay switch recolours the graph the app drew: the same frame element and the same canvas
    (no new app, no layout: zoom, expanded layers and selection stay), in the new overlay's colours,
    with the old overlay's node data gone from the app. Only the colours travel: the graph is not sent
    again (what a remote kernel's reader waits for), and they come with the change, unasked (no round
    trip page -> kernel -> page before the repaint)."""
    kernel, frame = session.kernel, session.frame
    iframe = session.page.page.locator("iframe.tlw-frame").first
    canvas = frame.locator("webgl-renderer canvas.main").first
    iframe.evaluate("frame => { frame.__tlwMark = 'before the switch'; }")
    canvas.evaluate("canvas => { canvas.__tlwMark = 'before the switch'; }")
    # Each switch to or from none: two measured overlays (time, flops) may colour the few collapsed layers
    # alike, so a switch between them may change no pixel the test can see (it did, once in a loaded run).
    switches = (
        ("", None, "time (ms per op)"),
        ("flops", "flops (forward FLOPs per op)", "time (ms per op)"),
        ("", None, "forward FLOPs"),
    )
    graph_bytes = kernel.value("len(w._source.payload.wire)")
    for overlay, provider, gone in switches:
        look = canvas.screenshot()
        drawn, sent = kernel.draws("w"), kernel.value("w.bytes_sent")
        colours_asked = "w._channel.answered.get('colours', 0)"
        asked = kernel.value(colours_asked)
        kernel.run(f"w.overlay = {overlay!r}")
        kernel.wait_drawn("w", since=drawn, timeout=120)
        sent = kernel.value("w.bytes_sent") - sent
        assert sent < graph_bytes, f"{overlay!r} sent {sent:,} bytes: the graph ({graph_bytes:,}) again"
        assert kernel.value(colours_asked) == asked, "the view asked for the colours it was sent"
        assert iframe.evaluate("frame => frame.__tlwMark") == "before the switch", "a new frame was made"
        assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the switch", "the app drew anew"
        assert changed_fraction(look, canvas.screenshot()) > 0.002, f"overlay {overlay!r} changed no pixel"
        if provider:
            expect(frame.get_by_text(provider).first).to_be_visible(timeout=30_000)
        expect(frame.get_by_text(gone)).to_have_count(0, timeout=30_000)
        session.root.screenshot(path=str(artifacts / f"overlay-in-place-{overlay or 'none'}.png"))
    kernel.run("w.overlay = 'time'")  # the state the next tests start from


# Inside the Model Explorer frame. Whether the node is shown: every layer around it expanded in the
# graph the renderer draws (a select opens them).
NODE_SHOWN = """nodeId => {
  const graph = window.me_test?.renderers?.['0']?.curModelGraph;
  const node = graph?.nodesById[nodeId];
  if (!node) return false;
  for (let parent = node.nsParentId; parent; parent = graph.nodesById[parent]?.nsParentId)
    if (!graph.nodesById[parent]?.expanded) return false;
  return true;
}"""

# Keeps the results object the renderer colours from and counts its full redraws (renderGraph: the
# app's route for new node data).
WATCH_RENDERER = """() => {
  const renderer = window.me_test.renderers['0'];
  window.tlwResults = renderer.webglRendererNdpService.curNodeDataProviderResults();
  if (!renderer.tlwRenderGraph) {
    renderer.tlwRenderGraph = renderer.renderGraph;
    renderer.renderGraph = function (...args) {
      window.tlwFullRedraws = (window.tlwFullRedraws || 0) + 1;
      return renderer.tlwRenderGraph.apply(this, args);
    };
  }
  const three = renderer.webglRendererThreejsService;
  if (!three.tlwRender) {
    three.tlwRender = three.render;
    three.render = function (...args) {
      window.tlwDraws = (window.tlwDraws || 0) + 1;
      return three.tlwRender.apply(this, args);
    };
  }
  window.tlwFullRedraws = 0;
  window.tlwDraws = 0;
}"""
RUN_NAMED = """name => window.me_test?.renderers?.['0']?.webglRendererNdpService
  ?.curNodeDataProviderRun()?.runName === name"""
IN_PLACE = """() => ({
  sameResults: window.me_test.renderers['0'].webglRendererNdpService.curNodeDataProviderResults()
    === window.tlwResults,
  fullRedraws: window.tlwFullRedraws,
  fewDraws: window.tlwDraws <= 2,
})"""


# Two overlays whose colours differ on the opened view whatever the trace measured: the addmm of
# transformer.h.1.attn.c_attn dark in one and light in the other, its two views the other way round.
# The view after the addmm is selected (a selected op wears the selection's colour, not the
# overlay's): the camera centres it, with the addmm just above it on screen.
OPENED_OVERLAYS = """w.add_overlay("addmm_dark", lambda r: 10.0 if r.layer_type == "addmm" else 1.0)
w.add_overlay("addmm_light", lambda r: 1.0 if r.layer_type == "addmm" else 10.0)
ops = log.modules['transformer.h.1.attn.c_attn']._op_labels()
addmm = next(label for label in ops if log[label].layer_type == "addmm")
opened_op = next(label for label in ops if f"{addmm}".split(":")[0] in log[label].parents)
opened_op = (opened_op, w._source.index.id_of_label(opened_op))"""


def test_model_explorer_restyles_an_opened_graph_in_place(session: Session, artifacts: Any) -> None:
    """On a graph opened to a selected op (layers expanded around it), an overlay switch restyles the
    drawing in place: the same frame and canvas, the results object the renderer holds filled anew
    (no full redraw of the scene, which costs a dozen frames of an opened graph), the canvas in the
    new overlay's colours, the info panel showing the new overlay's value for the selected op (the old
    overlay's row gone). Clearing the overlay and setting one from none are in place too."""
    kernel, page = session.kernel, session.page.page
    iframe, frame, canvas = _viewer_frame(page)
    iframe.evaluate("frame => { frame.__tlwMark = 'before the switch'; }")
    canvas.evaluate("canvas => { canvas.__tlwMark = 'before the switch'; }")
    assert kernel.value("w.overlay") == "time"
    # The earlier test's last switch (to "time") drawn: the pane's run is that overlay's.
    frame.wait_for_function(RUN_NAMED, arg="time (ms per op)", timeout=60_000)
    kernel.run(OPENED_OVERLAYS)
    label, node_id = kernel.value("opened_op")
    kernel.run(f"w.select({label!r})")
    frame.wait_for_function(NODE_SHOWN, arg=node_id, timeout=60_000)
    open_info_panel(session.frame)
    panel = session.frame.locator("info-panel")

    # The third switch goes back to an overlay shown before: the frame colours it with the app's
    # colouring it kept, and the canvas and the info panel must show it all the same.
    switches = (
        ("addmm_dark", "time (ms per op)"),
        ("addmm_light", "addmm_dark"),
        ("addmm_dark", "addmm_light"),
    )
    for overlay, gone in switches:
        provider = overlay
        page.wait_for_timeout(1_000)  # the select's animations done
        frame.evaluate(WATCH_RENDERER)
        look = canvas.screenshot()
        drawn = kernel.draws("w")
        kernel.run(f"w.overlay = {overlay!r}")
        kernel.wait_drawn("w", since=drawn, timeout=120)
        state = frame.evaluate(IN_PLACE)
        # One draw of the scene (the app's route, or its woken selection effect, drew it 8-12 times).
        assert state == {"sameResults": True, "fullRedraws": 0, "fewDraws": True}, f"{overlay!r}: {state}"
        assert iframe.evaluate("frame => frame.__tlwMark") == "before the switch", "a new frame was made"
        assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the switch", "the app drew anew"
        after = canvas.screenshot()
        assert changed_fraction(look, after) > 0.002, f"overlay {overlay!r} changed no pixel"
        # The info panel: the selected op's value under the new overlay, the old one's gone.
        value = kernel.value(f"w._colouring.overlay.values()[{node_id!r}]")
        row = panel.locator("tr", has_text=provider).first
        expect(row).to_be_visible(timeout=30_000)
        expect(row).to_contain_text(_js_number(value), timeout=30_000)
        expect(panel.get_by_text(gone)).to_have_count(0, timeout=30_000)
        session.root.screenshot(path=str(artifacts / f"overlay-opened-{overlay}.png"))

    # A highlight: the app's node styler redraws the scene through its move-into-place animation (22
    # draws of the opened graph), though nothing moves; the widget has it drawn still, a few draws.
    for nodes, change in (("[addmm]", "highlighting"), ("[]", "clearing the highlight")):
        frame.evaluate(WATCH_RENDERER)
        look = canvas.screenshot()
        kernel.run(f"w.highlight({nodes})")
        _wait_for_pixels_to_change(canvas, look, change)
        frame.evaluate(PAST_ANY_ANIMATION)
        draws = frame.evaluate("window.tlwDraws")
        assert draws <= 6, f"{change} drew the opened graph {draws} times"
        assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the switch", "the app drew anew"

    # Cleared, then set from none: in place too (the run removed, then one added, with no full redraw of
    # the scene and no animation), the node data gone from the canvas and the panel, then back.
    for overlay, provider, gone in (("", None, "addmm_light"), ("time", "time (ms per op)", None)):
        frame.evaluate(WATCH_RENDERER)
        look = canvas.screenshot()
        drawn = kernel.draws("w")
        kernel.run(f"w.overlay = {overlay!r}")
        kernel.wait_drawn("w", since=drawn, timeout=120)
        change = f"setting {overlay!r} from none" if overlay else "clearing the overlay"
        assert changed_fraction(look, canvas.screenshot()) > 0.002, f"{change} changed no pixel"
        frame.evaluate(PAST_ANY_ANIMATION)
        assert frame.evaluate("window.tlwFullRedraws") == 0, f"{change} redrew the whole scene"
        assert frame.evaluate("window.tlwDraws") <= 8, f"{change} drew the graph animated"
        if gone:
            expect(frame.get_by_text(gone)).to_have_count(0, timeout=30_000)
        if provider:
            value = kernel.value(f"w._colouring.overlay.values()[{node_id!r}]")
            row = panel.locator("tr", has_text=provider).first
            expect(row).to_be_visible(timeout=30_000)
            expect(row).to_contain_text(_js_number(value), timeout=30_000)
        assert iframe.evaluate("frame => frame.__tlwMark") == "before the switch"
        assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the switch", "the app drew anew"
    assert kernel.value("w.overlay") == "time"  # the state the next tests start from


# Twenty animation frames of the Model Explorer frame: longer than any of the app's 200 ms animations
# (twelve frames at 60 per second, fewer where a draw takes longer), counted in frames, not time.
PAST_ANY_ANIMATION = """() => new Promise((done) => {
  let frames = 0;
  const tick = () => (++frames >= 20 ? done() : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
})"""


def _viewer_frame(page: Any) -> tuple[Any, Any, Any]:
    """The widget's frame element, the Model Explorer document in it and its graph canvas."""
    iframe = page.locator("iframe.tlw-frame").first
    handle = iframe.element_handle()
    frame = handle.content_frame() if handle else None
    assert frame is not None
    return iframe, frame, frame.locator("webgl-renderer canvas.main").first


def _wait_for_pixels_to_change(canvas: Any, before: bytes, change: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while changed_fraction(before, canvas.screenshot()) <= 0.002:
        assert time.monotonic() < deadline, f"{change} changed no pixel in {timeout:.0f} s"
        time.sleep(0.2)


def _js_number(value: float) -> str:
    """How the app writes a value (JavaScript's String(number))."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# Two other runs of the model on the same tokens, one with block 1's c_attn moved, one with block 0's:
# baselines whose deltas differ on the opened view (before block 1's c_attn, zero in one and not in the
# other).
OTHER_RUNS = """import copy
def moved(address):
    other = copy.deepcopy(model)
    torch.manual_seed(1)
    with torch.no_grad():
        weight = other.get_submodule(address).weight
        weight.add_(torch.randn_like(weight) * 0.5)
        return tl.trace(other, tokens)
other_a, other_b = moved('transformer.h.1.attn.c_attn'), moved('transformer.h.0.attn.c_attn')"""


def test_a_baseline_on_an_opened_graph_is_set_switched_and_cleared_in_place(
    session: Session, artifacts: Any
) -> None:
    """On the graph the last test left opened to a selected op: a baseline set (its facts in the info
    panel), its delta shown, switched to another run (the delta's colours change) and cleared (the
    delta goes with it): each in the same frame and canvas, with no full redraw of the scene and no
    animation, the changes with colours read from the canvas' pixels."""
    kernel, page = session.kernel, session.page.page
    iframe, frame, canvas = _viewer_frame(page)
    label, node_id = kernel.value("opened_op")
    frame.wait_for_function(NODE_SHOWN, arg=node_id, timeout=60_000)
    kernel.run(OTHER_RUNS)
    open_info_panel(session.frame)
    panel = session.frame.locator("info-panel")
    diff_status = panel.locator("tr").filter(has=session.frame.locator("td.key", has_text="diff_status"))

    def changed_in_place(statement: str, change: str, colours: bool) -> None:
        page.wait_for_timeout(1_000)  # the last change's animations done
        frame.evaluate(WATCH_RENDERER)
        look = canvas.screenshot()
        drawn = kernel.draws("w")
        kernel.run(statement)
        kernel.wait_drawn("w", since=drawn, timeout=120)
        if colours:
            assert changed_fraction(look, canvas.screenshot()) > 0.002, f"{change} changed no pixel"
        frame.evaluate(PAST_ANY_ANIMATION)
        assert frame.evaluate("window.tlwFullRedraws") == 0, f"{change} redrew the whole scene"
        assert frame.evaluate("window.tlwDraws") <= 8, f"{change} drew the graph animated"
        assert iframe.evaluate("frame => frame.__tlwMark") == "before the switch", f"{change}: a new frame"
        assert canvas.evaluate("canvas => canvas.__tlwMark") == "before the switch", f"{change}: drawn anew"

    changed_in_place("w.baseline = other_a", "setting a baseline", colours=False)
    status = kernel.value(f"w._colouring.facts.by_label[{label!r}].status")
    expect(diff_status.locator("td.value .one-line-text").first).to_have_text(status, timeout=30_000)
    changed_in_place("w.overlay = 'delta'", "showing its delta", colours=True)
    changed_in_place("w.baseline = other_b", "switching the baseline", colours=True)
    session.root.screenshot(path=str(artifacts / "baseline-opened.png"))
    changed_in_place("w.baseline = None", "clearing the baseline", colours=True)
    assert kernel.value("w.overlay") == ""  # the delta went with its baseline
    expect(panel.locator("td.key", has_text="diff_")).to_have_count(0, timeout=30_000)
    changed_in_place("w.overlay = 'time'", "setting 'time' again", colours=True)  # where the next tests start


def test_click_fills_the_inspector(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    label = kernel.value("log.modules['transformer.h.1.mlp.c_fc'].output_ops[0]")
    node_id = kernel.value(f"w._source.index.id_of_label({label!r})")
    frame = session.frame
    alt_click_search_result(frame, f"^torchlens_label={label}$", node_id)
    kernel.wait_for("w.selected_label", label, timeout=30)
    inspector = session.root.locator(".tlw-inspector")
    expect(inspector).to_have_attribute("data-state", "node", timeout=30_000)
    expect(inspector).to_contain_text(label)
    # The facts and the value summary of the actual tensor are shown.
    expect(inspector).to_contain_text("256")  # c_fc's output width (4 x n_embd)
    assert inspector.locator("svg, canvas").count() >= 1  # histogram / heatmap drawn
    expression = inspector.locator("code").first.inner_text()
    assert kernel.value(f"({expression}).label == w.selected.label") is True
    session.root.screenshot(path=str(artifacts / "inspector-model-explorer.png"))


def test_refused_overlay_keeps_the_previous_one_and_says_why(session: Session) -> None:
    kernel = session.kernel
    choose_overlay(session, "grad_norm")  # no backward pass was run
    expect(session.root.locator(".tlw-notice")).to_contain_text("grad_norm", timeout=30_000)
    expect(session.root.locator(".tlw-notice")).to_contain_text("Remedy")
    assert kernel.value("w.overlay") == "time"
    expect(session.root.locator(".tlw-overlay-select")).to_have_value("time")


def test_value_overlay_on_a_value_free_capture_is_refused_in_python(session: Session) -> None:
    kernel = session.kernel
    kernel.run(
        "b = tlw.explore(bare)\n"
        "try:\n    b.overlay = 'magnitude'\n    refused = None\n"
        "except tlw.OverlayUnavailableError as error:\n    refused = str(error)"
    )
    refused = kernel.value("refused")
    assert refused and "Remedy" in refused
    assert kernel.value("b.overlay") == ""


def test_overlay_recolours_netron_and_a_module_box_is_inspected_as_a_module(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    drawn = kernel.draws("w")
    kernel.run("w.viewer = 'netron'")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    legend = session.frame.locator("#tlw-overlay-legend")
    expect(legend).to_contain_text("time", timeout=30_000)
    # Our host colours the boxes that have a value (Netron itself has no node data).
    expect(session.frame.locator("g.node[data-tlw-overlay='value']").first).to_be_attached(timeout=30_000)
    session.root.screenshot(path=str(artifacts / "overlay-time-netron.png"))
    # The switch recolours the graph Netron drew, in place: the same frame element and the same SVG
    # boxes (no open, no layout: zoom and drill-down stay), in the new overlay's colours.
    iframe = session.page.page.locator("iframe.tlw-frame").first
    iframe.evaluate("frame => { frame.__tlwMark = 'before the switch'; }")
    boxes = session.frame.locator("g.node[data-tlw-overlay='value']")
    fills = boxes.evaluate_all(
        "gs => gs.map(g => { g.__tlwMark = 1; return g.querySelector('path').style.fill; })"
    )
    drawn, sent = kernel.draws("w"), kernel.value("w.bytes_sent")
    choose_overlay(session, "bytes")
    kernel.wait_for("w.overlay", "bytes", timeout=30)
    kernel.wait_drawn("w", since=drawn, timeout=120)
    sent, model_bytes = kernel.value("w.bytes_sent") - sent, kernel.value("len(w._source.artifact.wire[0])")
    assert sent < model_bytes, f"the switch sent {sent:,} bytes: the model ({model_bytes:,}) again"
    expect(legend).to_contain_text("activation B", timeout=30_000)
    assert iframe.evaluate("frame => frame.__tlwMark") == "before the switch"
    kept = boxes.evaluate_all("gs => gs.filter(g => g.__tlwMark === 1).length")
    assert kept == len(fills) > 0, f"{kept} of {len(fills)} boxes survived the switch: Netron laid out again"
    after = boxes.evaluate_all("gs => gs.map(g => g.querySelector('path').style.fill)")
    assert after != fills  # recoloured
    kernel.run("w.select('transformer')")  # a module-call box: the inspector shows the module
    assert kernel.value("w.selected is log.modules['transformer']") is True
    inspector = session.root.locator(".tlw-inspector")
    expect(inspector).to_have_attribute("data-kind", "module", timeout=30_000)
    expect(inspector).to_contain_text("GPT2Model")
    session.root.screenshot(path=str(artifacts / "inspector-netron-module.png"))


RAPID_CHANGES = """overlays = ['bytes', 'time', 'flops', 'magnitude']
addresses = ('transformer.h.0.mlp.c_fc', 'transformer.h.1.attn')
labels = [log.modules[address].output_ops[0] for address in addresses]
for i in range(100):
    w.overlay = overlays[i % 4]
    w.viewer = ('netron', 'model-explorer')[i % 2]
    w.select(labels[i % 2])"""


# Sends the widget's kernel a request it answers at once, with an error (no such method), on the channel
# every view's requests take, and waits for the answer and then two animation frames of the page (in
# which a view handles what came before it). Returns the kernel's error text.
ROUND_TRIP = f"""async (modelId) => {{
  const model = await ({WIDGET_MODEL})(modelId);
  const channel = "tlw-test-round-trip";
  const answered = new Promise((resolve) => {{
    const listener = (content) => {{
      if (content?.channel !== channel) return;
      model.off("msg:custom", listener);
      resolve(content.error);
    }};
    model.on("msg:custom", listener);
  }});
  model.send({{ type: "request", channel, id: 1, method: "round-trip", params: {{}} }});
  const error = await answered;
  for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
  return error;
}}"""


def test_a_hundred_rapid_changes_end_in_the_last_state(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    drawn = kernel.draws("w")
    kernel.run(RAPID_CHANGES)
    # The last iteration: overlay "magnitude", Model Explorer, the second label selected.
    label = kernel.value("labels[1]")
    assert (kernel.value("w.overlay"), kernel.value("w.viewer")) == ("magnitude", "model-explorer")
    status = session.root.locator(".tlw-status")
    expect(status).to_contain_text(f"selected {label}", timeout=120_000)
    kernel.wait_drawn("w", since=drawn, timeout=120)
    # One frame, the last viewer's, coloured by the last overlay, with the last selection shown.
    assert session.root.locator("iframe.tlw-frame").count() == 1
    frame = session.frame
    expect(frame.locator("webgl-renderer canvas").first).to_be_attached(timeout=60_000)
    expect(frame.get_by_text("magnitude (mean abs per op)").first).to_be_visible(timeout=30_000)
    expect(session.root.locator(".tlw-overlay-select")).to_have_value("magnitude")
    expect(session.root.locator(".tlw-overlay-info")).to_have_text(kernel.value("w.overlay_summary"))
    open_info_panel(frame)  # the widget starts the app's own panel closed
    row = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="torchlens_label"))
    expect(row.locator("td.value .one-line-text").first).to_have_text(label, timeout=30_000)
    expect(session.root.locator(".tlw-inspector")).to_contain_text(label)
    # No late answer to an earlier change redraws anything afterwards: a round trip on the widget's
    # channel comes back after every answer and update the kernel sent before it, and a view that took
    # one would have started to draw (its status "loading") or drawn again by then.
    first, draws = session.notebook.drawn_at(0), kernel.draws("w")
    answer = session.page.page.evaluate(ROUND_TRIP, kernel.value("w.model_id"))
    assert "unknown request" in answer, answer
    assert status.get_attribute("data-state") == "ready", status.inner_text()
    assert (session.notebook.drawn_at(0), kernel.draws("w")) == (first, draws)
    session.root.screenshot(path=str(artifacts / "rapid-changes-final.png"))


# The frame on the page is a new one (an old one is marked before the change) and has not drawn yet.
NEW_FRAME_DRAWING = """() => {
  const frame = document.querySelector('iframe.tlw-frame');
  return !!frame && !frame.tlwOld && document.querySelector('.tlw-status').dataset.state === 'loading';
}"""


def test_a_selection_made_while_model_explorer_draws_is_shown_once_drawn(session: Session) -> None:
    kernel = session.kernel
    label = kernel.value("log.modules['transformer.h.0.mlp.c_fc'].output_ops[0]")
    page = session.page.page
    # A viewer switched back draws a new Model Explorer frame (an overlay or a baseline is set in place).
    drawn = kernel.draws("w")
    kernel.run("w.viewer = 'netron'")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    before = session.notebook.drawn_at(0)
    page.evaluate("document.querySelector('iframe.tlw-frame').tlwOld = true")
    kernel.run("w.viewer = 'model-explorer'")
    page.wait_for_function(NEW_FRAME_DRAWING, timeout=60_000)
    kernel.run(f"w.select({label!r})")  # the app is booting or laying out meanwhile
    session.notebook.wait_redrawn(0, before, viewer="model-explorer")
    frame = session.frame
    open_info_panel(frame)
    row = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="torchlens_label"))
    expect(row.locator("td.value .one-line-text").first).to_have_text(label)


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.off_machine_requests() == []
