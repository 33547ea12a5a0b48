"""torchlens' debugger on the graph (#10) in a real JupyterLab + Chromium, on GPT-2 from a config.

Each toolbar button, inspector button and Python call moves the viewer to torchlens' answer (the
viewer's own side panel names the node) in Model Explorer, in the split-pane diff and in Netron;
highlighted nodes are drawn apart from the rest in both viewers; a custom overlay recolours both.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, open_info_panel, press
from tests.helpers.notebook import WidgetFramesSession, notebook_session
from tests.helpers.pixels import colour_pixels, wait_for_colour

CELLS = [
    """import copy, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
model = GPT2LMHeadModel(config).eval()
tokens = torch.randint(0, 1000, (1, 12))
tuned, broken = copy.deepcopy(model), copy.deepcopy(model)
with torch.no_grad():
    weight = tuned.transformer.h[1].mlp.c_fc.weight
    weight.add_(0.05 * torch.randn_like(weight))
    broken.transformer.h[0].attn.c_proj.weight[0, 0] = float("inf")
    log_a = tl.trace(model, tokens)
    log_b = tl.trace(tuned, tokens)
    log_inf = tl.trace(broken, tokens)
try:
    tl.trace(broken, tokens, capture=tl.options.CaptureOptions(raise_on_nan=True))
except Exception as error:
    crash = error
partial = tl.partial.from_failed_capture(crash)
diverged = tl.debug.first_divergence(log_a, log_b)["op"]
nonfinite = log_inf.find_nan().op.label
elsewhere = log_b.modules["transformer.h.0.attn"].output_ops[0]
c_fc_out = log_b.modules["transformer.h.1.mlp.c_fc"].output_ops[0]

def activation_std(record):
    out = record.out
    return out.float().std() if isinstance(out, torch.Tensor) and out.numel() > 1 else None""",
    "d = tlw.diff(log_a, log_b, height=520)\nd",
    "w = tlw.explore(log_b, baseline=log_a, height=900)\nw",
    "n = tlw.explore(log_inf, height=520)\nn",
    'p = tlw.explore(partial, viewer="netron", height=480)\np',
]

# The highlight colour (Model Explorer node style, Netron border): #D81B60, within a rendering margin.
HIGHLIGHT = (0xD8, 0x1B, 0x60)


Session = WidgetFramesSession


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "debug.ipynb", CELLS, widgets=4) as (page, kernel):
        yield Session(page, kernel)


def model_explorer_names(frame: Any, label: str, panes: int = 1) -> None:
    """Model Explorer's own info panel (one per pane) names ``label`` as the selected node."""
    frame.owner.scroll_into_view_if_needed()  # the app updates its panel in animation frames: on screen
    rows = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="torchlens_label"))
    for pane in range(panes):
        expect(rows.nth(pane).locator("td.value .one-line-text").first).to_have_text(label, timeout=60_000)


def netron_names(frame: Any, node: str) -> None:
    """Netron's node sidebar is open on ``node`` (its name: the torchlens label or module address)."""
    frame.owner.scroll_into_view_if_needed()  # Netron reveals a node in animation frames: on screen
    expect(frame.locator("#sidebar-content")).to_contain_text(node, timeout=60_000)


def highlight_pixels(locator: Any) -> int:
    """How many pixels of the element's screenshot are the highlight colour."""
    return colour_pixels(locator, HIGHLIGHT)


def wait_for_highlight(session: Session, index: int, more_than: int) -> int:
    """Polls the frame's pixels until more than ``more_than`` have the highlight colour (after a draw)."""
    return wait_for_colour(session.page.page, session.frame_element(index), HIGHLIGHT, more_than)


def wait_drawn(session: Session, widget: str, index: int, since: int, viewer: str | None = None) -> None:
    """Waits until ``widget`` (view ``index``, looked at first: a frame draws only on screen) painted a
    graph after its draw count was ``since``, in ``viewer`` if given (a trait change before a viewer
    switch may redraw the old viewer first)."""
    session.root(index).scroll_into_view_if_needed()
    deadline = time.monotonic() + 180
    while True:
        session.kernel.wait_drawn(widget, since, timeout=max(1, deadline - time.monotonic()))
        shown = session.root(index).evaluate("el => el.parentElement.dataset.viewer")
        if viewer is None or shown == viewer:
            return
        assert time.monotonic() < deadline, f"{widget} drew in {shown}, not {viewer}"
        since = session.kernel.draws(widget)


