"""The debug answers (torchlens_widgets._debug) equal torchlens' own, on real traces of GPT-2 built from
a transformers config (2 blocks, 64 wide, random weights) and of small hand-written models."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.options import CaptureOptions

from tests.helpers.models import CrashAfterGPT2, small_gpt2, with_inf
from tests.helpers.traces import failed_capture, trace
from torchlens_widgets._debug import (
    drawn_labels,
    first_divergence,
    first_nonfinite,
    highlight_labels,
    is_partial_capture,
    lineage,
    partial_capture,
)
from torchlens_widgets._errors import (
    NetronOptionError,
    NodeNotFoundError,
    PartialCaptureNotDrawableError,
)
from torchlens_widgets._trace import require_trace
from torchlens_widgets.graph_model import model_explorer_payload
from torchlens_widgets.viewers.netron import check_netron_options, netron_artifact


@pytest.fixture(scope="module")
def gpt2() -> tuple[nn.Module, torch.Tensor]:
    return small_gpt2()


@pytest.fixture(scope="module")
def log(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    return trace(*gpt2)


@pytest.fixture(scope="module")
def index(log: Any) -> Any:
    return model_explorer_payload(log).index


@pytest.fixture(scope="module")
def perturbed(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    """The same GPT-2 with the second block's MLP input projection nudged."""
    model, tokens = gpt2
    nudged = copy.deepcopy(model)
    with torch.no_grad():
        generator = torch.Generator().manual_seed(1)
        weight = nudged.transformer.h[1].mlp.c_fc.weight
        weight.add_(0.01 * torch.randn(weight.shape, generator=generator))
    return trace(nudged, tokens)


# ----- first divergence --------------------------------------------------------------------------


def test_first_divergence_is_torchlens_answer(log: Any, perturbed: Any) -> None:
    row = tl.debug.first_divergence(log, perturbed)
    assert row is not None and row["allclose"] is False
    answer = first_divergence(log, perturbed)
    assert answer.label == row["op"]
    assert answer.row == row
    assert answer.pair == (log[row["op"]], perturbed[row["op"]])
    assert answer.record_a.label == answer.record_b.label == row["op"]
    # The nudge is in block 1's MLP: nothing before it moved.
    assert "h.1.mlp" in str(answer.record_a.module)
    assert answer.status.startswith(f"First divergence at {row['op']} ")
    assert f"max |a - b| = {row['max_abs']:.3g}" in answer.status
    assert "rtol=1e-05, atol=1e-08" in answer.status


def test_tolerances_reach_torchlens(log: Any, perturbed: Any) -> None:
    row = tl.debug.first_divergence(log, perturbed)
    assert row is not None
    loose = first_divergence(log, perturbed, rtol=0.0, atol=row["max_abs"] * 2)
    expected = tl.debug.first_divergence(log, perturbed, rtol=0.0, atol=row["max_abs"] * 2)
    assert loose.label == (expected["op"] if expected else None)
    assert loose.label != row["op"]
    assert f"atol={row['max_abs'] * 2:g}" in loose.status


def test_same_model_twice_does_not_diverge(gpt2: tuple[nn.Module, torch.Tensor], log: Any) -> None:
    again = trace(*gpt2)
    assert tl.debug.first_divergence(log, again) is None
    answer = first_divergence(log, again)
    assert answer.label is None and answer.pair is None and answer.record_a is None
    _rows, attrs = tl.debug.compare_rows(log, again)
    assert answer.status.startswith(
        f"No op diverged beyond rtol=1e-05, atol=1e-08 ({attrs['matched']} ops compared equal)"
    )
    # The token ids and positions are integers, which torchlens does not compare: said, not hidden.
    assert f"; {attrs['activation_unavailable']} ops could not be compared" in answer.status


def test_bfloat16_rounded_weights_diverge_at_the_first_op_that_reads_them(
    gpt2: tuple[nn.Module, torch.Tensor], log: Any
) -> None:
    model, tokens = gpt2
    rounded = copy.deepcopy(model).to(torch.bfloat16).to(torch.float32)
    other = trace(rounded, tokens)
    row = tl.debug.first_divergence(log, other)
    assert row is not None
    assert first_divergence(log, other).label == row["op"]


