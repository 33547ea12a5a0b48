"""explore(log, baseline=ref): torchlens.differential.diff_report mapped onto log's node ids, the
annotated Model Explorer payload, Netron's rows, the delta overlay on an Explorer, and the refusals.

Plus the contract test of the private torchlens vocabulary the baseline facts use.
"""

from __future__ import annotations

import base64
import copy
import gc
import gzip
import json
import weakref
from collections.abc import Callable

import pytest
import torch
import torchlens as tl
import torchlens.differential as tl_differential
from torch import nn

import torchlens_widgets as tlw
from tests.helpers.models import Nest, TinyMLP, TwoPass
from tests.helpers.pairs import identical_pair, perturbed, trace
from tests.helpers.saved_pages import saved
from tests.helpers.view_requests import Wire, ask
from torchlens_widgets import _offline
from torchlens_widgets._errors import SelfComparisonError
from torchlens_widgets.diffing import baseline as baseline_module
from torchlens_widgets.diffing.baseline import (
    BASELINE_ATTR_KEYS,
    BASELINE_OVERLAY_NAME,
    BASELINE_STATUSES,
    baseline_facts,
)
from torchlens_widgets.graph_model import model_explorer_payload
from torchlens_widgets.viewers.model_explorer import baseline_attributes
from torchlens_widgets.viewers.netron import baseline_metadata
from torchlens_widgets.widgets import base as widgets_base

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


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_a_baseline_recolours_in_place_its_facts_sent_once(tiny_mlp_pair, viewer):
    """A baseline set, an overlay switched, the baseline cleared: each moves only the colours'
    revision, and the node facts travel only when they are not the ones the view holds."""
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, viewer=viewer)
    graph, _ = ask(w, "graph")
    graph_rev, shown = w._graph_rev, graph["result"]["facts"]
    w.baseline = log_a
    colours, buffers = ask(w, "colours", {"facts": shown}, request_id=2)
    facts = colours["result"]["facts"]
    assert facts not in ("", shown) and len(buffers) == 1  # the baseline's facts, once
    w.overlay = "delta"
    again, buffers = ask(w, "colours", {"facts": facts}, request_id=3)
    assert again["result"]["facts"] == facts and len(buffers) == (1 if viewer == "model-explorer" else 0)
    assert "nodeData" in again["result"] or again["result"]["overlay"]["title"].startswith("baseline delta")
    w.baseline = None
    cleared, buffers = ask(w, "colours", {"facts": facts}, request_id=4)
    # Model Explorer: no attributes now (none sent); Netron: torchlens' own companion, sent again.
    assert cleared["result"]["facts"] == shown and len(buffers) == (0 if viewer == "model-explorer" else 1)
    # One recolour each: the delta overlay goes in the same one as its baseline.
    assert (w._graph_rev, w._colour_rev, cleared["result"]["colourRev"]) == (graph_rev, 3, 3)


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_each_recolour_reaches_the_views_before_its_revision_the_facts_only_when_they_change(
    tiny_mlp_pair, viewer, monkeypatch
):
    """What a view would ask for on a new `_colour_rev` is sent to every view first, in one message
    (a repaint without a round trip): the reply a view gets when it asks, with the node facts only
    when they changed since the last sent; none before a view exists, none within a burst of changes."""
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, viewer=viewer)
    monkeypatch.setattr(widgets_base, "BURST_S", 0.0)  # each change below as if made in its own cell
    wire = Wire(w)
    w.overlay = "time"  # no view yet: nothing to send ahead
    assert [kind for kind, _, _ in wire.colours_sent()] == ["rev"]
    w._channel.receive({"type": "request", "channel": "view-a", "id": 1, "method": "graph", "params": {}})

    def recoloured(change: Callable[[], object]) -> tuple[dict, list[bytes]]:
        wire.sent.clear()
        wire.buffers.clear()
        change()
        (kind, result, buffers), (then, rev, _) = wire.colours_sent()
        assert (kind, then) == ("ahead", "rev"), "the colours come before the revision that asks for them"
        assert result["colourRev"] == rev == w._colour_rev
        return result, buffers

    based, buffers = recoloured(lambda: setattr(w, "baseline", log_a))
    expected, expected_buffers = w._answer_colours({"facts": ""})
    assert (based, buffers) == (dict(expected), expected_buffers)  # what a view asking would get
    facts = based["facts"]
    assert facts and len(buffers) == (2 if viewer == "model-explorer" else 1)  # the time overlay, the facts
    switched, buffers = recoloured(lambda: setattr(w, "overlay", "delta"))
    assert switched["facts"] == facts and len(buffers) == (1 if viewer == "model-explorer" else 0)
    cleared, buffers = recoloured(lambda: setattr(w, "baseline", None))
    # Model Explorer: no attributes now (none to send); Netron: torchlens' own companion, sent again.
    assert cleared["facts"] != facts and len(buffers) == (0 if viewer == "model-explorer" else 1)

    # A loop over overlays in one cell, right after the last sent: only the revisions (the views ask for
    # the last one when the cell is done).
    monkeypatch.setattr(widgets_base, "BURST_S", 60.0)
    wire.sent.clear()
    wire.buffers.clear()
    for overlay in ("flops", "time", "bytes"):
        w.overlay = overlay
    assert [kind for kind, _, _ in wire.colours_sent()] == ["rev", "rev", "rev"]


