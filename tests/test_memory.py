"""The memory picture (torchlens_widgets.memory and the explorer's memory overlay, summary and peak):
every figure is torchlens' own (``torchlens.observe.memory_timeline_v2`` and ``estimated_liveness``,
``module_rollup``), read on real traces (GPT-2's architecture, 2 blocks 64 wide, random weights;
TwoPass); a capture torchlens refuses gives a typed error and leaves the graph as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torchlens import observe
from torchlens.errors import InvalidArgumentError

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP, TwoPass, small_gpt2
from tests.helpers.saved_pages import saved
from tests.helpers.traces import trace
from tests.helpers.view_requests import ask
from torchlens_widgets.memory import CAPTION, MemoryTimeline, memory_timeline
from torchlens_widgets.memory.timeline import module_address


@pytest.fixture(scope="module")
def log() -> Any:
    model, tokens = small_gpt2()
    return trace(model, tokens)


@pytest.fixture(scope="module")
def torchlens_answer(log: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """torchlens' own artifact and liveness estimate, asked directly."""
    artifact = observe.memory_timeline_v2(log)
    return artifact, observe.estimated_liveness(artifact)


def op_events(artifact: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for row in artifact["events"] if row["phase"] == "forward" and row["kind"] == "op"]


def torchlens_live_by_label(log: Any, artifact: dict[str, Any], liveness: dict[str, Any]) -> dict[str, int]:
    """Each op's live bytes in torchlens' series, keyed by the op torchlens' lookup gives its event label."""
    live = dict(liveness["series"])
    return {
        log[row["label"]].label: live[row["ordinal"]] for row in op_events(artifact) if row["ordinal"] in live
    }


# ----- the overlay --------------------------------------------------------------------------------