def show_in(session: Session, widget: str, index: int, viewer: str) -> None:
    """Shows ``widget`` in ``viewer`` without an overlay or a highlight (what each test starts from)."""
    kernel = session.kernel
    kernel.run(f"{widget}.highlight(None)")  # marked on the graph drawn: cleared there, no draw
    if kernel.value(f"({widget}.viewer, {widget}.overlay)") == (viewer, ""):
        return
    before = kernel.draws(widget)
    kernel.run(f"{widget}.overlay = ''\n{widget}.viewer = {viewer!r}")
    wait_drawn(session, widget, index, before, viewer=viewer)


# The custom overlay of the tests that use it, added once per kernel.
ADD_OVERLAY = """if 'activation std' not in w._overlay_choices:
    w.add_overlay('activation std', activation_std)"""


# ----- the split-pane diff (Model Explorer) ----------------------------------------------------------


def test_diff_button_selects_the_first_divergence_in_both_panes(session: Session, artifacts: Path) -> None:
    kernel = session.kernel
    kernel.wait_ready("d")
    # The widest cell JupyterLab gives (for the README's picture): no file browser beside it.
    session.page.page.evaluate("window.jupyterapp.shell.collapseLeft()")
    root = session.root(0)
    # Only the question a diff can answer; no first non-finite (both captures are finite).
    expect(root.locator(".tlw-debug button")).to_have_count(1)
    press(root.get_by_role("button", name="First divergence"))
    label = kernel.value("diverged")
    kernel.wait_for("d.selected_labels", (label, label), timeout=60)
    status = kernel.value("d.debug_status")
    assert status.startswith(f"First divergence at {label}") and "max |a - b|" in status
    expect(root.locator(".tlw-status")).to_contain_text(f"First divergence at {label}", timeout=30_000)
    model_explorer_names(session.frame(0), label, panes=2)
    inspectors = root.locator(".tlw-inspector")
    expect(inspectors.nth(0)).to_contain_text(label, timeout=30_000)
    expect(inspectors.nth(1)).to_contain_text(label, timeout=30_000)
    # The picture of the answer (both panes on the op, the status line saying what diverged) goes with the
    # test's artifacts; docs/first-divergence.png in the README is a copy of it, refreshed by hand.
    session.page.page.wait_for_timeout(1_500)  # the panes' centring animation
    root.screenshot(path=str(artifacts / "first-divergence.png"))


def test_diff_python_call_moves_both_panes(session: Session) -> None:
    kernel = session.kernel
    kernel.run("d.select(elsewhere)")
    elsewhere = kernel.value("elsewhere")
    expect(session.root(0).locator(".tlw-status")).to_contain_text(f"selected {elsewhere}", timeout=30_000)
    # Both panes show it before the next question, as a reader sees them: the app follows pane a's
    # selection in pane b on its own, and a second selection while it does can leave b behind.
    model_explorer_names(session.frame(0), elsewhere, panes=2)
    kernel.run("pair = d.first_divergence()")
    label = kernel.value("diverged")
    assert kernel.value("pair[0] is log_a[diverged] and pair[1] is log_b[diverged]") is True
    assert kernel.value("d.selected_labels") == (label, label)
    model_explorer_names(session.frame(0), label, panes=2)


# ----- an explorer in Model Explorer ------------------------------------------------------------------


