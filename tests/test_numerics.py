"""explain_nonfinite answers exactly as torchlens' nonfinite_frontier does, on a corpus of seeded
faults (real traces of small hand-written models and a 2-block GPT-2), and input_ranges measures
what an op consumed against its dtype's limits."""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.notebook.frontier import nonfinite_frontier
from torchlens.options import CaptureOptions

from tests.helpers.models import small_gpt2, with_inf
from torchlens_widgets.numerics import explain_nonfinite, input_ranges
from torchlens_widgets.numerics.ranges import NOT_SAVED


class Fn(nn.Module):
    """A model whose forward is one function (with an optional Linear), for the one-line faults."""

    def __init__(self, fn: Callable[..., torch.Tensor], width: int = 0) -> None:
        super().__init__()
        self.fn = fn
        self.lin = nn.Linear(width, width) if width else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(self, x)


class LogBlock(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log(x) * 2


class CalledTwice(nn.Module):
    """The same block twice: its first call sees positive values, its second negative ones."""

    def __init__(self) -> None:
        super().__init__()
        self.blk = LogBlock()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.blk(x)
        return self.blk(y - 10) + 1


def _in_place_log(_m: nn.Module, x: torch.Tensor) -> torch.Tensor:
    y = x - 5
    y.log_()
    return y * 2


def _in_place_div(_m: nn.Module, x: torch.Tensor) -> torch.Tensor:
    y = x * 1
    y.div_(0)
    return y + 1


def _loop(_m: nn.Module, x: torch.Tensor) -> torch.Tensor:
    for _ in range(4):  # 2 -> 0.41 -> -0.36 -> sqrt of a negative in pass 3
        x = torch.sqrt(x) - 1
    return x


def _norm(_m: nn.Module, x: torch.Tensor) -> torch.Tensor:
    z = x * 0
    return z / torch.sqrt((z * z).sum())


def _fp16_matmul(m: nn.Module, x: torch.Tensor) -> torch.Tensor:
    big = x * 60000  # 0.92 of fp16's max: finite, then the product's sums overflow
    return big @ torch.ones(8, 4, dtype=x.dtype)


def _nan_weight() -> nn.Module:
    model = Fn(lambda m, x: torch.relu(m.lin(x)), width=4)
    with torch.no_grad():
        model.lin.weight[0, 0] = float("nan")
    return model


def _log_negative() -> nn.Module:
    return Fn(lambda m, x: torch.log(m.lin(x) - 100) + 1, width=4)


@dataclass(frozen=True)
class Fault:
    name: str
    model: Callable[[], nn.Module]
    x: Callable[[], torch.Tensor]
    producers: tuple[str, ...]  # the producers' func names, in order
    check: Callable[[Any, tuple[str, ...]], None] = lambda trace, producers: None


def _nan_input() -> torch.Tensor:
    x = torch.rand(3, 4)
    x[1, 2] = float("nan")
    return x


def _first_is_input(trace: Any, producers: tuple[str, ...]) -> None:
    assert trace[producers[0]].is_input


def _pass(n: int) -> Callable[[Any, tuple[str, ...]], None]:
    def check(trace: Any, producers: tuple[str, ...]) -> None:
        assert producers[0].endswith(f":{n}")

    return check


def _second_call(trace: Any, producers: tuple[str, ...]) -> None:
    # Not a pass of the first call's log: torchlens labels it a layer of its own, called in blk:2.
    assert trace[producers[0]].module == "blk:2"
    first_log = next(op for op in trace.layer_list if op.func_name == "log")
    assert first_log.module == "blk:1" and str(first_log.label) not in trace.nonfinite_ops


def _gpt2_inf() -> nn.Module:
    return with_inf(small_gpt2()[0])


FAULTS = (
    Fault("log of a negative", _log_negative, lambda: torch.rand(3, 4), ("log",)),
    Fault(
        "sqrt of a negative", lambda: Fn(lambda m, x: torch.sqrt(x - 10)), lambda: torch.rand(5), ("sqrt",)
    ),
    Fault("0/0 in a hand-written norm", lambda: Fn(_norm), lambda: torch.rand(2, 3), ("__truediv__",)),
    Fault("inf * 0", lambda: Fn(lambda m, x: (x * 0.0) * math.inf), lambda: torch.rand(4), ("__mul__",)),
    Fault("fp16 matmul overflow", lambda: Fn(_fp16_matmul), lambda: torch.ones(4, 8).half(), ("__matmul__",)),
    Fault(
        "fp16 exp overflow",
        lambda: Fn(lambda m, x: torch.exp(x * 12) - 1),
        lambda: torch.ones(3).half(),
        ("exp",),
    ),
    Fault("a NaN input", lambda: Fn(lambda m, x: (x * 2).sum()), _nan_input, ("none",), _first_is_input),
    Fault("a NaN weight", _nan_weight, lambda: torch.rand(2, 4), ("linear",)),
    Fault(
        "divide by the std of a constant",
        lambda: Fn(lambda m, x: (x - x.mean()) / x.std()),
        lambda: torch.full((6,), 3.0),
        ("__truediv__",),
    ),
    Fault(
        "two producers in two branches",
        lambda: Fn(lambda m, x: torch.log(x - 5) + torch.sqrt(x - 5)),
        lambda: torch.rand(4),
        ("log", "sqrt"),
    ),
    Fault(
        "NaN born in pass 3 of a loop", lambda: Fn(_loop), lambda: torch.full((3,), 2.0), ("sqrt",), _pass(3)
    ),
    Fault("in-place log_", lambda: Fn(_in_place_log), lambda: torch.rand(4), ("log_",)),
    Fault("in-place div_ by 0", lambda: Fn(_in_place_div), lambda: torch.tensor([0.0, 1.0]), ("div_",)),
    Fault("a module called twice", CalledTwice, lambda: torch.rand(4) + 1, ("log",), _second_call),
    Fault("GPT-2 with an inf weight", _gpt2_inf, lambda: small_gpt2()[1], ("addmm",)),
)


def _trace(fault: Fault) -> Any:
    torch.manual_seed(0)
    model, x = fault.model(), fault.x()
    with torch.no_grad():
        return tl.trace(model.eval(), x)


@pytest.fixture(scope="module")
def traces() -> dict[str, Any]:
    return {fault.name: _trace(fault) for fault in FAULTS}


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.name for fault in FAULTS])
def test_explanation_is_torchlens_frontier(fault: Fault, traces: dict[str, Any]) -> None:
    trace = traces[fault.name]
    frontier = nonfinite_frontier(trace)
    answer = explain_nonfinite(trace)
    assert answer.producer_labels == tuple(s.label for s in frontier.sites if s.role == "first_dirty")
    assert answer.parent_labels == tuple(s.label for s in frontier.sites if s.role == "parent")
    assert answer.flagged_total == frontier.flagged_total == len(trace.nonfinite_ops)
    assert answer.coverage == frontier.coverage
    assert len(answer.producer_labels) + len(answer.propagated_labels) == answer.flagged_total
    assert answer.propagated == len(answer.propagated_labels)
    assert not set(answer.producer_labels) & set(answer.propagated_labels)
    assert answer.found
    assert tuple(trace[label].func_name for label in answer.producer_labels) == fault.producers
    order = {str(op.label): i for i, op in enumerate(trace.layer_list)}
    carried = [order[label] for label in answer.propagated_labels]
    assert carried == sorted(carried)  # execution order
    assert answer.producer_labels[0] in answer.status and answer.coverage in answer.status
    fault.check(trace, answer.producer_labels)


