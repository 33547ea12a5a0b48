"""The Diff widget and explore(baseline=...): kernel-side behaviour (the browser side is in tests/e2e)."""

from __future__ import annotations

import copy
import gzip
import json

import pytest
import torch
import torchlens as tl
from models import TinyMLP

import torchlens_widgets as tlw


@pytest.fixture(scope="module")
def pair():
    torch.manual_seed(0)
    model, x = TinyMLP(), torch.randn(3, 4)
    tuned = copy.deepcopy(model)
    with torch.no_grad():
        tuned.l2.weight.add_(0.5)
    return tl.trace(model, x), tl.trace(tuned, x)


def test_diff_selection_is_the_pair_of_live_records(pair):
    log_a, log_b = pair
    d = tlw.diff(log_a, log_b)
    seen = []
    d.on_select(seen.append)
    d.select("linear_2_3")
    assert d.selected_labels == ("linear_2_3:1", "linear_2_3:1")
    assert d.selected[0] is log_a["linear_2_3:1"] and d.selected[1] is log_b["linear_2_3:1"]
    assert seen == [d.selected]
    assert d.summary["counts"]["changed"] >= 1 and d.summary["counts"]["zero"] >= 1


def test_diff_inspector_names_each_capture(pair):
    d = tlw.diff(*pair)
    d.select("linear_2_3")
    header_a, _ = d._answer_inspect({"side": 0})
    header_b, _ = d._answer_inspect({"side": 1})
    assert header_a["expression"] == 'log_a["linear_2_3:1"]'
    assert header_b["expression"] == 'log_b["linear_2_3:1"]'
    assert header_b["value"]["source"].startswith("log_b[")


def test_diff_graph_reply_has_two_panes_and_their_node_data(pair):
    d = tlw.diff(*pair)
    header, buffers = d._answer_graph({})
    assert [pane["label"] for pane in header["panes"]] == [d.payload.a.label, d.payload.b.label]
    assert [entry["pane"] for entry in header["paneNodeData"]] == [0, 1]
    assert len(buffers) == 4
    assert json.loads(gzip.decompress(buffers[1]))["label"] == d.payload.b.label


def test_baseline_annotates_the_graph_and_offers_a_delta_overlay(pair):
    log_a, log_b = pair
    w = tlw.explore(log_b, baseline=log_a)
    _header, buffers = w._answer_graph({})
    nodes = json.loads(gzip.decompress(buffers[0]))["graphs"][0]["nodes"]
    statuses = {attr["value"] for node in nodes for attr in node["attrs"] if attr["key"] == "diff_status"}
    assert {"changed", "zero"} <= statuses
    w.overlay = "delta"
    assert w.overlay_summary.startswith("delta on ")
    w.baseline = None  # the delta overlay goes with its baseline
    assert w.overlay == "" and w.baseline_summary == {}


def test_delta_overlay_without_baseline_and_self_comparison_are_refused(pair):
    log_a, _ = pair
    w = tlw.explore(log_a)
    with pytest.raises(tlw.OverlayUnavailableError, match="needs a baseline"):
        w.overlay = "delta"
    with pytest.raises(tlw.SelfComparisonError):
        w.baseline = log_a
    assert w.baseline is None
