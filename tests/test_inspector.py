"""The inspector's kernel side: inspect_record() on real traces, without a widget."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
import torch
import torchlens as tl
from torch import nn

from tests.helpers.models import Nest
from torchlens_widgets._protocol import MASK_NAN, MASK_NEGINF, MASK_POSINF
from torchlens_widgets.inspector.facts import fact_of
from torchlens_widgets.inspector.reply import MAX_REPLY_BYTES, inspect_record, reply_size
from torchlens_widgets.inspector.tensors import (
    HEATMAP_MAX_COLS,
    HEATMAP_MAX_ROWS,
    HIST_BINS,
    MAX_SAMPLE,
    summarize_tensor,
)
from torchlens_widgets.viewers import make_source

# ----- models and traces --------------------------------------------------------------------------


class NonFinite(nn.Module):
    """Divides by zero (+Inf, -Inf, and NaN for 0/0) and takes the log of negatives (NaN) and 0 (-Inf)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ratio = x / 0
        logs = torch.log(x)
        return torch.cat([ratio, logs, x])


class Huge(nn.Module):
    """Returns a 10000 x 10000 (100M-element) activation from a 10000-element input."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.expand(10000, 10000) * 1.0


@pytest.fixture(scope="module")
def bert_log() -> Any:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000
    )
    model = BertModel(config).eval()
    with torch.no_grad():
        return tl.trace(model, torch.randint(0, 1000, (1, 16)))


@pytest.fixture(scope="module")
def nonfinite_log() -> Any:
    x = torch.tensor([[-2.0, -1.0, 0.0, 0.5, 1.0, 3.0], [4.0, -0.5, 0.0, 2.0, 7.0, -3.0]])
    return tl.trace(NonFinite(), x)


def _facts(header: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["key"]: row for row in header["facts"]}


def _same(a: Any, b: Any) -> bool:
    """The same torchlens record (Op proxies may be rebuilt on access; their labels identify them)."""
    if a is b:
        return True
    return type(a) is type(b) and str(getattr(a, "label", "")) == str(getattr(b, "label", ""))


def _check_value(header: dict[str, Any], buffers: list[bytes], tensor: torch.Tensor) -> None:
    """Every number of a summary against torch/numpy on the whole tensor (unsampled summaries)."""
    value = header["value"]
    assert value["status"] == "summary"
    stats = value["stats"]
    data = tensor.detach().double().reshape(-1).numpy()
    finite = data[np.isfinite(data)]
    assert stats["sampled"] is False
    assert stats["count"] == stats["numel"] == data.size
    assert stats["finite_count"] == finite.size
    assert stats["nan_count"] == int(np.isnan(data).sum())
    assert stats["posinf_count"] == int(np.isposinf(data).sum())
    assert stats["neginf_count"] == int(np.isneginf(data).sum())
    assert stats["zero_fraction"] == pytest.approx((data == 0).mean())
    assert stats["nonfinite_fraction"] == pytest.approx(1 - finite.size / data.size)
    if finite.size:
        reference = torch.from_numpy(finite)
        assert stats["min"] == reference.min().item()
        assert stats["max"] == reference.max().item()
        assert stats["mean"] == pytest.approx(reference.mean().item(), rel=1e-12, abs=1e-12)
        if finite.size > 1:
            assert stats["std"] == pytest.approx(reference.std().item(), rel=1e-9, abs=1e-12)
        hist = value["histogram"]
        counts = np.frombuffer(buffers[hist["buffer"]], dtype="<u4")
        expected, _ = np.histogram(finite, bins=HIST_BINS, range=(hist["lo"], hist["hi"]))
        assert counts.tolist() == expected.tolist()
        assert int(counts.sum()) == finite.size


# ----- facts ----------------------------------------------------------------------------------------


def test_op_facts_and_value(tiny_log: Any) -> None:
    record = tiny_log["linear_1_1:1"]
    header, buffers = inspect_record(tiny_log, record, "linear_1_1:1")
    facts = _facts(header)
    assert header["kind"] == "op"
    assert header["expression"] == 'log["linear_1_1:1"]'
    assert facts["op"]["value"] == "linear"
    assert facts["label"]["value"] == "linear_1_1:1"
    assert facts["module"]["value"] == "l1:1"
    assert facts["pass"]["text"] == "1 of 1"
    assert facts["shape"]["value"] == [3, 8]
    assert facts["dtype"]["value"] == "float32"
    assert facts["device"]["value"] == "cpu"
    assert facts["params"]["value"] == 4 * 8 + 8
    assert facts["time"]["value"] == pytest.approx(float(record.func_duration))
    assert facts["flops"]["value"] == int(record.flops_forward)
    assert facts["bytes"]["value"] == 3 * 8 * 4
    assert facts["source"]["value"]["file"].endswith("models.py")
    assert facts["source"]["value"]["function"] == "TinyMLP.forward"
    assert facts["source"]["text"].startswith("models.py:")
    assert facts["source"]["detail"].startswith(facts["source"]["value"]["file"])
    _check_value(header, buffers, record.out)
    json.dumps(header, allow_nan=False)


def test_heatmap_cells_are_the_slice_scaled(tiny_log: Any) -> None:
    record = tiny_log["linear_1_1:1"]
    header, buffers = inspect_record(tiny_log, record, "linear_1_1:1")
    heat = header["value"]["heatmap"]
    assert (heat["rows"], heat["cols"], heat["slice"], heat["pooled"]) == (3, 8, "[:, :]", False)
    cells = np.frombuffer(buffers[heat["buffer"]], dtype=np.uint8).reshape(3, 8)
    data = record.out.detach().double().numpy()
    lo, hi = data.min(), data.max()
    assert (heat["lo"], heat["hi"]) == (lo, hi)
    assert cells.tolist() == np.rint((data - lo) / (hi - lo) * 255).astype(np.uint8).tolist()
    assert heat["mask_buffer"] is None


def test_bert_every_node_summarises_like_torch(bert_log: Any) -> None:
    source = make_source("model-explorer", bert_log)
    labels = {source.index.label_of(node_id) for node_id in source.index._by_id}  # type: ignore[attr-defined]
    assert len(labels) > 50
    for label in sorted(labels):
        record = source.record(label)
        header, buffers = inspect_record(bert_log, record, label)
        assert reply_size((header, buffers)) <= MAX_REPLY_BYTES
        json.dumps(header, allow_nan=False)
        assert _same(eval(header["expression"], {"log": bert_log}), record), label
        op = record if header["kind"] == "op" else record.ops[0]
        out = op.out
        if isinstance(out, torch.Tensor) and out.numel() and not out.is_complex():
            _check_value(header, buffers, out)


def test_bert_attention_scores_heatmap_is_a_2d_slice(bert_log: Any) -> None:
    source = make_source("model-explorer", bert_log)
    labels = [source.index.label_of(node_id) for node_id in source.index._by_id]  # type: ignore[attr-defined]
    label = next(label for label in labels if getattr(bert_log[label].out, "ndim", 0) == 4)
    record = bert_log[label]
    header, buffers = inspect_record(bert_log, record, label)
    heat = header["value"]["heatmap"]
    shape = list(record.out.shape)
    assert heat["slice"] == "[0, 0, :, :]"
    assert heat["slice_shape"] == shape[2:]
    assert len(buffers[heat["buffer"]]) == heat["rows"] * heat["cols"]


def test_module_record_shows_module_facts(bert_log: Any) -> None:
    module = bert_log.modules["encoder.layer.0"]
    header, buffers = inspect_record(bert_log, module, "encoder.layer.0")
    facts = _facts(header)
    assert header["kind"] == "module"
    assert header["value"] is None and buffers == []
    assert header["expression"] == 'log.modules["encoder.layer.0"]'
    assert eval(header["expression"], {"log": bert_log}) is module
    assert facts["address"]["value"] == "encoder.layer.0"
    assert facts["class"]["value"] == "BertLayer"
    # attention 4 x (64*64 + 64) + LayerNorm 128, intermediate 64*128 + 128, output 128*64 + 64 + 128
    assert facts["params"]["value"] == module.num_params == 33472
    assert facts["calls"]["value"] == 1
    assert facts["outputs"]["value"] == [str(label) for label in module.output_ops]


def test_module_with_two_calls_and_rolled_layer(two_pass_log: Any) -> None:
    header, _ = inspect_record(two_pass_log, two_pass_log.modules["shared"], "shared")
    assert _facts(header)["calls"]["text"] == "2 (shared:1, shared:2)"
    layer = two_pass_log["linear_1_1"]
    header, buffers = inspect_record(two_pass_log, layer, "linear_1_1")
    facts = _facts(header)
    assert header["kind"] == "layer"
    assert header["expression"] == 'log["linear_1_1"]'
    assert eval(header["expression"], {"log": two_pass_log}) is layer
    assert facts["passes"]["value"] == 2
    assert facts["time"]["value"] == pytest.approx(float(layer.total_func_duration))
    assert header["value"]["note"] == "value of pass 1 of 2"
    assert header["value"]["source"] == 'log["linear_1_1:1"].out'
    _check_value(header, buffers, two_pass_log["linear_1_1:1"].out)


def test_facts_torchlens_has_not_for_a_record_are_dashes_and_no_error(
    two_pass_log: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # A rolled layer of two passes has no per-pass pass index (torchlens refuses, typed), a Module
    # no dtype (AttributeError): those facts are absent, and nothing is reported.
    layer, module = two_pass_log["linear_1_1"], two_pass_log.modules["shared"]
    with caplog.at_level("WARNING", logger="torchlens_widgets.inspector.facts"):
        assert fact_of(layer, "pass_index") is None and fact_of(module, "dtype") is None
        for record, label in ((layer, "linear_1_1"), (module, "shared")):
            header, _ = inspect_record(two_pass_log, record, label)
            assert "torchlens error" not in [row["name"] for row in header["facts"]]
    assert caplog.records == []


def test_an_unexpected_torchlens_failure_is_shown_and_logged_not_a_dash(
    tiny_log: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A bug in torchlens (any exception but "no such fact for this record") must not pass for a
    # missing fact: the inspector shows the other facts, and a row naming the error; the log has it.
    record = tiny_log["linear_1_1:1"]

    def broken(_op: Any) -> Any:
        raise ZeroDivisionError("a bug in torchlens' parameter count")

    monkeypatch.setattr(type(record), "num_params", property(broken))  # read for two rows
    with caplog.at_level("WARNING", logger="torchlens_widgets.inspector.facts"):
        header, _ = inspect_record(tiny_log, record, "linear_1_1:1")
    rows = {row["name"]: row for row in header["facts"]}
    assert rows["op"]["value"] == "linear" and rows["dtype"]["value"] == "float32"  # the others stay
    assert [row["name"] for row in header["facts"]].count("torchlens error") == 1
    error = rows["torchlens error"]["text"]
    assert "num_params" in error and "ZeroDivisionError: a bug in torchlens' parameter count" in error
    assert any("num_params" in message for message in caplog.messages)
    json.dumps(header, allow_nan=False)


def test_nested_module_expressions_round_trip() -> None:
    log = tl.trace(Nest(), torch.randn(2, 4))
    for address in ("inner", "inner.0", "head", "self"):
        header, _ = inspect_record(log, log.modules[address], address)
        assert eval(header["expression"], {"log": log}) is log.modules[address]
    assert _facts(inspect_record(log, log.modules["inner"], "inner")[0])["params"]["value"] == 20


NAMES = ["😀 face", 'say "hi" \\ now', "tab\there\nnl", "\u202egnp_exe", "é中\U0001f9ea", "\x01\x7f"]


def test_quoted_names_are_python_literals_of_the_same_string() -> None:
    from torchlens_widgets.inspector.facts import python_string as _quote

    for name in [*NAMES, "\ud83d"]:  # a lone surrogate too
        literal = _quote(name)
        assert eval(literal) == name, (name, literal)
        assert literal.startswith('"') and "\n" not in literal
    # Printable characters stay readable; format characters (a bidi override) are escaped.
    assert _quote("😀 face") == '"😀 face"'
    assert _quote("\u202egnp") == '"\\u202egnp"'


def test_expressions_round_trip_for_astral_and_hostile_module_names() -> None:
    class Named(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name in NAMES:
                self.add_module(name, nn.Linear(4, 4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for child in self.children():
                x = child(x)
            return x

    log = tl.trace(Named(), torch.randn(2, 4))
    for name in NAMES:
        header, _ = inspect_record(log, log.modules[name], name)
        assert eval(header["expression"], {"log": log}) is log.modules[name], header["expression"]


# ----- values: non-finite, huge, unsaved, public --------------------------------------------------


def test_nan_and_inf_are_counted_and_stats_use_finite_values(nonfinite_log: Any) -> None:
    by_type = {nonfinite_log[label].layer_type: nonfinite_log[label] for label in nonfinite_log.layer_labels}
    for name in ("truediv", "log", "cat"):
        record = by_type[name]
        header, buffers = inspect_record(nonfinite_log, record, str(record.label))
        json.dumps(header, allow_nan=False)  # no NaN/Inf leaks into the JSON header
        _check_value(header, buffers, record.out)
    header, buffers = inspect_record(nonfinite_log, by_type["log"], str(by_type["log"].label))
    stats = header["value"]["stats"]
    assert (stats["nan_count"], stats["neginf_count"], stats["posinf_count"]) == (
        4,
        2,
        0,
    )  # log of -2, -1, -0.5, -3 and of 0, 0
    assert stats["min"] == pytest.approx(np.log(0.5)) and stats["max"] == pytest.approx(np.log(7.0))
    heat = header["value"]["heatmap"]
    mask = np.frombuffer(buffers[heat["mask_buffer"]], dtype=np.uint8).reshape(heat["rows"], heat["cols"])
    data = by_type["log"].out.numpy()
    assert (mask == MASK_NAN).tolist() == np.isnan(data).tolist()
    assert (mask == MASK_NEGINF).tolist() == np.isneginf(data).tolist()
    ratio = inspect_record(nonfinite_log, by_type["truediv"], "truediv")[0]["value"]
    assert ratio["stats"]["finite_count"] == 0
    assert ratio["stats"]["min"] is None and ratio["histogram"] is None
    ratio_mask = np.frombuffer(
        inspect_record(nonfinite_log, by_type["truediv"], "truediv")[1][ratio["heatmap"]["mask_buffer"]],
        dtype=np.uint8,
    )
    assert {MASK_NAN, MASK_POSINF, MASK_NEGINF} <= set(ratio_mask.tolist())


def test_100m_element_tensor_is_sampled_within_the_bound() -> None:
    torch.manual_seed(0)
    log = tl.trace(Huge(), torch.randn(10000))
    x = log["input_1"].out.double()
    for label in ("expand_1_1", "mul_1_2"):
        record = log[label]
        assert record.out.numel() == 100_000_000
        started = time.perf_counter()
        header, buffers = inspect_record(log, record, label)
        elapsed = time.perf_counter() - started
        assert reply_size((header, buffers)) <= MAX_REPLY_BYTES
        assert elapsed < 20, elapsed  # ~0.2-1.2 s measured on 2 vCPUs
        stats = header["value"]["stats"]
        assert stats["sampled"] is True
        assert stats["numel"] == 100_000_000
        assert 0 < stats["sample_size"] <= MAX_SAMPLE
        # Every column x[j] appears about equally often in the strided sample.
        assert stats["mean"] == pytest.approx(x.mean().item(), abs=2e-3)
        assert stats["std"] == pytest.approx(x.std().item(), rel=2e-3)
        assert stats["min"] >= x.min().item() and stats["max"] <= x.max().item()
        heat = header["value"]["heatmap"]
        assert (heat["rows"], heat["cols"]) == (HEATMAP_MAX_ROWS, HEATMAP_MAX_COLS)
        assert heat["sampled"] and heat["pooled"]


def test_huge_non_contiguous_view_is_not_copied() -> None:
    """A 10000 x 10000 expanded view (40 KB of storage) is summarised without materialising it."""
    code = (
        "import resource, torch\n"
        "from torchlens_widgets.inspector.tensors import summarize_tensor\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "view = torch.randn(10000).expand(10000, 10000)\n"
        "buffers = []\n"
        "out = summarize_tensor(view, buffers)\n"
        "grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before\n"
        "print(out['stats']['sampled'], grown)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    sampled, grown_kib = result.stdout.split()
    assert sampled == "True"
    assert int(grown_kib) < 300 * 1024  # float64 of the whole view would be 800 MB


def test_zero_dim_bool_and_int_tensors() -> None:
    for tensor in (torch.tensor(3.5), torch.tensor([True, False, True]), torch.arange(12).reshape(3, 4)):
        buffers: list[bytes] = []
        out = summarize_tensor(tensor, buffers)
        data = tensor.double().reshape(-1)
        assert out["stats"]["mean"] == pytest.approx(data.mean().item())
        assert (out["heatmap"] is None) == (tensor.dim() == 0)


def test_unsaved_values_say_so_with_torchlens_remedy() -> None:
    torch.manual_seed(0)
    from tests.helpers.models import TinyMLP

    partial = tl.trace(TinyMLP(), torch.randn(3, 4), save=tl.func("linear"))
    header, buffers = inspect_record(partial, partial["relu_1_2"], "relu_1_2")
    assert header["value"]["status"] == "not_saved"
    assert "not saved" in header["value"]["message"]
    assert "Remedy: re-run with save=" in header["value"]["message"]
    assert buffers == []
    assert _facts(header)["shape"]["value"] == [3, 8]  # facts are still there
    none_saved = tl.trace(
        TinyMLP(), torch.randn(3, 4), capture=tl.options.CaptureOptions(layers_to_save="none")
    )
    header, _ = inspect_record(none_saved, none_saved["linear_1_1"], "linear_1_1")
    assert header["value"]["status"] == "not_saved"
    assert "Remedy: re-run with save=" in header["value"]["message"]


def test_public_profile_drops_source_and_values(tiny_log: Any, bert_log: Any) -> None:
    local, _ = inspect_record(tiny_log, tiny_log["linear_1_1:1"], "linear_1_1:1")
    public, buffers = inspect_record(
        tiny_log, tiny_log["linear_1_1:1"], "linear_1_1:1", privacy_profile="public"
    )
    assert "source" in _facts(local)
    assert "source" not in _facts(public)
    assert public["value"]["status"] == "withheld" and buffers == []
    assert "privacy_profile='public'" in public["value"]["message"]
    assert "/" not in json.dumps(public)  # no path of any kind
    module, _ = inspect_record(bert_log, bert_log.modules["encoder"], "encoder", privacy_profile="public")
    assert "source" not in _facts(module)
    with pytest.raises(ValueError, match="privacy_profile"):
        inspect_record(tiny_log, tiny_log["linear_1_1:1"], "linear_1_1:1", privacy_profile="open")


def test_expression_round_trips_for_every_viewer_node(two_pass_log: Any) -> None:
    for viewer, granularity in (("model-explorer", "module"), ("netron", "op"), ("netron", "rolled")):
        source = make_source(viewer, two_pass_log, granularity)
        index = source.index
        for node_id in list(index._by_id):  # type: ignore[attr-defined]
            label = index.label_of(node_id)
            record = source.record(label)
            header, _ = inspect_record(two_pass_log, record, label)
            assert _same(eval(header["expression"], {"log": two_pass_log}), record), (viewer, label)


def test_gpt2_mlp_output_is_fast_and_small(gpt2_log: Any) -> None:
    label = str(gpt2_log.modules["transformer.h.0.mlp"].output_ops[0])
    record = gpt2_log[label]
    started = time.perf_counter()
    header, buffers = inspect_record(gpt2_log, record, label)
    elapsed = time.perf_counter() - started
    assert elapsed < 2, elapsed
    assert reply_size((header, buffers)) <= MAX_REPLY_BYTES
    assert header["value"]["stats"]["numel"] == 16 * 768
    _check_value(header, buffers, record.out)