def test_delta_overlay_without_baseline_and_self_comparison_are_refused(tiny_mlp_pair):
    log_a, _ = tiny_mlp_pair
    w = tlw.explore(log_a)
    with pytest.raises(tlw.OverlayUnavailableError, match="needs a baseline"):
        w.overlay = "delta"
    with pytest.raises(tlw.SelfComparisonError):
        w.baseline = log_a
    assert w.baseline is None


# ----- the inspector's baseline section -------------------------------------------------------------


class Tanh(nn.Module):
    """A Linear, then (with ``extra``) a tanh its twin without it lacks: torchlens' "added" row."""

    def __init__(self, extra: bool) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.extra = extra

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return torch.tanh(y) * 2 if self.extra else y * 2


def rows_by_key(section: dict) -> dict[str, dict]:
    return {row["key"]: row for row in section["facts"]}


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_the_inspector_shows_torchlens_row_and_the_difference_from_the_baseline(tiny_mlp_pair, viewer):
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, viewer=viewer, baseline=log_a).select("linear_2_3:1")
    header, buffers = w._answer_inspect({})
    section = header["baseline"]
    json.dumps(header, allow_nan=False)
    assert section["reference"] == log_a.trace_label and "message" not in section
    # torchlens' row as it gave it: its status, its max |Δ| (never recomputed), the op it paired
    row = diff_report_row(log_b, log_a, "linear_2_3:1")
    facts = rows_by_key(section)
    assert facts["status"]["value"] == row.status == "changed"
    assert facts["max_abs_delta"]["value"] == row.max_abs_delta
    assert facts["reference_label"]["value"] == row.reference_label
    assert facts["verdict"]["value"] == row.verdict
    # b - a (this trace minus the baseline) as a diff's third panel summarises it, with its own buffers
    # after the record's
    value = section["value"]
    assert value["source"] == 'log["linear_2_3:1"].out - ref["linear_2_3:1"].out'
    d = tlw.diff(log_a, log_b)
    d.select("linear_2_3:1")
    panel, panel_buffers = d._answer_inspect({"side": 2})
    assert panel["value"] is not None
    assert value["stats"] == panel["value"]["stats"]
    own = header["value"]
    assert own is not None and value["histogram"]["buffer"] > own["histogram"]["buffer"]
    assert buffers[value["histogram"]["buffer"]] == panel_buffers[panel["value"]["histogram"]["buffer"]]
    assert buffers[value["heatmap"]["buffer"]] == panel_buffers[panel["value"]["heatmap"]["buffer"]]
    w.baseline = None
    header, _ = w._answer_inspect({})
    assert "baseline" not in header


def diff_report_row(log, ref, label):
    return next(row for row in tl_differential.diff_report(log, ref).rows if row.subject_label == label)


def test_a_baseline_set_changed_or_cleared_tells_every_view_to_inspect_again():
    torch.manual_seed(0)
    model = TinyMLP()
    ref, twin = identical_pair(model)
    twin.trace_label = ref.trace_label  # the same weights under the same name
    w = tlw.explore(trace(perturbed(model, "l2"))).select("linear_2_3:1")
    revisions = [w._inspect_rev]
    w.baseline = ref
    revisions.append(w._inspect_rev)
    summary = dict(w.baseline_summary)
    w.baseline = twin  # the summary does not change, the facts may: the revision says so
    assert w.baseline_summary == summary
    revisions.append(w._inspect_rev)
    w.baseline = None
    revisions.append(w._inspect_rev)
    assert revisions == sorted(set(revisions)) and len(revisions) == 4
    assert "baseline" not in w._answer_inspect({})[0]


