"""tlw.diff() split panes and explore(baseline=...) (the graph and the inspector) in a real JupyterLab +
Chromium, on GPT-2-tiny."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, open_info_panel
from tests.helpers.notebook import NotebookSession as Session
from tests.helpers.notebook import notebook_session

CELLS = [
    """import copy, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
model = GPT2LMHeadModel(config).eval()
tokens = torch.randint(0, 1000, (1, 12))
tuned = copy.deepcopy(model)
with torch.no_grad():
    weight = tuned.transformer.h[1].mlp.c_fc.weight
    weight.add_(0.05 * torch.randn_like(weight))
    log_a = tl.trace(model, tokens)
    log_b = tl.trace(tuned, tokens)""",
    "d = tlw.diff(log_a, log_b, height=600)\nd",
    "w = tlw.explore(log_b, height=520)\nw",
    # The run a user diffs: one weight went NaN, and the NaN spreads to every op after it.
    """broken = copy.deepcopy(model)
with torch.no_grad():
    broken.transformer.h[1].mlp.c_fc.weight[0, 0] = float("nan")
    log_nan = tl.trace(broken, tokens)
n = tlw.diff(log_a, log_nan, height=600)
n""",
    'wn = tlw.explore(log_b, viewer="netron", height=520)\nwn',
]


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "diff.ipynb", CELLS, widgets=4) as (page, kernel):
        yield Session(page, kernel)


def test_split_pane_renders_two_panes_coloured_by_delta(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    kernel.wait_ready("d")
    counts = kernel.value("d.summary['counts']")
    assert counts["changed"] > 0 and counts["zero"] > 0
    frame = session.frame(0)
    # Model Explorer's own renderers: one per pane.
    frame.locator("webgl-renderer").nth(1).wait_for(timeout=30_000)
    assert frame.locator("webgl-renderer").count() == 2
    expect(session.root(0).locator(".tlw-status")).to_contain_text(f"changed {counts['changed']}")
    session.root(0).screenshot(path=str(artifacts / "diff-split-pane.png"))


def test_click_on_a_largest_delta_selects_the_pair(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    top = kernel.value("d.summary['top'][0]")
    session.root(0).locator(".tlw-chip").first.click()
    kernel.wait_for("d.selected_node", top["node_id"], timeout=30)
    assert kernel.value("d.selected_labels") == (top["label"], top["label"])
    assert kernel.value(f"d.selected[0] is log_a[{top['label']!r}]") is True
    assert kernel.value(f"d.selected[1] is log_b[{top['label']!r}]") is True
    # Both captures' values are inspected side by side, and what changed between them.
    inspectors = session.root(0).locator(".tlw-inspector")
    expect(inspectors.nth(0)).to_have_attribute("data-state", "node", timeout=30_000)
    expect(inspectors.nth(1)).to_have_attribute("data-state", "node", timeout=30_000)
    expect(inspectors.nth(2)).to_have_attribute("data-kind", "difference", timeout=30_000)
    expect(inspectors.nth(2)).to_contain_text("max |Δ|")
    assert inspectors.nth(2).locator("svg").count() >= 1  # the histogram of b - a
    session.root(0).screenshot(path=str(artifacts / "diff-selected.png"))


def test_click_in_a_pane_reaches_the_kernel_as_a_pair(session: Session) -> None:
    kernel = session.kernel
    label = kernel.value("log_a.modules['transformer.h.0.attn'].output_ops[0]")
    node_id = kernel.value(f"d.payload.a.index.id_of_label({label!r})")
    frame = session.frame(0)
    search = frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').first
    search.fill(f"^id={node_id.replace('|', chr(92) + '|')}$")
    result = frame.locator(f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node').first
    result.wait_for(timeout=30_000)
    result.click(modifiers=["Alt"])
    kernel.wait_for("d.selected_node", node_id, timeout=30)
    assert kernel.value("[r.label for r in d.selected]") == [label, label]


def test_baseline_set_from_the_kernel_recolours_an_open_explorer(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    root = session.root(1)
    root.scroll_into_view_if_needed()  # Model Explorer's frame redraws only in the viewport
    drawn = kernel.draws("w")
    # Marked before the change: a baseline's facts are set on the graph drawn, in the same frame.
    root.locator("iframe.tlw-frame").evaluate("frame => { frame.tlwBeforeBaseline = true; }")
    kernel.run("w.baseline = log_a\nw.overlay = 'delta'")
    expect(root.locator(".tlw-status")).to_contain_text("vs ", timeout=60_000)
    expect(root.locator(".tlw-overlay-select")).to_have_value("delta")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    assert root.locator("iframe.tlw-frame").evaluate("frame => !!frame.tlwBeforeBaseline"), "a new frame drew"
    frame = session.frame(1)
    open_info_panel(frame)  # its NODE DATA PROVIDERS section names the overlay
    expect(frame.get_by_text(kernel.value("w._overlay.provider")).first).to_be_visible(timeout=30_000)
    kernel.run("w.select(log_b.modules['transformer.h.1.mlp.c_fc'].output_ops[0])")
    open_info_panel(frame)  # the widget starts the app's own panel closed
    row = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="diff_status"))
    expect(row.locator("td.value .one-line-text").first).to_have_text("changed", timeout=30_000)
    root.screenshot(path=str(artifacts / "baseline-delta.png"))
    # Cleared, in the same frame too: its facts leave every node, also those of a layer the app lays
    # out afterwards (its layout worker kept them: there they are left as values the app skips).
    drawn = kernel.draws("w")
    kernel.run("w.baseline = None")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    assert root.locator("iframe.tlw-frame").evaluate("frame => !!frame.tlwBeforeBaseline"), "a new frame drew"
    expect(root.locator(".tlw-overlay-select")).to_have_value("")
    label = kernel.value("log_b.modules['transformer.h.0.attn.c_attn'].output_ops[0]")
    kernel.run(f"w.select({label!r})")
    open_info_panel(frame)
    labels = frame.locator("info-panel tr").filter(has=frame.locator("td.key", has_text="torchlens_label"))
    expect(labels.locator("td.value .one-line-text").first).to_have_text(label, timeout=30_000)
    expect(frame.locator("info-panel td.key", has_text="diff_")).to_have_count(0)


def test_self_comparison_is_refused(session: Session) -> None:
    kernel = session.kernel
    kernel.run(
        "w.baseline = log_a\n"  # the baseline the refusal must leave in place
        "try:\n    w.baseline = log_b\n    refusal = ''\nexcept tlw.SelfComparisonError as error:\n"
        "    refusal = str(error)"
    )
    assert "SAME capture" in kernel.value("refusal")
    assert kernel.value("w.baseline is log_a") is True


def test_a_diff_of_a_run_that_went_nan_draws_and_says_nan(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    kernel.wait_ready("n")
    root = session.root(2)
    root.scroll_into_view_if_needed()  # Model Explorer's frame draws only in the viewport
    expect(root.locator(".tlw-status")).to_have_attribute("data-state", "ready", timeout=120_000)
    assert session.frame(2).locator("webgl-renderer").count() == 2
    expect(root.locator(".tlw-status")).to_contain_text("non-finite")
    first = kernel.value("n.summary['top'][0]")
    assert first["value"] is None and first["text"] == "NaN"
    chip = root.locator(".tlw-chip").first
    expect(chip).to_have_text(f"{first['label']} NaN")
    chip.click()
    kernel.wait_for("n.selected_node", first["node_id"], timeout=30)
    difference = root.locator(".tlw-inspector").nth(2)
    expect(difference).to_have_attribute("data-kind", "difference", timeout=30_000)
    expect(difference).to_contain_text("NaN")
    root.screenshot(path=str(artifacts / "diff-nan.png"))


def test_baseline_set_and_cleared_in_netron_keeps_the_graph_drawn(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    kernel.wait_ready("wn")
    root = session.root(3)
    root.scroll_into_view_if_needed()
    frame = session.frame(3)
    expect(frame.locator("g.node").first).to_be_visible(timeout=30_000)
    drawn = kernel.draws("wn")
    # Marked before the change: the companion with the baseline's rows is attached to the graph on
    # screen, so the frame and its drawn SVG are the ones from before.
    root.locator("iframe.tlw-frame").evaluate("frame => { frame.tlwBeforeBaseline = true; }")
    frame.locator("#canvas").evaluate("svg => { svg.tlwBeforeBaseline = true; }")
    kernel.run("wn.baseline = log_a")
    kernel.wait_drawn("wn", since=drawn, timeout=120)
    assert root.locator("iframe.tlw-frame").evaluate("frame => !!frame.tlwBeforeBaseline"), "a new frame drew"
    assert frame.locator("#canvas").evaluate("svg => !!svg.tlwBeforeBaseline"), "the graph was opened again"
    expect(root.locator(".tlw-status")).to_contain_text("vs ", timeout=30_000)
    # The next selection's sidebar carries the baseline's rows beside torchlens' own.
    kernel.run("wn.select(log_b.modules['transformer.h.1.mlp.c_fc'].output_ops[0])")
    sidebar = frame.locator("#sidebar-content")
    expect(sidebar.get_by_role("textbox", name="diff status")).to_be_visible(timeout=30_000)
    expect(sidebar).to_contain_text("changed")
    root.screenshot(path=str(artifacts / "netron-baseline.png"))
    # Cleared, the companion keeps torchlens' own rows: attached in place as well.
    drawn = kernel.draws("wn")
    frame.locator("#canvas").evaluate("svg => { svg.tlwBeforeClear = true; }")
    kernel.run("wn.baseline = None")
    kernel.wait_drawn("wn", since=drawn, timeout=120)
    assert frame.locator("#canvas").evaluate("svg => !!svg.tlwBeforeClear"), "the graph was opened again"
    expect(root.locator(".tlw-status")).not_to_contain_text("vs ")


@pytest.mark.parametrize(("name", "index"), [("w", 1), ("wn", 3)], ids=["model-explorer", "netron"])
def test_the_inspector_follows_the_baseline_at_once(session: Session, name: str, index: int) -> None:
    kernel = session.kernel
    # On screen first: the earlier tests' changes may have left this view waiting to be scrolled to
    # (a frame draws only in the viewport), and "ready" comes only with that draw.
    root = session.root(index)
    root.scroll_into_view_if_needed()
    kernel.wait_ready(name, timeout=120)
    label = kernel.value("log_b.modules['transformer.h.1.mlp.c_fc'].output_ops[0]")
    kernel.run(f"{name}.baseline = None\n{name}.select({label!r})")
    inspector = root.locator(".tlw-inspector")
    expect(inspector).to_have_attribute("data-state", "node", timeout=30_000)
    section = inspector.locator(".tlw-insp-baseline")
    expect(section).to_have_count(0)
    # Set from the kernel, with the node selected: the inspector shows it with no other click.
    kernel.run(f"{name}.baseline = log_a")
    expect(section.locator("h4").first).to_have_text(
        f"vs {kernel.value('log_a.trace_label')}", timeout=30_000
    )
    expect(section).to_have_attribute("data-status", "changed")
    expect(section.locator(".tlw-insp-value canvas")).to_have_count(1)  # the heatmap of the difference
    # Changed: the run that went NaN here, said as such.
    kernel.run(f"{name}.baseline = log_nan")
    expect(section.locator("h4").first).to_have_text(
        f"vs {kernel.value('log_nan.trace_label')}", timeout=30_000
    )
    expect(section.locator(".tlw-insp-facts")).to_contain_text("NaN")
    # Cleared: the section goes, the node's own facts stay.
    kernel.run(f"{name}.baseline = None")
    expect(section).to_have_count(0, timeout=30_000)
    expect(inspector).to_have_attribute("data-state", "node")


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.off_machine_requests() == []


def test_no_console_errors(session: Session) -> None:
    # Before, the NaN diff's chips threw in toPrecision and its graph request failed.
    assert session.page.console_errors == [], session.page.console_errors