def test_status_names_the_producer_its_module_and_the_carriers(traces: dict[str, Any]) -> None:
    answer = explain_nonfinite(traces["GPT-2 with an inf weight"])
    first = answer.producer_labels[0]
    assert answer.status.startswith(f"inf born at {first} (transformer.h.0.attn.c_proj), 1 producer;")
    assert f"; {answer.propagated} ops carry it. Coverage: {answer.coverage}" in answer.status
    two = explain_nonfinite(traces["two producers in two branches"])
    assert "2 producers (also " + two.producer_labels[1] + ")" in two.status
    assert explain_nonfinite(traces["a NaN input"]).status.startswith("NaN born at input_1:1 (a graph input)")


def test_clean_model_says_nothing_was_found_and_quotes_the_coverage() -> None:
    trace = tl.trace(nn.Sequential(nn.Linear(4, 4), nn.ReLU()), torch.rand(2, 4))
    answer = explain_nonfinite(trace)
    assert not answer.found and answer.flagged_total == 0
    assert answer.producer_labels == answer.propagated_labels == answer.parent_labels == ()
    assert "No non-finite value was found" in answer.status and answer.coverage in answer.status
    assert "clean" not in answer.status.lower()


def test_nothing_checked_is_not_called_clean() -> None:
    model, x = Fn(lambda m, v: v * 2), _nan_input()
    unsaved = explain_nonfinite(tl.trace(model, x, capture=CaptureOptions(layers_to_save="none")))
    assert not unsaved.found and "checked=0" in unsaved.coverage
    assert "checked no op output (no verdict)" in unsaved.status and unsaved.coverage in unsaved.status
    # Capture-time checks cover unsaved ops: the same NaN input is then found, values unseen.
    options = CaptureOptions(layers_to_save="none", track_nonfinite=True)
    tracked = explain_nonfinite(tl.trace(model, x, capture=options))
    assert tracked.producer_labels == ("input_1:1",) and "basis='capture'" in tracked.coverage
    assert tracked.status.startswith("Non-finite value born at input_1:1 (a graph input)")


