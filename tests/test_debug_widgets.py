"""The debug API on the widgets (w.first_divergence, d.first_divergence, w.first_nonfinite, w.highlight,
w.lineage, w.add_overlay, depth/show_buffers, partial captures, the ``debug`` request): each answer is
torchlens' own on a real trace, and the widget's traits (selection, highlight, status, toolbar) follow it."""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.options import CaptureOptions

import torchlens_widgets as tlw
from tests.helpers.models import CrashAfterGPT2, Nest, small_gpt2, with_inf
from tests.helpers.traces import failed_capture, trace
from tests.helpers.view_requests import ask


def reply_collections(widget: Any, panes: int = 1) -> list[dict[str, Any]]:
    """The Model Explorer graph reply's collections (one per pane)."""
    content, buffers = ask(widget, "graph", {})
    assert content["ok"], content
    return [json.loads(gzip.decompress(buffer)) for buffer in buffers[:panes]]


def styled(collection: dict[str, Any]) -> bool:
    return any("style" in node for graph in collection["graphs"] for node in graph["nodes"])


@pytest.fixture(scope="module")
def gpt2() -> tuple[nn.Module, torch.Tensor]:
    return small_gpt2()


@pytest.fixture(scope="module")
def log(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    return trace(*gpt2)


@pytest.fixture(scope="module")
def rounded(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    """The same GPT-2 with its weights rounded to bfloat16 (and computed in float32)."""
    model, tokens = gpt2
    return trace(copy.deepcopy(model).to(torch.bfloat16).to(torch.float32), tokens)


@pytest.fixture(scope="module")
def broken(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    model, tokens = gpt2
    return trace(with_inf(model), tokens)


# ----- first divergence --------------------------------------------------------------------------


def test_explorer_first_divergence_selects_torchlens_answer(log: Any, rounded: Any) -> None:
    w = tlw.explore(log, baseline=rounded)
    assert w._debug_questions == ["first_divergence"]
    row = tl.debug.first_divergence(log, rounded)
    assert row is not None
    pair = w.first_divergence()
    assert pair == (log[row["op"]], rounded[row["op"]])
    assert w.selected_label == row["op"]
    assert w.debug_status.startswith(f"First divergence at {row['op']}")
    assert f"max |a - b| = {row['max_abs']:.3g}" in w.debug_status


def test_explorer_without_a_baseline_has_no_divergence_to_find(log: Any) -> None:
    w = tlw.explore(log)
    assert "first_divergence" not in w._debug_questions
    with pytest.raises(tlw.DebugQuestionError, match=r"Remedy: set w\.baseline"):
        w.first_divergence()
    content, _ = ask(w, "debug", {"question": "first_divergence"})
    assert content["ok"] is False and content["error"].startswith("DebugQuestionError: ")


def test_setting_a_baseline_offers_the_divergence_button(log: Any, rounded: Any) -> None:
    w = tlw.explore(log)
    w.baseline = rounded
    assert w._debug_questions == ["first_divergence"]
    w.baseline = None
    assert w._debug_questions == []


def test_diff_first_divergence_selects_it_in_both_panes(log: Any, rounded: Any) -> None:
    d = tlw.diff(log, rounded)
    assert d._debug_questions == ["first_divergence"]
    row = tl.debug.first_divergence(log, rounded)
    assert row is not None
    assert d.first_divergence() == (log[row["op"]], rounded[row["op"]])
    assert d.selected_labels == (row["op"], row["op"])
    assert d.debug_status.startswith(f"First divergence at {row['op']}")
    d.select("transformer.wte")
    content, _ = ask(d, "debug", {"question": "first_divergence"})
    assert content["ok"], content
    assert content["result"] == {"status": d.debug_status, "labels": [row["op"]]}
    assert d.selected_labels == (row["op"], row["op"])


def test_diff_of_identical_runs_says_nothing_diverged(gpt2: tuple[nn.Module, torch.Tensor], log: Any) -> None:
    d = tlw.diff(log, trace(*gpt2))
    d.select("transformer.wte")
    before = d.selected_node
    assert d.first_divergence() is None
    assert d.selected_node == before  # nothing to move to
    assert d.debug_status.startswith("No op diverged beyond rtol=1e-05, atol=1e-08")


def test_a_diff_refuses_a_question_it_cannot_answer(log: Any, rounded: Any) -> None:
    content, _ = ask(tlw.diff(log, rounded), "debug", {"question": "first_nonfinite"})
    assert content["ok"] is False and "tlw.explore(d.log_a).first_nonfinite()" in content["error"]


# ----- first non-finite op -----------------------------------------------------------------------


def test_first_nonfinite_selects_torchlens_op(broken: Any) -> None:
    w = tlw.explore(broken)
    assert w._debug_questions == []  # asked after the first graph reply: the graph does not wait
    content, _ = ask(w, "graph", {})
    assert content["ok"], content
    assert w._debug_questions == ["first_nonfinite", "explain_nonfinite"]  # the toolbar offers the button now
    found = broken.find_nan()
    assert w.first_nonfinite() is found.op
    assert w.selected_label == found.op.label
    assert w.debug_status == found.message
    w.select("transformer.wte")
    content, _ = ask(w, "debug", {"question": "first_nonfinite"})
    assert content["ok"], content
    assert content["result"] == {"status": found.message, "labels": [found.op.label]}
    assert w.selected_label == found.op.label


def test_asking_before_the_graph_is_drawn_offers_the_button_too(broken: Any) -> None:
    w = tlw.explore(broken)
    assert w.first_nonfinite() is broken.find_nan().op
    assert w._debug_questions == ["first_nonfinite", "explain_nonfinite"]


def test_first_nonfinite_on_a_finite_capture_moves_nothing(log: Any) -> None:
    w = tlw.explore(log)
    ask(w, "graph", {})
    assert "first_nonfinite" not in w._debug_questions
    w.select("transformer.wte")
    before = w.selected_label
    assert w.first_nonfinite() is None
    assert w.selected_label == before
    assert w.debug_status == log.find_nan().message


# ----- highlight and lineage ---------------------------------------------------------------------


def test_highlight_marks_nodes_on_the_graph_drawn_never_in_the_graph_reply(log: Any) -> None:
    w = tlw.explore(log)
    mlp_output = str(log.modules["transformer.h.1.mlp"].output_ops[0])
    rev = w._graph_rev
    assert w.highlight(["transformer.h.1.mlp", "transformer.wte"]) is w
    assert w._graph_rev == rev  # the browser marks the graph it drew: nothing is sent again
    wte = str(log.modules["transformer.wte"].output_ops[0])
    assert w.highlighted == [mlp_output, wte]
    ids = [w._source.index.id_of_label(label) for label in w.highlighted]
    assert w._highlight_nodes == ids
    assert not styled(reply_collections(w)[0])
    w.highlight(None)
    assert w.highlighted == [] and w._highlight_nodes == []


def test_an_unknown_name_is_refused_and_the_highlight_stays(log: Any) -> None:
    w = tlw.explore(log).highlight("transformer.wte")
    with pytest.raises(tlw.NodeNotFoundError, match="no_such_op"):
        w.highlight(["transformer.h.0", "no_such_op"])
    assert w.highlighted == [str(log.modules["transformer.wte"].output_ops[0])]


def test_the_highlight_follows_the_viewer_and_granularity(log: Any) -> None:
    w = tlw.explore(log)
    inner = str(log.modules["transformer.h.1.mlp"].output_ops[0])
    w.highlight(inner)
    w.viewer = "netron"  # module granularity: the op, and each module box around it
    assert w.highlighted == [inner]
    index = w._source.index
    node = index.id_of_label(inner)
    assert node is not None and w._highlight_nodes[0] == node
    boxes = w._highlight_nodes[1:]
    assert boxes and all(index.is_module(box) for box in boxes)
    assert {index.label_of(box) for box in boxes} >= {"transformer.h.1", "transformer.h.1.mlp"}
    w.granularity = "op"
    assert w._highlight_nodes == [w._source.index.id_of_label(inner)]
    w.viewer = "model-explorer"
    assert w._highlight_nodes == [w._source.index.id_of_label(inner)]


@pytest.mark.parametrize(("direction", "walk"), [("upstream", "ancestors"), ("downstream", "descendants")])
def test_lineage_of_the_selection_is_torchlens_lineage(log: Any, direction: str, walk: str) -> None:
    w = tlw.explore(log)
    start = str(log.modules["transformer.h.0.attn"].output_ops[0])
    w.select(start)
    expected = [node[0] for node in tl.debug.lineage(log, start, direction=walk).nodes]
    assert w.lineage(direction=direction) == expected
    drawn = [label for label in expected if w._source.index.id_of_label(label) is not None]
    assert w.highlighted == drawn
    assert w.selected_label == start  # the selection stays where it was
    assert w.debug_status.startswith(f"{direction.capitalize()} of {start}: {len(expected)} ops")
    content, _ = ask(w, "debug", {"question": "lineage", "direction": direction})
    assert content["ok"], content
    assert content["result"] == {"status": w.debug_status, "labels": expected}


def test_lineage_needs_a_node(log: Any) -> None:
    w = tlw.explore(log)
    with pytest.raises(tlw.DebugQuestionError, match="nothing is selected"):
        w.lineage()
    with pytest.raises(ValueError, match="'upstream', 'downstream'"):
        w.lineage("transformer.wte", direction="sideways")
    content, _ = ask(w, "debug", {"question": "lineage"})
    assert content["ok"] is False and "nothing is selected" in content["error"]
    content, _ = ask(w, "debug", {"question": "why"})
    assert content["ok"] is False and "Unknown debug question 'why'" in content["error"]


def test_diff_lineage_and_highlight_mark_both_panes(log: Any, rounded: Any) -> None:
    d = tlw.diff(log, rounded)
    start = str(log.modules["transformer.h.1"].output_ops[0])
    expected = [node[0] for node in tl.debug.lineage(log, start, direction="ancestors").nodes]
    assert d.lineage(start) == expected
    assert set(d.highlighted) <= set(expected)
    # Both panes draw the same node ids: the browser marks them on both, the replies stay bare.
    assert d._highlight_nodes and not any(styled(pane) for pane in reply_collections(d, panes=2))
    d.highlight(None)
    assert d._highlight_nodes == []


# ----- Netron options ----------------------------------------------------------------------------


def test_netron_depth_and_buffers_reach_torchlens_exporter(log: Any) -> None:
    shallow = tlw.explore(log, viewer="netron")
    deep = tlw.explore(log, viewer="netron", depth=2, show_buffers="always")
    assert (deep.depth, deep.show_buffers) == (2, "always")
    assert deep._source.artifact.root_node_count > shallow._source.artifact.root_node_count
    rev = shallow._graph_rev
    shallow.depth = 2  # live: Netron redraws at the new depth
    assert shallow._graph_rev > rev
    assert (
        shallow._source.artifact.root_node_count
        == tlw.explore(log, viewer="netron", depth=2)._source.artifact.root_node_count
    )


@pytest.mark.parametrize(("option", "value"), [("depth", 0), ("depth", "2"), ("show_buffers", "some")])
def test_netron_options_refused_name_the_choices(tiny_log: Any, option: str, value: Any) -> None:
    with pytest.raises(ValueError, match="'never', 'meaningful', 'always'"):
        tlw.explore(tiny_log, viewer="netron", **{option: value})
    w = tlw.explore(tiny_log, viewer="netron")
    with pytest.raises(tlw.NetronOptionError, match="int >= 1"):
        setattr(w, option, value)
    assert (w.depth, w.show_buffers) == (1, "meaningful")


# ----- partial captures --------------------------------------------------------------------------


def test_a_capture_stopped_at_a_nonfinite_value_is_drawn_and_its_failing_op_shown(
    gpt2: tuple[nn.Module, torch.Tensor],
) -> None:
    model, tokens = gpt2
    with pytest.warns(Warning):
        error = failed_capture(with_inf(model), tokens, capture=CaptureOptions(raise_on_nan=True))
    partial = tl.partial.from_failed_capture(error)
    w = tlw.explore(partial)
    failing = f"{error.fields['layer']}:1"  # type: ignore[attr-defined]
    assert w.log is partial.trace
    assert w.selected_label == failing and w.highlighted == [failing]
    assert w.debug_status.startswith(f"The forward pass failed at {failing}: {type(error).__name__}: ")
    content, _ = ask(w, "inspect", {})
    assert content["ok"], content
    assert content["result"]["exception"].startswith(f"{type(error).__name__}: ")
    w.select("transformer.wte")  # any other op shows no exception
    content, _ = ask(w, "inspect", {})
    assert "exception" not in content["result"]


def test_another_crash_is_refused_saying_where_it_failed(gpt2: tuple[nn.Module, torch.Tensor]) -> None:
    model, tokens = gpt2
    with pytest.warns(Warning):
        error = failed_capture(CrashAfterGPT2(model.transformer), tokens)
    with pytest.raises(tlw.PartialCaptureNotDrawableError, match="Remedy"):
        tlw.explore(tl.partial.from_failed_capture(error))


def test_netron_marks_a_module_box_by_its_name(log: Any) -> None:
    torch.manual_seed(0)
    w = tlw.explore(tl.trace(Nest(), torch.randn(2, 4)), viewer="netron")
    w.highlight("inner")
    assert w._highlight_nodes and w._source.index.is_module(w._highlight_nodes[0])
    assert w._source.index.label_of(w._highlight_nodes[0]) == "inner"