def test_the_memory_overlay_is_torchlens_liveness_above_its_persistent_baseline(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, liveness = torchlens_answer
    baseline = artifact["persistent_baseline_bytes"]
    assert baseline == liveness["persistent_baseline_bytes"] > 0
    w = tlw.explore(log, overlay="memory")
    assert w._overlay is not None
    expected = {
        label: live - baseline for label, live in torchlens_live_by_label(log, artifact, liveness).items()
    }
    drawn = w._overlay.values_by_label()
    assert drawn == {label: value for label, value in expected.items() if label in drawn}
    assert len(drawn) >= len(expected) - 1  # every op torchlens places on its series (inputs have no point)
    # Parameters dwarf the activations; above the baseline the activations' rise and fall is the range.
    assert min(drawn.values()) >= 0 and max(drawn.values()) == liveness["peak_bytes"] - baseline
    assert w.overlay_summary.startswith(f"memory on {len(drawn)} of ")
    assert "baseline (parameters, buffers) apart" in w.overlay_summary and CAPTION in w.overlay_summary
    assert "memory" in w._overlay_choices


def test_the_memory_overlay_colours_both_viewers_and_netron_boxes_take_the_peak_inside(log: Any) -> None:
    w = tlw.explore(log, overlay="memory")
    content, buffers = ask(w, "graph", {})
    assert content["result"]["nodeData"]["name"] == "memory (live B above baseline per op)"
    assert w._overlay is not None and w._overlay.node_data  # the app's panel names it so too
    assert {data["name"] for data in w._overlay.node_data.values()} == {
        "memory (live B above baseline per op)"
    }
    assert len(buffers) == 2
    by_label = w._overlay.values_by_label() if w._overlay else {}
    w.viewer = "netron"  # module granularity: module-call boxes drilled down
    content, _ = ask(w, "graph", {})
    overlay = content["result"]["overlay"]
    assert overlay["unit"] == "live B above baseline" and overlay["max"] == max(by_label.values())
    index = w._source.index
    ops = {name: value for name, value in overlay["values"].items() if index.label_of(name) in by_label}
    assert ops and all(value == by_label[index.label_of(name)] for name, value in ops.items())
    # A module-call box shows the largest live figure of the ops inside it (live bytes do not add up).
    boxes = {entry.node_id for entry in index if entry.module_address is not None}
    inside: dict[str, list[float]] = {}
    for entry in index:
        call = entry.graph
        while call and entry.node_id in ops:
            inside.setdefault(call, []).append(ops[entry.node_id])
            call = index.entry(call).graph if index.entry(call) is not None else ""
    assert inside and boxes >= set(inside)
    assert all(overlay["values"][box] == max(values) for box, values in inside.items())


def test_the_memory_overlay_is_allowed_under_the_public_profile(log: Any) -> None:
    w = tlw.explore(log, overlay="memory", privacy_profile="public")
    assert "memory" in w._overlay_choices
    assert w._overlay is not None and w._overlay.measured > 0


def test_a_rolled_multi_pass_layer_gets_no_memory_figure_and_each_pass_its_own() -> None:
    torch.manual_seed(0)
    two_pass = tl.trace(TwoPass(), torch.randn(2, 4))
    artifact = observe.memory_timeline_v2(two_pass)
    liveness = observe.estimated_liveness(artifact)
    w = tlw.explore(two_pass, overlay="memory")
    assert w._overlay is not None
    baseline = artifact["persistent_baseline_bytes"]
    expected = {k: v - baseline for k, v in torchlens_live_by_label(two_pass, artifact, liveness).items()}
    assert {"linear_1_1:1", "linear_1_1:2"} <= set(expected)
    assert w._overlay.values_by_label() == expected
    assert w._overlay.values_by_label("01-rolled") == {}  # one figure per pass: none for the layer
    assert w._overlay.coverage["omitted_rolled_varying"] == 2


# ----- the summary and the peak -------------------------------------------------------------------


def test_the_memory_summary_is_torchlens_peak_baseline_totals_and_absences(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, liveness = torchlens_answer
    (peak_event,) = [row for row in op_events(artifact) if row["ordinal"] == liveness["peak_ordinal"]]
    summary = tlw.explore(log).memory_summary
    assert summary["peak_bytes"] == liveness["peak_bytes"]
    assert summary["peak_ordinal"] == liveness["peak_ordinal"]
    assert summary["peak_label"] == log[peak_event["label"]].label
    assert summary["peak_module"] == module_address(peak_event["owner"]) == "lm_head"
    assert summary["persistent_baseline_bytes"] == artifact["persistent_baseline_bytes"]
    assert (
        summary["peak_above_baseline_bytes"] == liveness["peak_bytes"] - artifact["persistent_baseline_bytes"]
    )
    assert summary["category_totals"] == artifact["category_totals"]
    assert summary["absent"] == {**artifact["absent"], "parameter_gradient": "no backward pass was captured"}
    assert summary["excluded"] == liveness["excluded"]
    assert (summary["evidence"], summary["disclaimer"]) == ("estimated", artifact["disclaimer"])
    assert summary["line"].startswith("Memory peak ") and summary["peak_label"] in summary["line"]
    assert CAPTION in summary["line"] and "in lm_head" in summary["line"]
    assert json.loads(json.dumps(summary, allow_nan=False)) == summary  # valid JSON as it stands


def test_a_trace_with_a_backward_pass_says_torchlens_estimate_covers_the_forward_only() -> None:
    torch.manual_seed(0)
    options = tl.options.CaptureOptions(save_grads=True)
    model = TinyMLP()  # kept alive: torchlens reads parameter gradients through live references
    log = tl.trace(model, torch.randn(2, 4, requires_grad=True), capture=options)
    log[log.layer_list[-1].label].out.sum().backward()
    artifact = observe.memory_timeline_v2(log)
    summary = tlw.explore(log).memory_summary
    assert artifact["category_totals"]["op_gradient"] > 0  # torchlens' timeline holds the backward phase
    assert summary["backward_captured"] and summary["category_totals"] == artifact["category_totals"]
    assert artifact["category_totals"]["parameter_gradient"] > 0
    assert summary["absent"].get("parameter_gradient") == artifact["parameter_gradient_note"] is None
    assert summary["line"].endswith("; torchlens' estimate covers the forward pass only)")
    assert summary["excluded"]["backward_phases"] == "the v1 estimate is a forward-phase view"


def test_memory_peak_selects_torchlens_peak_op_in_both_viewers_and_returns_its_record(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, liveness = torchlens_answer
    (peak_event,) = [row for row in op_events(artifact) if row["ordinal"] == liveness["peak_ordinal"]]
    label = log[peak_event["label"]].label
    for viewer in ("model-explorer", "netron"):
        w = tlw.explore(log, viewer=viewer, granularity="op")
        record = w.memory_peak()
        assert record is not None and record.label == label
        assert w.selected_label == label and w.selected.label == label
        assert w.debug_status == w.memory_summary["line"]


def test_the_memory_line_is_in_the_status_line_only_while_memory_is_shown(log: Any) -> None:
    w = tlw.explore(log)
    assert w._memory_line == ""
    w.overlay = "memory"
    assert w._memory_line == w.memory_summary["line"]
    w.overlay = "time"
    assert w._memory_line == ""
    assert tlw.explore(log, overlay="memory")._memory_line.startswith("Memory peak ")


def test_save_html_keeps_the_memory_overlay(log: Any, tmp_path: Path) -> None:
    w = tlw.explore(log, overlay="memory")
    recording = saved(w.save_html(tmp_path / "memory.html", inspector=False))["recording"]
    assert "memory" in recording["graphs"] and recording["state"]["overlay"] == "memory"


# ----- per op and per module ----------------------------------------------------------------------


def test_the_tensors_alive_at_each_op_add_up_to_torchlens_live_bytes(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, liveness = torchlens_answer
    timeline = memory_timeline(log)
    live = torchlens_live_by_label(log, artifact, liveness)
    assert live
    for label, live_bytes in live.items():
        alive = timeline.alive_at(label)
        assert sum(tensor.bytes for tensor in alive) + timeline.persistent_bytes == live_bytes, label
        assert [tensor.bytes for tensor in alive] == sorted((tensor.bytes for tensor in alive), reverse=True)
    peak = timeline.peak_label
    assert peak is not None and peak in {tensor.label for tensor in timeline.alive_at(peak)}


def test_an_ops_module_rollup_is_torchlens_module_rollup(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, _ = torchlens_answer
    timeline = memory_timeline(log)
    for address in ("lm_head", "transformer.h.0.mlp", "transformer.h.1.attn.c_attn"):
        expected = observe.module_rollup(artifact, depth=address.count(".") + 1)["rows"][address]
        assert timeline.rollup(address) == expected
    assert timeline.rollup("") is None


def test_the_inspector_shows_torchlens_memory_of_the_selected_op_while_memory_is_on(
    log: Any, torchlens_answer: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    artifact, liveness = torchlens_answer
    timeline = memory_timeline(log)
    label = timeline.peak_label
    assert label is not None
    w = tlw.explore(log).select(label)
    assert "memory" not in ask(w, "inspect")[0]["result"]
    rev = w._inspect_rev
    w.overlay = "memory"
    assert w._inspect_rev == rev + 1  # every view asks the selection's facts again
    section = ask(w, "inspect")[0]["result"]["memory"]
    assert section["live_bytes"] == liveness["peak_bytes"]
    assert section["caption"] == CAPTION
    # The largest tensors torchlens counts alive then, each with its producer as drawn on screen.
    alive = timeline.alive_at(label)
    assert section["alive_count"] == len(alive) > len(section["alive"]) == 8
    assert [(row["label"], row["bytes"]) for row in section["alive"]] == [
        (t.label, t.bytes) for t in alive[:8]
    ]
    assert all(row["node_id"] == w._source.index.id_of_label(row["label"]) for row in section["alive"])
    # torchlens' rollup of the op's module (lm_head), its non-zero categories.
    rollup = observe.module_rollup(artifact, depth=1)["rows"]["lm_head"]
    assert section["module"] == "lm_head"
    assert {row["name"]: row["bytes"] for row in section["module_rollup"]} == {
        k: v for k, v in rollup.items() if v
    }
    # A link selects its op as a click does (the view sets selected_node to the row's node id).
    second = section["alive"][1]
    w.selected_node = second["node_id"]
    assert w.selected_label == second["label"]
    w.overlay = "time"
    assert w._inspect_rev == rev + 2 and "memory" not in ask(w, "inspect")[0]["result"]


# ----- refusals -----------------------------------------------------------------------------------


def sparse_recording() -> Any:
    torch.manual_seed(0)
    return tl.record(TinyMLP(), torch.randn(3, 4), default_op=True)


def test_a_sparse_recording_torchlens_refuses_gives_a_typed_error_naming_its_remedy() -> None:
    with pytest.raises(tlw.MemoryTimelineError) as refused:
        MemoryTimeline(sparse_recording())
    assert isinstance(refused.value, tlw.TorchlensWidgetsError)
    assert isinstance(refused.value, tlw.OverlayUnavailableError)
    assert isinstance(refused.value.__cause__, InvalidArgumentError)
    assert "Recording.to_trace()" in str(refused.value) and "Recording.to_trace()" in refused.value.remedy


def test_a_timeline_torchlens_refuses_leaves_the_graph_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.manual_seed(0)
    log = tl.trace(TinyMLP(), torch.randn(3, 4))
    w = tlw.explore(log, overlay="time")
    rev, summary = w._graph_rev, w.overlay_summary
    recording = sparse_recording()
    real = observe.memory_timeline_v2
    # torchlens' own refusal, as it answers a capture it cannot build a timeline for.
    monkeypatch.setattr(observe, "memory_timeline_v2", lambda _log: real(recording))
    with pytest.raises(tlw.MemoryTimelineError, match=r"Recording\.to_trace\(\)"):
        w.overlay = "memory"
    assert (w.overlay, w._graph_rev, w.overlay_summary) == ("time", rev, summary)
    assert "Recording.to_trace()" in w.notice and w._memory_line == ""
    with pytest.raises(tlw.MemoryTimelineError):
        w.memory_peak()
    assert w.selected_label == ""