def test_fp16_overflow_inputs_sit_at_the_dtype_limit(traces: dict[str, Any]) -> None:
    trace = traces["fp16 matmul overflow"]
    producer = explain_nonfinite(trace).producer_labels[0]
    big, ones = input_ranges(trace, producer)
    assert ones["abs_max"] == 1.0 and ones["fraction_of_max"] is not None and ones["fraction_of_max"] < 1e-4
    assert big["label"] == trace[producer].parents[0] + ":1"
    assert big["dtype"] == "torch.float16" and big["dtype_max"] == 65504.0
    assert big["fraction_of_max"] is not None and big["fraction_of_max"] >= 0.9
    assert (
        big["abs_max"] == big["maximum"] == big["minimum"] == 60000.0
        and big["nan_count"] == big["inf_count"] == 0
    )
    assert "dtype_near_max" in big["finding"] or "dtype_max=65504" in big["finding"]


def test_a_nan_weight_shows_in_its_producers_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    # torchlens counts no parameter as an op: the linear that reads the weight is the producer, and
    # its ranges name the weight that brought the NaN in.
    model = _nan_weight()
    trace = tl.trace(model, torch.rand(2, 4))
    producer = explain_nonfinite(trace).producer_labels[0]
    by_label = {entry["label"]: entry for entry in input_ranges(trace, producer)}
    assert by_label["lin.weight"]["nan_count"] == 1 and by_label["lin.bias"]["nan_count"] == 0
    assert by_label["lin.weight"]["dtype"] == "torch.float32"
    # Any other failure to read the value is torchlens' bug, not a freed model: the row names it
    # (and the log has its traceback), the op's other rows stay.
    param_class = type(next(iter(trace[producer].params.values())))

    def broken(_param: Any) -> Any:
        raise ValueError("a bug in torchlens")

    monkeypatch.setattr(param_class, "value", property(broken))
    rows = {entry["label"]: entry for entry in input_ranges(trace, producer)}
    assert "model was freed" not in rows["lin.weight"]["finding"]
    assert "ValueError: a bug in torchlens" in rows["lin.weight"]["finding"]
    assert (
        rows["lin.weight"]["maximum"] is None
        and rows[trace[producer].parents[0] + ":1"]["maximum"] is not None
    )


def test_a_parameter_of_a_freed_model_says_so() -> None:
    # torchlens keeps no copy of a parameter: once the model is freed, reading it raises torchlens'
    # PostTraceParamUnavailable, and the row says so instead of a range.
    model = _nan_weight()
    trace = tl.trace(model, torch.rand(2, 4))
    producer = next(op.label for op in trace.layer_list if op.func_name == "linear")
    del model
    gc.collect()
    gone = {entry["label"]: entry for entry in input_ranges(trace, producer)}["lin.weight"]
    assert gone["nan_count"] == 0 and gone["maximum"] is None and "model was freed" in gone["finding"]
    assert gone["dtype"] == "torch.float32"


def test_ranges_follow_argument_order_dedupe_and_include_graph_inputs() -> None:
    model = Fn(lambda m, x: torch.cat([x * 2, x, x * 2 + 1, x]))
    trace = tl.trace(model, torch.rand(3))
    cat = next(op for op in trace.layer_list if op.func_name == "cat")
    ranges = input_ranges(trace, cat.label)
    assert [r["label"] for r in ranges] == list(
        dict.fromkeys(p if ":" in p else p + ":1" for p in cat.parents)
    )
    assert any(trace[r["label"]].is_input for r in ranges) and all(r["finding"] == "" for r in ranges)


def test_ranges_count_non_finite_inputs(traces: dict[str, Any]) -> None:
    trace = traces["a NaN input"]
    consumer = next(op for op in trace.layer_list if op.func_name == "__mul__")
    (x,) = input_ranges(trace, consumer.label)
    assert (
        (x["nan_count"], x["inf_count"]) == (1, 0) and x["minimum"] is not None and x["dtype_max"] is not None
    )
    div = traces["in-place div_ by 0"]
    after = explain_nonfinite(div).propagated_labels[0]
    (y,) = input_ranges(div, after)
    assert (y["nan_count"], y["inf_count"]) == (1, 1) and y["minimum"] is None and y["finding"] != ""


def test_unsaved_inputs_give_none_values_and_say_so() -> None:
    model = _log_negative()
    full = tl.trace(model, torch.rand(2, 4))
    log = next(op.label for op in full.layer_list if op.func_name == "log")
    trace = tl.trace(model, torch.rand(2, 4), capture=CaptureOptions(layers_to_save=[log.split(":")[0]]))
    (sub,) = input_ranges(trace, log)
    assert sub["minimum"] is sub["maximum"] is sub["abs_max"] is sub["fraction_of_max"] is None
    assert sub["dtype"] == "torch.float32" and sub["dtype_max"] is not None and NOT_SAVED in sub["finding"]


def test_every_range_dumps_as_strict_json(traces: dict[str, Any]) -> None:
    for trace in traces.values():
        for op in trace.layer_list:
            for entry in input_ranges(trace, str(op.label)):
                json.dumps(entry, allow_nan=False)
