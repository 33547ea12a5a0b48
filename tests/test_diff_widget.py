"""The Diff widget: kernel-side behaviour (explore(baseline=...) in tests/test_baseline.py; the browser side
is in tests/e2e)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
import torch
import torchlens as tl

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP


def test_diff_selection_is_the_pair_of_live_records(tiny_mlp_pair):
    log_a, log_b = tiny_mlp_pair
    d = tlw.diff(log_a, log_b)
    seen = []
    d.on_select(seen.append)
    d.select("linear_2_3")
    assert d.selected_labels == ("linear_2_3:1", "linear_2_3:1")
    assert d.selected[0] is log_a["linear_2_3:1"] and d.selected[1] is log_b["linear_2_3:1"]
    assert seen == [d.selected]
    assert d.summary["counts"]["changed"] >= 1 and d.summary["counts"]["zero"] >= 1


def test_diff_inspector_names_each_capture(tiny_mlp_pair):
    d = tlw.diff(*tiny_mlp_pair)
    d.select("linear_2_3")
    header_a, _ = d._answer_inspect({"side": 0})
    header_b, _ = d._answer_inspect({"side": 1})
    assert header_a["expression"] == 'log_a["linear_2_3:1"]'
    assert header_b["expression"] == 'log_b["linear_2_3:1"]'
    assert header_b["value"]["source"].startswith("log_b[")


def facts(header):
    return {row["key"]: row["value"] for row in header["facts"]}


def test_diff_inspector_shows_what_changed_between_the_captures(tiny_mlp_pair):
    log_a, log_b = tiny_mlp_pair
    d = tlw.diff(log_a, log_b)
    d.select("linear_2_3")  # the layer whose weights were perturbed
    header, buffers = d._answer_inspect({"side": 2})
    expected = (log_b["linear_2_3:1"].out - log_a["linear_2_3:1"].out).detach().double()
    assert header["kind"] == "difference" and header["title"] == "b - a"
    assert header["expression"] == 'log_b["linear_2_3:1"].out - log_a["linear_2_3:1"].out'
    row = facts(header)
    assert row["max_abs"] == pytest.approx(float(expected.abs().max()))
    assert row["l2"] == pytest.approx(float(expected.norm()))
    assert row["changed"] == int(torch.count_nonzero(expected)) > 0
    assert row["torchlens_delta"] == pytest.approx(d.payload.deltas[d.selected_node])
    assert header["value"]["stats"]["max"] == pytest.approx(float(expected.max()), rel=1e-5)
    assert header["value"]["histogram"] is not None and buffers  # summarised like any value, in binary


def test_diff_inspector_difference_of_an_unchanged_node_is_zero(tiny_mlp_pair):
    d = tlw.diff(*tiny_mlp_pair)
    d.select("linear_1_1")  # upstream of the perturbed layer
    row = facts(d._answer_inspect({"side": 2})[0])
    assert row["max_abs"] == 0.0 and row["changed"] == 0


def test_diff_inspector_says_why_a_node_cannot_be_compared(tiny_mlp_pair):
    log_a, _ = tiny_mlp_pair
    bare = tl.trace(TinyMLP(), torch.randn(3, 4), capture=tl.options.CaptureOptions(structure_only=True))
    d = tlw.diff(log_a, bare)
    d.select("linear_2_3")
    header, buffers = d._answer_inspect({"side": 2})
    assert header["value"] is None and buffers == []
    assert facts(header)["comparable"] is False
    assert "not saved" in header["facts"][0]["text"]  # never a zero
    # Under privacy_profile="public" there is no diff to inspect: tests/test_privacy.py (refused).


def test_diff_graph_reply_has_two_panes_and_their_node_data(tiny_mlp_pair):
    d = tlw.diff(*tiny_mlp_pair)
    header, buffers = d._answer_graph({})
    assert [pane["label"] for pane in header["panes"]] == [d.payload.a.label, d.payload.b.label]
    assert [entry["pane"] for entry in header["paneNodeData"]] == [0, 1]
    assert len(buffers) == 4
    assert json.loads(gzip.decompress(buffers[1]))["label"] == d.payload.b.label


def test_difference_of_huge_activations_is_sampled_and_bounded_in_memory():
    """b - a of two 50M-element activations: read like the inspector (a strided sample), never copied whole.

    Peak memory is measured in a fresh process (torch's CPU allocations are invisible to tracemalloc):
    float64 copies of both sides and their difference would add 1.2 GB; the sample is 32 MB.
    """
    code = (
        "import resource, torch\n"
        "from torchlens_widgets.inspector.difference import difference_reply\n"
        "from torchlens_widgets.inspector.tensors import MAX_SAMPLE\n"
        "class Op:\n"  # the record shape difference_reply reads: an op with a saved .out
        "    def __init__(self, out): self.out = out\n"
        "Op.__name__ = 'Op'\n"
        "torch.manual_seed(0)\n"
        "a = torch.randn(5000, 10000)\n"
        "b = a.clone(); b[::7] += 1.0\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "header, buffers = difference_reply(Op(a), Op(b), 'x', ('a', 'b'), None)\n"
        "grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before\n"
        "facts = {row['key']: row for row in header['facts']}\n"
        "stats = header['value']['stats']\n"
        "print(grown, MAX_SAMPLE, stats['sampled'], stats['sample_size'], facts['sampled']['text'],\n"
        "      facts['changed']['value'], sep='|')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    grown_kib, bound, sampled, sample_size, sampled_text, changed = result.stdout.strip().split("|")
    sample_bytes = int(bound) * 8  # the sample of one side as float64: 32 MiB
    assert int(grown_kib) * 1024 < 6 * sample_bytes, f"peak grew {int(grown_kib) // 1024} MiB"
    assert sampled == "True" and 0 < int(sample_size) <= int(bound)
    assert "of 50,000,000 elements" in sampled_text
    # One row in 7 changed: the estimate from the sample is close to the truth (7,145,000 elements).
    assert int(changed) == pytest.approx(714 * 10000 + 10000, rel=0.02)