def test_a_baseline_set_again_reuses_its_facts_while_the_reference_lives(monkeypatch):
    """A reader who clears a baseline and sets it again, or goes back and forth between two, waits for
    torchlens' diff_report once per reference; a reference the user dropped is freed, not kept."""
    torch.manual_seed(0)
    model = TinyMLP()
    first, second = identical_pair(model)
    w = tlw.explore(trace(perturbed(model, "l2")))
    reports: list[object] = []
    real = baseline_module.diff_report
    counted = lambda log, ref: reports.append(ref) or real(log, ref)  # noqa: E731
    monkeypatch.setattr(baseline_module, "diff_report", counted)
    for ref in (first, None, first, second, first, second):
        w.baseline = ref
    assert reports == [first, second]
    summary = dict(w.baseline_summary)
    w.baseline = None
    held = weakref.ref(second)
    reports.clear()
    del ref, second
    gc.collect()
    assert held() is None  # the cleared baseline is not kept alive by the widget
    third = trace(copy.deepcopy(model))
    w.baseline = third
    assert reports == [third] and w.baseline_summary.keys() == summary.keys()


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_a_baseline_set_again_sends_the_bytes_made_for_it_before(viewer):
    """Back to a baseline shown before: its delta overlay and its facts on the graph are the ones made
    then (no new encoding of every node's facts in the kernel)."""
    torch.manual_seed(0)
    model = TinyMLP()
    first, second = identical_pair(model)
    w = tlw.explore(trace(perturbed(model, "l2")), viewer=viewer)
    w.baseline = first
    w.overlay = "delta"
    shown = w._colouring.overlay
    _, buffers = w._answer_colours({"facts": ""})
    w.baseline = second
    assert w._colouring.overlay is not shown
    w.baseline = first
    _, again = w._answer_colours({"facts": ""})
    assert w._colouring.overlay is shown
    assert len(again) == len(buffers) > 0 and all(a is b for a, b in zip(again, buffers, strict=True))


def test_nodes_without_a_difference_say_why(two_pass_log):
    torch.manual_seed(0)
    plain, extra = Tanh(False), Tanh(True)
    extra.load_state_dict(plain.state_dict())
    x = torch.randn(2, 4)
    ref, log = tl.trace(plain, x), tl.trace(extra, x)
    w = tlw.explore(log, baseline=ref).select("tanh_1_2:1")
    section = w._answer_inspect({})[0]["baseline"]
    assert section["message"] == f"not in {ref.trace_label}" and section["value"] is None
    assert rows_by_key(section)["status"]["value"] == "added"
    # Paired by torchlens' site join, not by label: the product is mul_1_3 here, mul_1_2 there.
    w.select("mul_1_3:1")
    assert w._answer_inspect({})[0]["baseline"]["value"]["source"] == (
        'log["mul_1_3:1"].out - ref["mul_1_2:1"].out'
    )
    # torchlens' rows are per op and pass: a module box and a layer of two passes have none.
    other = trace(perturbed(TwoPass(), "shared"))
    rolled = tlw.explore(two_pass_log, viewer="netron", granularity="rolled", baseline=other)
    rolled.select("linear_1_1")
    assert "layer of 2 passes" in rolled._answer_inspect({})[0]["baseline"]["message"]
    torch.manual_seed(0)
    nest, y = Nest(), torch.randn(2, 4)
    modules = tlw.explore(tl.trace(perturbed(nest, "head"), y), viewer="netron", baseline=tl.trace(nest, y))
    header = modules.select("inner")._answer_inspect({})[0]  # a module-call box
    assert header["kind"] == "module" and "module box" in header["baseline"]["message"]


def test_a_nan_difference_is_said_and_the_reply_stays_json():
    torch.manual_seed(0)
    model = TinyMLP()
    broken = copy.deepcopy(model)
    with torch.no_grad():
        broken.l2.weight[0, 0] = float("nan")
    w = tlw.explore(trace(broken), baseline=trace(model)).select("linear_2_3:1")
    header, _ = w._answer_inspect({})
    json.dumps(header, allow_nan=False)
    section = header["baseline"]
    delta = rows_by_key(section)["max_abs_delta"]
    assert delta["value"] is None and delta["text"] == "NaN"  # torchlens' NaN, said, never a number
    assert section["value"]["stats"]["nan_count"] > 0


def test_a_saved_page_replays_the_baseline_section(tiny_mlp_pair, tmp_path):
    log_a, log_b = tiny_mlp_pair
    w = tlw.explore(log_b, baseline=log_a).select("linear_2_3:1")
    live, live_buffers = w._answer_inspect({})
    recording = saved(w.save_html(tmp_path / "baseline.html"))["recording"]
    reply = recording["inspect"]["linear_2_3:1"]
    section = reply["result"]["baseline"]
    assert section["facts"] == live["baseline"]["facts"]
    histogram = section["value"]["histogram"]["buffer"]
    pooled = reply["buffers"][histogram]  # the page's pool index of the reply's buffer
    assert base64.b64decode(recording["buffers"][pooled]) == live_buffers[histogram]
    # Past the size bound a node keeps its facts; both value summaries are left out, with no buffers.
    trimmed, none = _offline._without_value(live, 1_000_000)
    assert none == [] and trimmed["value"]["status"] == trimmed["baseline"]["value"]["status"] == "withheld"
    assert trimmed["baseline"]["facts"] == live["baseline"]["facts"]
