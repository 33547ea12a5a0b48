"""explore(log, baseline=ref): torchlens.differential.diff_report mapped onto log's node ids, the
annotated Model Explorer payload, Netron's rows, the delta overlay on an Explorer, and the refusals.

Plus the contract test of the private torchlens vocabulary the baseline facts use.
"""

from __future__ import annotations

import copy
import gzip
import json

import pytest
import torch
import torchlens as tl
import torchlens.differential as tl_differential

import torchlens_widgets as tlw
from tests.helpers.models import TwoPass
from tests.helpers.pairs import perturbed, trace
from torchlens_widgets._errors import SelfComparisonError
from torchlens_widgets.diffing.baseline import (
    BASELINE_ATTR_KEYS,
    BASELINE_OVERLAY_NAME,
    BASELINE_STATUSES,
    baseline_facts,
)
from torchlens_widgets.graph_model import model_explorer_payload
from torchlens_widgets.viewers.model_explorer import baseline_attributes
from torchlens_widgets.viewers.netron import baseline_metadata

# ----- contract test: the private torchlens vocabulary --------------------------------------------


def test_contract_diff_report_vocabulary_and_refusal(bert_pair):
    assert BASELINE_STATUSES == tl_differential._ROW_STATUSES
    fields = {f.name for f in tl_differential.DiffRow.__dataclass_fields__.values()}
    assert {"site_key", "status", "subject_label", "reference_label", "verdict", "max_abs_delta"} <= fields
    log_a, _ = bert_pair
    with pytest.raises(tl.errors.TorchLensError) as caught:
        tl_differential.diff_report(log_a, log_a)
    assert caught.value.fields["code"] == "differential_subject_is_reference"


# ----- baseline facts: refusal, mapping, annotation, Netron ---------------------------------------


def test_self_comparison_is_refused_with_torchlens_reason(bert_pair):
    log_a, _ = bert_pair
    with pytest.raises(SelfComparisonError) as caught:
        baseline_facts(log_a, log_a)
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, tlw.TorchlensWidgetsError)
    assert "SAME capture on both sides" in str(error)
    assert error.code == "differential_subject_is_reference"
    assert error.remedy == "pass two different captures"
    assert isinstance(error.__cause__, tl.errors.TorchLensError)


def test_multi_pass_ops_map_by_label_not_site_key():
    """TwoPass: both passes of `shared` share one site key; the node ids differ (|1, |2)."""
    torch.manual_seed(0)
    model = TwoPass()
    log_a, log_b = trace(perturbed(model, "shared")), trace(model)
    facts = baseline_facts(log_a, log_b)
    execution = facts.nodes["00-execution"]
    by_label = {fact.subject_label: node_id for node_id, fact in execution.items()}
    assert by_label["linear_1_1:1"].endswith("|1") and by_label["linear_1_1:2"].endswith("|2")
    assert execution[by_label["linear_1_1:1"]].site_key == execution[by_label["linear_1_1:2"]].site_key
    # the rolled graph: a multi-pass node has no single row, so it carries no diff facts
    rolled = facts.nodes.get("01-rolled", {})
    assert by_label["linear_1_1:1"] not in rolled and by_label["input_1:1"] in rolled
    annotated = with_baseline(model_explorer_payload(log_a).collection, facts)
    rolled_graph = next(g for g in annotated["graphs"] if g["id"] == "01-rolled")
    linear = next(n for n in rolled_graph["nodes"] if n["id"] == by_label["linear_1_1:1"])
    assert not {a["key"] for a in linear["attrs"]} & set(BASELINE_ATTR_KEYS)
    # Netron names single-pass ops by their layer label, multi-pass ops pass-qualified
    assert {"linear_1_1:1", "linear_1_1:2", "input_1", "output_1"} <= set(facts.netron)
    assert "linear_1_1" not in facts.netron
    rows = baseline_metadata(facts, ["linear_1_1:2", "linear_1_1", "input_1"])
    assert {row["target"] for row in rows} == {"linear_1_1:2", "input_1"}
    assert {"kind": "node", "target": "linear_1_1:2", "name": "diff status", "value": "changed"} in rows


def with_baseline(collection: dict, facts) -> dict:
    """The collection as the frame draws it: baseline_attributes set on its nodes, replacing those of
    the same key (what js/model-explorer/node-attributes.ts's withNodeAttributes does)."""
    annotated = copy.deepcopy(collection)
    attributes = baseline_attributes(collection, facts)
    for graph in annotated["graphs"]:
        for node in graph["nodes"]:
            attrs = attributes.get(str(graph["id"]), {}).get(str(node["id"]), {})
            node["attrs"] = [a for a in node.get("attrs", ()) if a["key"] not in attrs] + [
                {"key": key, "value": value} for key, value in attrs.items()
            ]
    return annotated


