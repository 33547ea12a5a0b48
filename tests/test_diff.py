"""Kernel side of tlw.diff(log_a, log_b) (torchlens_widgets.diffing) on real architectures: torchlens' L2
deltas per Model Explorer node id, per-node status, pair(), and where the baseline facts
(explore(baseline=...), tests/test_baseline.py) agree with them.

Plus the contract test of the private torchlens functions the split-pane diff calls.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections import deque

import pytest
import torch
import torchlens as tl
from torchlens.export._model_explorer import _diff as tl_me_diff

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP, TwoPass
from tests.helpers.pairs import BERT_LAYER, GPT2_LAYER, TOKENS, bert, gpt2_tiny, perturbed, trace
from torchlens_widgets.diffing.baseline import baseline_facts
from torchlens_widgets.diffing.labels import execution_labels
from torchlens_widgets.diffing.split_pane import DIFF_STATUSES, diff_payload

# ----- contract test: the private torchlens functions the split-pane diff calls -------------------


def test_contract_pairwise_deltas_and_delta_node_data(bert_pair, tmp_path):
    """_pairwise_deltas / _delta_node_data are what model_explorer_diff writes to disk, byte for byte."""
    log_a, log_b = bert_pair
    left = tl.export.to_model_explorer_dict(log_a)
    right = tl.export.to_model_explorer_dict(log_b)
    deltas, coverage = tl_me_diff._pairwise_deltas(log_a, log_b, left, right)
    assert set(coverage) == {"aligned", "one_sided", "structural_mismatch", "value_missing"}
    assert all(isinstance(k, str) and isinstance(v, float) for k, v in deltas.items())
    node_data = tl_me_diff._delta_node_data(left, deltas)
    assert list(node_data) == ["00-execution"]
    assert set(node_data["00-execution"]) == {"name", "results", "gradient"}

    out = tl.export.model_explorer_diff([log_a, log_b], tmp_path)
    on_disk = json.loads((out / "nodedata.left.bundle_delta.json").read_text())
    assert on_disk == node_data
    ours = diff_payload(log_a, log_b)
    assert ours.node_data_a == on_disk
    assert ours.node_data_b == on_disk["00-execution"]  # the single-graph form of the same data
    manifest = json.loads((out / "manifest.json").read_text())
    assert ours.coverage == manifest["coverage"]


# ----- tlw.diff: identical, perturbed, different architectures, value-free --------------------------


@pytest.mark.parametrize("pair", ["bert_pair", "gpt2_pair"])
def test_identical_weights_are_all_zero(pair, request):
    log_a, log_b = request.getfixturevalue(pair)
    d = diff_payload(log_a, log_b)
    n = len(d.status)
    assert n == len(execution_labels(d.a.collection))
    assert d.counts == {
        "changed": 0,
        "nonfinite": 0,
        "zero": n,
        "added": 0,
        "removed": 0,
        "not_comparable": 0,
    }
    assert set(d.deltas.values()) == {0.0}
    assert d.top == ()
    assert len(d.node_data_a["00-execution"]["results"]) == n

    facts = baseline_facts(log_a, log_b)
    assert facts.counts["zero"] == len(facts.report.rows) == n
    assert facts.unpaired == facts.nodes_without_row == facts.rows_not_drawn == 0


def _layers_downstream(log, layer: str) -> set[str]:
    """The layer and every layer reachable from it (torchlens' own graph)."""
    seen, queue = {layer}, deque([layer])
    while queue:
        for child in log[queue.popleft()].children:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return seen


def _check_perturbed(log_a, log_b, address: str) -> None:
    d = diff_payload(log_a, log_b)
    perturbed_id = d.resolve(address)  # the op the module call returned
    perturbed_layer = log_a[d.a.index.label_of(perturbed_id)].layer_label
    downstream = _layers_downstream(log_a, perturbed_layer)
    changed = {node_id for node_id, status in d.status.items() if status == "changed"}
    layer_of = {
        node_id: log_a[label].layer_label for node_id, label in execution_labels(d.a.collection).items()
    }

    assert d.status[perturbed_id] == "changed"
    assert {layer_of[node_id] for node_id in changed} <= downstream  # nothing upstream moved
    upstream = [node_id for node_id, layer in layer_of.items() if layer not in downstream]
    assert upstream and all(d.status[node_id] == "zero" for node_id in upstream)
    assert d.counts["changed"] == len(changed) > 1 and d.counts["not_comparable"] == 0
    # the top list is sorted, click-to-select ids, labels of the first capture
    values = [t.value for t in d.top]
    assert values == sorted(values, reverse=True) and values[0] == max(d.deltas.values())
    assert all(d.status[t.node_id] == "changed" and d.a.index.label_of(t.node_id) == t.label for t in d.top)
    assert d.summary_line().startswith(f"changed {len(changed)} · zero ")

    # the guarded differential agrees on which nodes moved (max-abs vs L2: both nonzero iff any element)
    facts = baseline_facts(log_a, log_b, payload=d.a)
    baseline_changed = {nid for nid, fact in facts.nodes["00-execution"].items() if fact.status == "changed"}
    assert baseline_changed == changed


def test_one_perturbed_layer_bert(bert_perturbed):
    _, log_a, log_b = bert_perturbed
    _check_perturbed(log_a, log_b, BERT_LAYER)


def test_one_perturbed_layer_gpt2():
    model = gpt2_tiny()
    _check_perturbed(trace(perturbed(model, GPT2_LAYER)), trace(model), GPT2_LAYER)


def test_one_perturbed_layer_tiny_mlp():
    torch.manual_seed(0)
    model = TinyMLP()
    d = diff_payload(trace(perturbed(model, "l2")), trace(model))
    status = {d.a.index.label_of(node_id): value for node_id, value in d.status.items()}
    assert status == {
        "input_1:1": "zero",
        "linear_1_1:1": "zero",
        "relu_1_2:1": "zero",
        "linear_2_3:1": "changed",
        "output_1:1": "changed",
    }


@pytest.mark.parametrize("build", [bert, gpt2_tiny])
def test_different_architectures(build):
    log_a, log_b = trace(build(3)), trace(build(2))  # subject has one layer more than the reference
    d = diff_payload(log_a, log_b)
    ids_a = set(execution_labels(d.a.collection))
    ids_b = set(execution_labels(d.b.collection))
    assert d.counts["added"] == len(ids_a - ids_b) > 0
    assert d.counts["removed"] == len(ids_b - ids_a)
    assert sum(d.counts.values()) == len(ids_a | ids_b) == len(d.status)
    assert d.counts["added"] == d.coverage["one_sided"] - d.counts["removed"]
    added = next(node_id for node_id, status in d.status.items() if status == "added")
    assert d.pair(added)[1] is None and d.pair(added)[0] is not None
    assert added not in d.node_data_b["results"]  # one-sided: shown as such, never a zero delta

    facts = baseline_facts(log_a, log_b)
    counts = facts.counts
    assert counts["added"] > 0
    assert facts.unpaired == counts["added"] + counts["removed"] + counts["unresolved"] > 0
    assert sum(counts.values()) == len(facts.report.rows)
    assert facts.summary()["unpaired"] == facts.unpaired
    assert f"{facts.unpaired} could not be paired" in facts.summary_line()
    execution = facts.nodes["00-execution"]
    for fact in execution.values():
        if fact.status in ("added", "removed", "unresolved", "unreachable"):
            keys = {attr["key"] for attr in fact.attrs()}
            assert "diff_max_abs_delta" not in keys and fact.numeric_delta is None
    overlay = facts.overlay["00-execution"]["results"]
    assert all(execution[node_id].status in ("zero", "changed") for node_id in overlay)


def test_different_architectures_removed_side():
    log_a, log_b = trace(gpt2_tiny(2)), trace(gpt2_tiny(3))  # the reference has the extra layer
    d = diff_payload(log_a, log_b)
    assert d.counts["removed"] > 0 and d.counts["added"] == 0
    removed = next(node_id for node_id, status in d.status.items() if status == "removed")
    record_a, record_b = d.pair(removed)
    assert record_a is None and record_b is log_b[d.b.index.label_of(removed)]
    facts = baseline_facts(log_a, log_b)
    assert facts.counts["removed"] > 0 and facts.unpaired >= facts.counts["removed"]
    # removed rows name reference ops only: none of them lands on a node of the subject's payload
    assert facts.rows_not_drawn == 0
    assert all(fact.status != "removed" for fact in facts.nodes["00-execution"].values())


@pytest.mark.parametrize(
    "capture", [{"structure_only": True}, {"layers_to_save": "none"}], ids=["structure_only", "save_none"]
)
@pytest.mark.parametrize("build", [bert, TwoPass])
def test_value_free_captures_are_not_comparable(build, capture):
    model = build()
    log_a, log_b = trace(model, **capture), trace(copy.deepcopy(model), **capture)
    d = diff_payload(log_a, log_b)
    assert d.counts["zero"] + d.counts["changed"] == d.coverage["aligned"]
    # only buffers keep a value under layers_to_save="none"; everything else is not comparable
    assert d.counts["not_comparable"] == d.coverage["value_missing"] > 0
    for node_id, status in d.status.items():
        if status == "not_comparable":
            assert node_id not in d.deltas and node_id not in d.node_data_b["results"]
    if "structure_only" in capture:
        assert d.counts["not_comparable"] == len(d.status) and not d.deltas

    facts = baseline_facts(log_a, log_b)
    assert facts.counts["unreachable"] == len(facts.report.rows)  # buffers included, unlike the ME diff
    assert facts.overlay == {}
    assert facts.overlay_coverage["resolved"] == 0 and facts.overlay_coverage["omitted_missing"] > 0
    for fact in facts.nodes["00-execution"].values():
        assert [a["key"] for a in fact.attrs()] == ["diff_status", "diff_reference", "diff_verdict"]
        assert fact.attrs()[0]["value"] == "unreachable"


# ----- baseline: refusal, mapping, annotation, Netron ---------------------------------------------


def test_not_a_trace(bert_pair):
    log_a, _ = bert_pair
    with pytest.raises(tlw.NotATraceError, match="ref must be a torchlens Trace"):
        baseline_facts(log_a, object())
    with pytest.raises(tlw.NotATraceError, match="log_b must be a torchlens Trace"):
        diff_payload(log_a, "not a trace")
    with pytest.raises(ValueError, match="names must be two different"):
        diff_payload(log_a, log_a, names=("x", "x"))


def test_pair_and_resolve(bert_perturbed):
    _, log_a, log_b = bert_perturbed
    d = diff_payload(log_a, log_b)
    node_id = d.resolve("linear_1_11:1")
    record_a, record_b = d.pair(node_id)
    assert record_a is log_a["linear_1_11:1"] and record_b is log_b["linear_1_11:1"]
    with pytest.raises(tlw.NodeNotFoundError):
        d.pair("no|such|node")
    with pytest.raises(KeyError):
        d.resolve("no_such_layer_9_9")


def test_two_panes_are_distinct_collections_with_targets(gpt2_pair):
    log_a, log_b = gpt2_pair
    d = diff_payload(log_a, log_b, names=("before", "after"))
    assert d.node_data_targets == (d.a.collection["label"], d.b.collection["label"])
    assert d.a.label.endswith("[before]") and d.b.label.endswith("[after]")
    wire = d.wire()
    assert set(wire) == {"a", "b", "node_data_a", "node_data_b"}
    summary = d.summary()
    json.dumps(summary)  # synced state must be JSON-safe
    assert summary["counts"] == d.counts


def test_statuses_are_closed():
    assert set(DIFF_STATUSES) == {"changed", "nonfinite", "zero", "added", "removed", "not_comparable"}


def test_partial_save_counts_unsaved_ops_as_not_comparable():
    model = bert()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log_a = tl.trace(
            perturbed(model, BERT_LAYER), input_kwargs={"input_ids": TOKENS}, save=tl.func("linear")
        )
        log_b = tl.trace(model, input_kwargs={"input_ids": TOKENS}, save=tl.func("linear"))
    d = diff_payload(log_a, log_b)
    assert d.counts["changed"] > 0 and d.counts["not_comparable"] == d.coverage["value_missing"] > 0
    facts = baseline_facts(log_a, log_b)
    assert facts.counts["unreachable"] == d.counts["not_comparable"]
    assert {nid for nid, s in d.status.items() if s == "changed"} == {
        nid for nid, fact in facts.nodes["00-execution"].items() if fact.status == "changed"
    }
