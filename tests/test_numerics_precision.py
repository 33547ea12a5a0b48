"""run_precision: torchlens' bisect_precision table, ranked by error gain, over real runs of small
hand-written models and a 2-block GPT-2 (random weights), without touching the caller's model."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from torch import nn

from tests.helpers.models import Cancel, small_gpt2
from torchlens_widgets import PrecisionDtypeError, PrecisionPathError, PrecisionRunError
from torchlens_widgets.numerics import PrecisionRun, run_precision
from torchlens_widgets.numerics._drift import model_in


class Nested(nn.Module):
    """Floating inputs in a tuple, a list and a dict, beside integer token ids."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.lin = nn.Linear(4, 4)

    def forward(
        self, pair: tuple[torch.Tensor, list[torch.Tensor]], ids: torch.Tensor, *, extra: dict
    ) -> Any:
        a, (b,) = pair
        return self.lin(self.emb(ids) + a * b) + extra["bias"]


class NoLowPrecisionInverse(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        return torch.linalg.inv(y.T @ y + torch.eye(3, dtype=y.dtype))


class Float32Only(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.dtype == torch.float32, f"expected float32, got {x.dtype}"
        return x * 2


class DtypeDependentShape(nn.Module):
    """A slice whose length depends on the dtype: the compared shapes differ (torchlens says inf)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        return y[: 4 if y.dtype == torch.float64 else 3] + 1


class PathPerCall(nn.Module):
    """A forward that takes another path after its first call (a count kept outside each copy, as a
    global or a cache would be): torchlens' bisect runs other ops than the capture drawn."""

    calls = 0

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        type(self).calls += 1
        y = self.lin(x)
        return torch.relu(y) if type(self).calls == 1 else torch.tanh(y) * 2


@pytest.fixture(scope="module")
def cancel() -> PrecisionRun:
    torch.manual_seed(0)
    return run_precision(Cancel(), torch.randn(64))


@pytest.fixture(scope="module")
def gpt2() -> tuple[nn.Module, torch.Tensor, PrecisionRun]:
    model, ids = small_gpt2()
    return model, ids, run_precision(model, ids)


def _state(model: nn.Module) -> dict[str, torch.Tensor]:
    return {name: t.detach().clone() for name, t in model.state_dict().items()}


def _same(before: dict[str, torch.Tensor], model: nn.Module) -> bool:
    after = model.state_dict()
    return all(t.dtype == after[k].dtype and torch.equal(t, after[k]) for k, t in before.items())


def test_cancellation_ranks_first_by_gain_not_by_raw_error(cancel: PrecisionRun) -> None:
    top = cancel.ranking(1)[0]
    assert top.func_name == "__sub__" and top.label == cancel.first_label
    compute = [d for d in cancel.drifts.values() if d.record.is_compute_op]
    # Raw error (how far the output is off, as torchlens measures it) would blame exp, which comes later.
    worst_raw = max(compute, key=lambda d: d.abs_error or 0.0)
    assert worst_raw.func_name == "exp" and worst_raw.abs_error is not None and top.abs_error is not None
    assert worst_raw.abs_error > 10 * top.abs_error
    assert top.rel_error is not None and top.rel_error > 0.9  # the subtraction lost h entirely
    order = list(cancel.drifts)
    assert order.index(worst_raw.label) > order.index(top.label)
    by_func = {d.func_name: d for d in compute}
    assert top.gain is not None and top.gain > 50
    assert by_func["exp"].gain is not None and by_func["exp"].gain < top.gain / 3
    assert 0.9 < (by_func["__mul__"].gain or 0) < 1.1  # a multiply by 3 only carries the error
    assert (by_func["__add__"].gain or 0) < 2 and (by_func["tanh"].gain or 0) < 2
    assert cancel.summary().startswith(f"First drift past tolerance at {top.label} (__sub__")


def test_ranking_orders_by_gain_then_rel_error_with_none_last() -> None:
    run = run_precision(DtypeDependentShape(), torch.rand(4))
    ranked = run.ranking(k=len(run.drifts))
    gains = [d.gain for d in ranked]
    assert None in gains and gains.index(None) == len([g for g in gains if g is not None])
    known = [g for g in gains if g is not None]
    assert known == sorted(known, reverse=True)
    assert len(run.ranking(2)) == 2
    # Output mirrors copy their op's value: they create no error and are never ranked.
    assert all(drift.record.is_compute_op for drift in ranked)
    assert any(not drift.record.is_compute_op for drift in run.drifts.values())


def test_gpt2_bf16_covers_every_floating_compute_op(
    gpt2: tuple[nn.Module, torch.Tensor, PrecisionRun],
) -> None:
    _model, _ids, run = gpt2
    labels = {str(op.label) for op in run.trace.layer_list}
    assert all(row.label in labels for row in run.result.rows) and set(run.drifts) <= labels
    compute = [op for op in run.trace.layer_list if op.is_compute_op]
    assert run.compute_ops == len(compute) > 90
    # Everything torchlens could not compare is integer index arithmetic or an empty cache tensor:
    skipped = dict(run.result.skipped)
    uncompared = [str(op.label) for op in compute if str(op.label) not in run.drifts]
    assert uncompared and all(skipped[label] in ("non-floating", "empty tensor") for label in uncompared)
    # Those have no precision to lose; of the ops that can drift, torchlens compared every one.
    floating = [op for op in compute if op.dtype.is_floating_point and math.prod(op.shape) > 0]
    assert run.floating_ops == len(floating) == len(compute) - len(uncompared)
    assert run.coverage == 1.0
    # torchlens' derived tolerances (rtol = eps**0.5) pass random-weight GPT-2 in bf16 everywhere:
    assert run.first_label is None or run.first_label in labels
    assert run.ranking(1)[0].label in labels and run.dtype == torch.bfloat16
    assert {op.dtype for op in compute if op.dtype.is_floating_point} == {torch.bfloat16}
    assert f"of {len(floating)} floating-point compute ops compared in bfloat16" in run.summary()
    assert f"({len(uncompared)} integer or empty ops have no precision to lose)" in run.summary()


def test_the_callers_model_and_inputs_are_unchanged(
    gpt2: tuple[nn.Module, torch.Tensor, PrecisionRun],
) -> None:
    model, ids, _run = gpt2
    assert next(model.parameters()).dtype == torch.float32 and ids.dtype == torch.int64
    torch.manual_seed(0)
    nested = Nested()
    before = _state(nested)
    a, b, tokens, bias = torch.rand(4), torch.rand(4), torch.tensor([1, 2, 3]), torch.rand(4)
    inputs = [t.clone() for t in (a, b, tokens, bias)]
    run = run_precision(nested, ((a, [b]), tokens), {"extra": {"bias": bias}})
    assert _same(before, nested)
    for original, now in zip(inputs, (a, b, tokens, bias), strict=True):
        assert now.dtype == original.dtype and torch.equal(now, original)
    fed = {str(op.label): op.dtype for op in run.trace.layer_list if op.is_input}
    assert sorted(map(str, fed.values())) == ["torch.bfloat16"] * 3 + ["torch.int64"]


def test_dtype_errors() -> None:
    x = torch.rand(3)
    with pytest.raises(PrecisionDtypeError, match="not a floating-point dtype") as not_float:
        run_precision(Float32Only(), x, dtype=torch.int8)
    with pytest.raises(PrecisionDtypeError, match="not wider") as narrow:
        run_precision(Float32Only(), x, dtype=torch.float32, reference=torch.float16)
    with pytest.raises(PrecisionDtypeError):
        run_precision(Float32Only(), x, dtype=torch.float16, reference=torch.bfloat16)
    for error in (not_float.value, narrow.value):
        assert isinstance(error, ValueError) and "Remedy: " in str(error) and str(error).endswith(").")


@pytest.mark.filterwarnings("ignore::UserWarning:torchlens")  # torchlens' own note on the failed capture
def test_a_model_that_fails_in_bf16_raises_precision_run_error() -> None:
    with pytest.raises(PrecisionRunError) as inverse:
        run_precision(NoLowPrecisionInverse(), torch.rand(1, 3))
    message = str(inverse.value)
    assert isinstance(inverse.value, RuntimeError) and isinstance(inverse.value.__cause__, RuntimeError)
    assert "linalg.inv" in message and "bfloat16" in message and "Remedy: run it in float32" in message
    assert "forward at " in message and "test_numerics_precision.py:" in message
    with pytest.raises(PrecisionRunError, match="AssertionError: expected float32") as asserted:
        run_precision(Float32Only(), torch.rand(3))
    assert isinstance(asserted.value.__cause__, AssertionError)


def test_a_forward_that_changes_path_between_calls_raises_a_typed_error_with_the_remedy() -> None:
    PathPerCall.calls = 0
    with pytest.raises(PrecisionPathError) as changed:
        run_precision(PathPerCall(), torch.rand(1, 3))
    message = str(changed.value)
    assert isinstance(changed.value, RuntimeError)  # what it was before it had a type of its own
    assert "tanh" in message and "another path" in message
    assert "Remedy: " in message and "bisect_precision" in message


def test_a_model_already_in_bf16_runs_as_it_is() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.GELU()).to(torch.bfloat16)
    before = _state(model)
    assert model_in(model, torch.bfloat16) is model  # no cast copy; torchlens copies it per run
    run = run_precision(model, torch.rand(2, 4))
    assert _same(before, model) and run.drifts
    assert {row.native_dtype for row in run.result.rows} == {"torch.bfloat16"}


def test_every_drift_number_is_finite_or_none(cancel: PrecisionRun, gpt2: Any) -> None:
    shapes = run_precision(DtypeDependentShape(), torch.rand(4))
    mismatch = [d for d in shapes.drifts.values() if d.rel_error is None]
    assert mismatch and all(d.gain is None and d.diverged for d in mismatch)
    for run in (cancel, gpt2[2], shapes):
        for drift in run.drifts.values():
            for number in (drift.rel_error, drift.abs_error, drift.gain):
                assert number is None or math.isfinite(number)
            assert drift.record is run.trace[drift.label] or drift.record.label == drift.label