def test_a_bfloat16_run_is_not_comparable_and_the_status_says_so(
    gpt2: tuple[nn.Module, torch.Tensor], log: Any
) -> None:
    """torchlens compares only outputs of equal dtype: a bfloat16 run answers "nothing diverged", and
    the status must not let that read as "equal"."""
    model, tokens = gpt2
    half = trace(copy.deepcopy(model).to(torch.bfloat16), tokens)
    assert tl.debug.first_divergence(log, half) is None
    _rows, attrs = tl.debug.compare_rows(log, half)
    answer = first_divergence(log, half)
    assert answer.pair is None
    assert attrs["matched"] == 0
    assert answer.status.startswith(
        f"Nothing to compare: none of the {attrs['activation_unavailable']} ops shared by both runs"
    )
    assert "shape-or-dtype-mismatch" in answer.status
    assert "Remedy: compare two runs of the same dtype." in answer.status


class DoublePlusOne(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2 + 1


class DoubleMinusOne(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2 - 1


def test_an_op_that_runs_on_one_side_only_gives_none_on_the_other() -> None:
    x = torch.randn(3, 4)
    a, b = tl.trace(DoublePlusOne(), x), tl.trace(DoubleMinusOne(), x)
    row = tl.debug.first_divergence(a, b)
    assert row is not None and row["status"] in ("only-a", "only-b")
    answer = first_divergence(a, b)
    assert answer.label == row["op"]
    lacking = 0 if row["status"] == "only-b" else 1
    assert answer.pair is not None and answer.pair[lacking] is None
    assert answer.pair[1 - lacking] is not None
    side = "A" if row["status"] == "only-a" else "B"
    assert answer.status.endswith(f"it ran in {side} only.")


# ----- first non-finite op -----------------------------------------------------------------------


def test_first_nonfinite_is_torchlens_answer(gpt2: tuple[nn.Module, torch.Tensor]) -> None:
    model, tokens = gpt2
    broken = trace(with_inf(model), tokens)
    answer = first_nonfinite(broken)
    found = broken.find_nan()
    assert found.found
    assert answer.record is found.op
    assert answer.label == found.op.label
    assert answer.status == found.message
    # The op log.first_nonfinite() names (its layer, pass 1).
    named = re.search(r"in layer (\S+) ", broken.first_nonfinite())
    assert named is not None and answer.label == f"{named.group(1)}:1"
    assert "h.0.attn" in str(answer.record.module)


def test_a_finite_capture_has_no_nonfinite_op(log: Any) -> None:
    answer = first_nonfinite(log)
    assert answer.label is None and answer.record is None
    assert not log.find_nan().found
    assert answer.status


# ----- lineage and highlights --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "torchlens_direction"), [("upstream", "ancestors"), ("downstream", "descendants")]
)
def test_lineage_is_torchlens_lineage(log: Any, index: Any, direction: str, torchlens_direction: str) -> None:
    label = str(log.modules["transformer.h.1.mlp"].output_ops[0])
    expected = [node[0] for node in tl.debug.lineage(log, label, direction=torchlens_direction).nodes]
    labels = lineage(log, index, label, direction)
    assert labels == expected
    assert labels[0] == label and len(labels) > 3
    # A module address or the node's id give the same walk.
    assert lineage(log, index, "transformer.h.1.mlp", direction) == expected
    node_id = index.id_of_label(label)
    assert node_id is not None and lineage(log, index, node_id, direction) == expected


def test_lineage_refusals(log: Any, index: Any) -> None:
    with pytest.raises(ValueError, match="'upstream', 'downstream'"):
        lineage(log, index, "transformer.h.0", "ancestors")
    with pytest.raises(NodeNotFoundError, match="No node named 'no_such_op'"):
        lineage(log, index, "no_such_op")


def test_lineage_ends_in_the_input_and_its_drawn_labels_are_in_the_graph(log: Any, index: Any) -> None:
    labels = lineage(log, index, log.output_layers[0], "upstream")
    assert any(label.startswith("input_") for label in labels)
    drawn = drawn_labels(index, labels)
    assert drawn and all(index.id_of_label(label) for label in drawn)
    assert drawn == [label for label in labels if label in set(index.labels_by_id().values())]


def test_highlight_names_resolve_like_select(log: Any, index: Any) -> None:
    op = log.modules["transformer.h.0.attn"].output_ops[0]
    other = log.modules["transformer.h.1.mlp"].output_ops[0]
    node_id = index.id_of_label(str(other))
    labels = highlight_labels(
        log, index, ["transformer.h.0.attn", str(op), node_id, str(other).split(":")[0]]
    )
    assert labels == [str(op), str(other)]  # duplicates collapse, order is kept
    assert highlight_labels(log, index, str(op)) == [str(op)]
    assert highlight_labels(log, index, None) == []
    assert highlight_labels(log, index, []) == []
    with pytest.raises(NodeNotFoundError, match=r"No node named 'transformer\.h\.9'"):
        highlight_labels(log, index, [str(op), "transformer.h.9"])


def test_highlights_in_netron_name_module_boxes(log: Any) -> None:
    netron_index = netron_artifact(log, "module").index
    labels = highlight_labels(log, netron_index, ["transformer.h.0", "transformer.h.1.mlp"])
    assert labels == ["transformer.h.0", "transformer.h.1.mlp"]
    op_index = netron_artifact(log, "op").index
    op = str(log.modules["transformer.h.0.attn"].output_ops[0])
    assert highlight_labels(log, op_index, [op]) == [op]


# ----- Netron options ----------------------------------------------------------------------------


def test_netron_options_torchlens_accepts() -> None:
    for depth in (1, 3):
        for show in ("never", "meaningful", "always"):
            assert check_netron_options(depth, show) == (depth, show)


@pytest.mark.parametrize(
    ("depth", "show"), [(0, "never"), (1.5, "never"), (True, "never"), (1, "sometimes"), (1, True)]
)
def test_netron_options_torchlens_refuses_name_the_choices(depth: Any, show: Any) -> None:
    with pytest.raises(NetronOptionError, match="'never', 'meaningful', 'always'") as refused:
        check_netron_options(depth, show)
    assert isinstance(refused.value, ValueError)
    assert "int >= 1" in str(refused.value)


def test_netron_depth_and_buffers_change_what_torchlens_draws(log: Any, tmp_path: Any) -> None:
    """What the lead forwards: tl.export.netron's depth and show_buffers change the drawn graph."""
    import json

    def root_nodes(**options: Any) -> int:
        out = tl.export.netron(log, tmp_path / "m.json", **options)
        assert out is not None
        return len(json.loads(out.read_text())["graph"]["node"])

    assert root_nodes(depth=2) > root_nodes(depth=1)


# ----- partial captures --------------------------------------------------------------------------


def test_a_crash_torchlens_did_not_finalize_is_refused_with_what_is_known(
    gpt2: tuple[nn.Module, torch.Tensor],
) -> None:
    model, tokens = gpt2
    with pytest.warns(Warning):
        error = failed_capture(CrashAfterGPT2(model.transformer), tokens)
    assert isinstance(error, RuntimeError)
    partial = tl.partial.from_failed_capture(error)
    assert is_partial_capture(partial) and not is_partial_capture(partial.trace)
    assert len(partial.raw_layers) > 100  # GPT-2 ran...
    # ...but torchlens' exporter draws none of it: this is why it cannot be shown.
    assert tl.export.to_model_explorer_dict(partial.trace)["graphs"][0]["nodes"] == []
    facts = tl.report.explain(partial, format="json")
    with pytest.raises(PartialCaptureNotDrawableError) as refused:
        partial_capture(partial)
    message = str(refused.value)
    assert f"RuntimeError: {error}" in message
    assert str(facts["last_completed_op_label"]) in message
    assert "torchlens.report.explain(partial)" in message


def test_a_capture_stopped_at_a_nonfinite_output_is_drawn_up_to_it(
    gpt2: tuple[nn.Module, torch.Tensor],
) -> None:
    model, tokens = gpt2
    with pytest.warns(Warning):
        error = failed_capture(with_inf(model), tokens, capture=CaptureOptions(raise_on_nan=True))
    partial = tl.partial.from_failed_capture(error)
    shown = partial_capture(partial)
    assert shown.trace is partial.trace
    assert require_trace(shown.trace) is shown.trace  # explore() takes it as it takes any Trace
    # The op torchlens stopped at, in its own words.
    stopped_at = error.fields["layer"]  # type: ignore[attr-defined]
    assert shown.failing_label == f"{stopped_at}:1"
    assert shown.failing_label == first_nonfinite(trace(with_inf(model), tokens)).label
    assert shown.exception_text.startswith(f"{type(error).__name__}: ")
    assert stopped_at in shown.exception_text
    # torchlens' exporter draws the ops that ran, the failing one included.
    index = model_explorer_payload(shown.trace).index
    assert index.id_of_label(shown.failing_label) is not None
    assert len(index) == len(shown.trace.layer_list)


def test_lineage_on_netron_walks_from_a_module_box_to_ops_it_draws(log: Any) -> None:
    netron_index = netron_artifact(log, "module").index
    expected = [
        node[0]
        for node in tl.debug.lineage(
            log, str(log.modules["transformer.h.1.mlp"].output_ops[0]), direction="ancestors"
        ).nodes
    ]
    labels = lineage(log, netron_index, "transformer.h.1.mlp", "upstream")
    assert labels == expected
    assert drawn_labels(netron_index, labels)