def test_annotated_payload_validates_and_is_a_copy(bert_perturbed):
    _, log_a, log_b = bert_perturbed
    payload = model_explorer_payload(log_a)
    before = json.dumps(payload.collection)
    facts = baseline_facts(log_a, log_b, payload=payload)
    annotated = with_baseline(payload.collection, facts)
    report = tl.export.validate_model_explorer_payload(annotated, strict=True)
    assert report.ok
    assert json.dumps(payload.collection) == before  # the widget's payload is untouched
    assert with_baseline(annotated, facts) == annotated  # idempotent: attrs replaced, never doubled

    execution = next(g for g in annotated["graphs"] if g["id"] == "00-execution")
    attrs = {n["id"]: {a["key"]: a["value"] for a in n["attrs"]} for n in execution["nodes"]}
    changed = {nid for nid, fact in facts.nodes["00-execution"].items() if fact.status == "changed"}
    assert changed
    for node_id in changed:
        assert attrs[node_id]["diff_status"] == "changed"
        assert float(attrs[node_id]["diff_max_abs_delta"]) > 0
        assert attrs[node_id]["diff_verdict"] in ("corroborated", "positional")
        assert attrs[node_id]["diff_reference"] == facts.nodes["00-execution"][node_id].reference_label
    overlay = facts.overlay
    assert set(overlay["00-execution"]["results"]) == set(facts.nodes["00-execution"])  # all zero/changed
    assert overlay["00-execution"]["name"] == BASELINE_OVERLAY_NAME
    coverage = facts.overlay_coverage
    assert coverage["resolved"] == sum(len(g["results"]) for g in overlay.values())
    assert coverage["omitted_missing"] == coverage["omitted_no_row"] == 0
    json.dumps(facts.summary())


# ----- explore(baseline=...): the annotated graph and the delta overlay ----------------------------


def test_baseline_annotates_the_graph_and_offers_a_delta_overlay(tiny_mlp_pair):
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, baseline=log_a)
    header, buffers = w._answer_graph({})
    # the trace's own collection, the bytes drawn without a baseline: set in place, not laid out again
    assert buffers[0] == tlw.explore(log_b)._answer_graph({})[1][0]
    assert header["nodeAttributes"] == {"keys": list(BASELINE_ATTR_KEYS)} and len(buffers) == 2
    attributes = json.loads(gzip.decompress(buffers[-1]))
    statuses = {attrs["diff_status"] for nodes in attributes.values() for attrs in nodes.values()}
    assert {"changed", "zero"} <= statuses
    values = [value for nodes in attributes.values() for attrs in nodes.values() for value in attrs.values()]
    assert all(isinstance(value, str) for value in values)
    w.overlay = "delta"
    assert w.overlay_summary.startswith("delta on ")
    assert len(w._answer_graph({})[1]) == 3  # the collection, the delta's node data, the attributes
    w.baseline = None  # the delta overlay goes with its baseline
    assert w.overlay == "" and w.baseline_summary == {}
    assert "nodeAttributes" not in w._answer_graph({})[0]


def test_netron_sends_the_companion_with_the_baselines_rows_made_once_per_baseline(tiny_mlp_pair):
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, viewer="netron")
    model, plain = w._answer_graph({})[1]
    w.baseline = log_a
    first = w._answer_graph({})[1]
    assert first[0] == model  # the model on screen: its companion is attached in place
    companion = json.loads(gzip.decompress(first[1]))
    rows = [row for row in companion["metadata"] if row["name"].startswith("diff ")]
    assert rows and all(row["kind"] == "node" for row in rows)
    assert {row["value"] for row in rows if row["name"] == "diff status"} >= {"changed"}
    without = json.loads(gzip.decompress(plain))["metadata"]
    assert companion["metadata"][: len(without)] == without  # torchlens' own rows first, untouched
    w.overlay = "time"
    assert w._answer_graph({})[1][1] is first[1]  # an overlay switch reuses it
    w.baseline = None
    assert w._answer_graph({})[1][1] == plain


def test_delta_overlay_without_baseline_and_self_comparison_are_refused(tiny_mlp_pair):
    log_a, _ = tiny_mlp_pair
    w = tlw.explore(log_a)
    with pytest.raises(tlw.OverlayUnavailableError, match="needs a baseline"):
        w.overlay = "delta"
    with pytest.raises(tlw.SelfComparisonError):
        w.baseline = log_a
    assert w.baseline is None