def test_explorer_with_a_baseline_answers_from_its_button_and_from_python(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_ready("w")
    root, frame = session.root(1), session.frame(1)
    label = kernel.value("diverged")
    expect(root.locator(".tlw-debug button")).to_have_text(["First divergence"])
    press(root.get_by_role("button", name="First divergence"))
    kernel.wait_for("w.selected_label", label, timeout=60)
    model_explorer_names(frame, label)
    expect(root.locator(".tlw-inspector")).to_contain_text(label, timeout=30_000)
    expect(root.locator(".tlw-status")).to_contain_text(f"First divergence at {label}", timeout=30_000)

    kernel.run("w.select(elsewhere)")
    model_explorer_names(frame, kernel.value("elsewhere"))
    kernel.run("pair = w.first_divergence()")
    assert kernel.value("pair[0] is log_b[diverged] and pair[1] is log_a[diverged]") is True
    model_explorer_names(frame, label)


def test_first_nonfinite_answers_from_its_button_and_from_python(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_ready("n")
    root, frame = session.root(2), session.frame(2)
    label = kernel.value("nonfinite")
    # No baseline here: the capture's two non-finite questions only.
    expect(root.locator(".tlw-debug button")).to_have_text(["First non-finite", "Why non-finite?"])
    press(root.get_by_role("button", name="First non-finite"))
    kernel.wait_for("n.selected_label", label, timeout=60)
    model_explorer_names(frame, label)
    expect(root.locator(".tlw-status")).to_contain_text(kernel.value("n.debug_status")[:40], timeout=30_000)
    # The inspector shows the op's non-finite values.
    expect(root.locator(".tlw-inspector")).to_contain_text("NaN / +Inf / -Inf", timeout=30_000)

    kernel.run("n.select('transformer.h.1.mlp')")
    kernel.run("record = n.first_nonfinite()")
    assert kernel.value("record is log_inf[nonfinite]") is True
    model_explorer_names(frame, label)


def test_lineage_button_highlights_in_model_explorer_and_keeps_the_selection(
    session: Session, artifacts: Path
) -> None:
    kernel = session.kernel
    index, root = 1, session.root(1)
    # c_fc's output: its module's input reshape, two ops up, is drawn in the same expanded group and
    # is no neighbour of the selection (Model Explorer paints a selection's inputs and outputs itself).
    show_in(session, "w", index, "model-explorer")
    kernel.run("w.select(c_fc_out)")
    root.scroll_into_view_if_needed()  # an off-screen explorer is paused, and redraws on screen
    kernel.wait_ready("w", timeout=180)
    model_explorer_names(session.frame(index), kernel.value("c_fc_out"))
    session.page.page.wait_for_timeout(1_500)  # the centring animation
    before = highlight_pixels(session.frame_element(index))
    drawn = kernel.draws("w")
    session.frame_element(index).evaluate("frame => { frame.tlwBeforeLineage = true; }")
    press(root.locator(".tlw-inspector").get_by_role("button", name="upstream", exact=True))
    kernel.wait_for("bool(w.highlighted)", True, timeout=60)
    highlighted = kernel.value("w.highlighted")
    upstream = kernel.value(
        "[node[0] for node in tl.debug.lineage(log_b, c_fc_out, direction='ancestors').nodes]"
    )
    assert set(highlighted) <= set(upstream) and kernel.value("c_fc_out") in highlighted
    expect(root.locator(".tlw-status")).to_contain_text(
        f"Upstream of {kernel.value('c_fc_out')}", timeout=30_000
    )
    # Marked on the graph drawn (the app's node styler), in place: the same frame, no new draw, the
    # selection kept.
    after = wait_for_highlight(session, index, more_than=before + 200)
    assert session.frame_element(index).evaluate("frame => frame.tlwBeforeLineage") is True
    assert kernel.draws("w") == drawn
    model_explorer_names(session.frame(index), kernel.value("c_fc_out"))
    session.root(index).screenshot(path=str(artifacts / "lineage-model-explorer.png"))
    assert after > before + 200, f"no highlight drawn ({before} -> {after} highlight-coloured pixels)"


def test_custom_overlay_recolours_model_explorer(session: Session, artifacts: Path) -> None:
    kernel = session.kernel
    index, root = 1, session.root(1)
    show_in(session, "w", index, "model-explorer")
    kernel.run(ADD_OVERLAY)
    select = root.locator(".tlw-overlay-select")
    expect(select.locator("option[value='activation std']")).to_have_count(1, timeout=30_000)
    drawn = kernel.draws("w")
    select.select_option("activation std")
    kernel.wait_for("w.overlay", "activation std", timeout=60)
    wait_drawn(session, "w", index, drawn)
    summary = kernel.value("w.overlay_summary")
    expect(root.locator(".tlw-overlay-info")).to_have_text(summary)
    root.screenshot(path=str(artifacts / "custom-overlay-model-explorer.png"))
    # Model Explorer loaded the values as node data: its side panel lists the provider under the name
    # given to add_overlay (not torchlens' "callable:activation_std"). The panel starts closed: open it
    # as a user does.
    open_info_panel(session.frame(index))
    expect(session.frame(index).get_by_text("activation std", exact=True).first).to_be_visible(timeout=60_000)
    expect(session.frame(index).get_by_text("callable:activation_std")).to_have_count(0)


# ----- Netron -----------------------------------------------------------------------------------------


def test_netron_answers_from_the_buttons_and_from_python(session: Session) -> None:
    kernel = session.kernel
    for widget, index in (("w", 1), ("n", 2)):
        show_in(session, widget, index, "netron")
    w_root, n_root = session.root(1), session.root(2)
    kernel.run("w.select(elsewhere)")
    press(w_root.get_by_role("button", name="First divergence"))
    kernel.wait_for("w.selected_label", kernel.value("diverged"), timeout=60)
    netron_names(session.frame(1), kernel.value("w.selected_node"))
    expect(w_root.locator(".tlw-inspector")).to_contain_text(kernel.value("diverged"), timeout=30_000)

    kernel.run("w.select(elsewhere)")
    kernel.run("w.first_divergence()")
    netron_names(session.frame(1), kernel.value("w.selected_node"))
    expect(session.frame(1).locator("#toolbar-path")).to_contain_text("mlp", timeout=30_000)

    press(n_root.get_by_role("button", name="First non-finite"))
    kernel.wait_for("n.selected_label", kernel.value("nonfinite"), timeout=60)
    netron_names(session.frame(2), kernel.value("n.selected_node"))
    kernel.run("n.select('transformer.h.1')\nn.first_nonfinite()")
    netron_names(session.frame(2), kernel.value("n.selected_node"))


def test_netron_marks_highlighted_boxes_apart_and_again_after_a_redraw(
    session: Session, artifacts: Path
) -> None:
    kernel = session.kernel
    index, root, frame = 1, session.root(1), session.frame(1)
    show_in(session, "w", index, "netron")
    kernel.run("w.select(diverged)")
    netron_names(frame, kernel.value("w.selected_node"))
    marked = frame.locator("g.node.tlw-highlight")
    expect(marked).to_have_count(0)
    press(root.locator(".tlw-inspector").get_by_role("button", name="downstream", exact=True))
    kernel.wait_for("bool(w.highlighted)", True, timeout=60)
    expect(root.locator(".tlw-status")).to_contain_text("Downstream of", timeout=30_000)
    expect(marked.first).to_be_attached(timeout=30_000)
    # Only the highlighted boxes, and they look different: a dashed magenta border.
    names = set(kernel.value("w._highlight_nodes"))
    # (a selected box shows the selection's red: the selection stays visible)
    border = frame.locator("g.node.tlw-highlight:not(.select)").first.locator(":scope > path.node-border")
    assert border.evaluate("p => getComputedStyle(p).strokeDasharray") not in ("", "none")
    plain = frame.locator("g.graph-node:not(.tlw-highlight):not(.select) > path.node-border").first
    assert plain.evaluate("p => getComputedStyle(p).strokeDasharray") in ("", "none")
    assert marked.count() <= len(names)
    root.screenshot(path=str(artifacts / "lineage-netron.png"))
    # Another granularity redraws every box: the highlight is drawn again.
    drawn = kernel.draws("w")
    kernel.run("w.granularity = 'op'")
    wait_drawn(session, "w", index, drawn)
    expect(marked.first).to_be_attached(timeout=30_000)
    drawn = kernel.draws("w")
    kernel.run("w.highlight(None)\nw.granularity = 'module'")
    wait_drawn(session, "w", index, drawn)
    expect(marked).to_have_count(0)


def test_custom_overlay_recolours_netron(session: Session) -> None:
    kernel = session.kernel
    index, root, frame = 1, session.root(1), session.frame(1)
    show_in(session, "w", index, "netron")
    kernel.run(ADD_OVERLAY)
    select = root.locator(".tlw-overlay-select")
    expect(select.locator("option[value='activation std']")).to_have_count(1, timeout=30_000)
    drawn = kernel.draws("w")
    select.select_option("activation std")
    kernel.wait_for("w.overlay", "activation std", timeout=60)
    wait_drawn(session, "w", index, drawn)
    expect(frame.locator("#tlw-overlay-legend")).to_contain_text("activation std", timeout=30_000)
    expect(frame.locator("g.node[data-tlw-overlay='value']").first).to_be_attached(timeout=30_000)


def test_partial_capture_shows_the_exception_on_the_failing_op(session: Session, artifacts: Path) -> None:
    kernel = session.kernel
    kernel.wait_ready("p")
    root, frame = session.root(3), session.frame(3)
    failing = kernel.value("p.selected_label")
    assert failing and kernel.value("p.highlighted") == [failing]
    box = root.locator(".tlw-insp-exception")
    expect(box).to_be_visible(timeout=30_000)
    expect(box).to_contain_text(kernel.value("type(crash).__name__"))
    assert box.get_attribute("role") == "alert"
    expect(root.locator(".tlw-status")).to_contain_text(
        f"The forward pass failed at {failing}", timeout=30_000
    )
    netron_names(frame, kernel.value("p.selected_node"))
    expect(frame.locator("g.node.tlw-highlight").first).to_be_attached(timeout=30_000)
    root.screenshot(path=str(artifacts / "partial-capture-netron.png"))


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.off_machine_requests() == []
