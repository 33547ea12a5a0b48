"""Where a reduced-precision run drifts from a wide reference: torchlens' bisect, ranked by gain.

``torchlens.debug.bisect_precision`` compares every op of a native-dtype run with a reference run
and names the first op past tolerance. Raw relative error grows downstream of where it was
created, so this module also ranks ops by error gain (their error over their inputs' error) and
traces the native run once more, under the bisect's own seed and capture options, for drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torchlens.debug import bisect_precision, isolated_capture
from torchlens.options import CaptureOptions

from .._errors import PrecisionPathError, PrecisionRunError
from ..inspector.facts import json_number
from ._drift import (
    cast_tree,
    check_dtypes,
    compute_labels,
    floating_compute_labels,
    gains,
    model_in,
    normwise_errors,
    skip_reasons,
)
from ._records import qualify

#: bisect_precision's own seed and capture options (torchlens/debug/_precision.py), so labels match.
BISECT_SEED = 0


@dataclass(frozen=True)
class OpDrift:
    """One op of the table: its error against the reference, and how much of it the op created."""

    label: str
    func_name: str
    # The op's max absolute error over its output's largest magnitude (what the drift overlay shows).
    rel_error: float | None
    abs_error: float | None
    gain: float | None  # rel_error over its inputs' largest rel_error (each + the dtype's eps)
    diverged: bool  # torchlens' verdict against its per-dtype tolerance
    record: Any = field(repr=False, compare=False)
    # torchlens' own max_rel_err (element by element; large where the reference is near zero).
    elementwise_rel_error: float | None = None


@dataclass
class PrecisionRun:
    """The native run to draw, torchlens' table for it, and each op's drift keyed by label."""

    trace: Any
    dtype: torch.dtype
    reference: torch.dtype
    result: Any
    drifts: dict[str, OpDrift]
    compute_ops: int  # every compute op of the native run
    floating_ops: int  # those with a non-empty floating-point output: what can drift

    @property
    def first_label(self) -> str | None:
        """torchlens' first op past tolerance (None when none drifted)."""
        label = self.result.label
        return None if label is None else str(label)

    @property
    def coverage(self) -> float:
        """Compared compute ops / the compute ops that can drift (a floating-point output; output
        mirrors have rows but are not compute ops, integer and empty outputs have nothing to lose)."""
        if self.floating_ops == 0:
            return 0.0
        return self._compared() / self.floating_ops

    def _compared(self) -> int:
        return sum(1 for drift in self.drifts.values() if _is_compute(drift.record))

    def ranking(self, k: int = 10) -> list[OpDrift]:
        """The k compute ops that created the most error: gain descending, then rel_error; None
        gains last. (An output mirror copies its op's value: it creates nothing, and is left out.)"""

        def key(drift: OpDrift) -> tuple[bool, float, float]:
            return (drift.gain is None, -(drift.gain or 0.0), -(drift.rel_error or 0.0))

        compute = [drift for drift in self.drifts.values() if _is_compute(drift.record)]
        return sorted(compute, key=key)[:k]

    def summary(self) -> str:
        """One line: the first drift, how many compute ops were compared, and what was skipped."""
        compared = self._compared()
        first = self.drifts.get(self.first_label or "")
        if first is not None:
            rel = "n/a" if first.rel_error is None else f"{first.rel_error:.2e}"
            head = f"First drift past tolerance at {first.label} ({first.func_name}, rel error {rel})"
        else:
            head = f"No op drifted past tolerance from the {_name(self.reference)} reference"
        skipped = self.result.skipped
        tail = f"; {len(skipped)} skipped ({skip_reasons(skipped)})" if skipped else "; none skipped"
        other = self.compute_ops - self.floating_ops
        rest = f" ({other} integer or empty ops have no precision to lose)" if other else ""
        ops = f"{compared} of {self.floating_ops} floating-point compute ops compared in {_name(self.dtype)}"
        return f"{head}; {ops}{rest}{tail}."


def run_precision(
    model: nn.Module,
    args: Any,
    kwargs: dict[str, Any] | None = None,
    *,
    dtype: torch.dtype = torch.bfloat16,
    reference: torch.dtype = torch.float64,
) -> PrecisionRun:
    """Run ``model`` in ``dtype`` against ``reference`` with torchlens' bisect, and trace it to draw.

    The caller's model and inputs are never changed: a cast deep copy runs (a model already in
    ``dtype`` runs as it is) on cast copies of the floating tensors in ``args``/``kwargs``.
    """
    check_dtypes(dtype, reference)
    native = model_in(model, dtype)
    cast_args = cast_tree(args, dtype)
    cast_kwargs = cast_tree(kwargs, dtype) if kwargs is not None else None
    try:
        trace = isolated_capture(
            native,
            cast_args,
            cast_kwargs,
            seed=BISECT_SEED,
            capture=CaptureOptions(layers_to_save="all"),
        )
    except Exception as exc:
        raise PrecisionRunError(dtype, exc, _failure_site(exc)) from exc
    try:
        result = bisect_precision(native, cast_args, cast_kwargs, reference_dtype=reference)
    except Exception as exc:
        where = f"(in torchlens' {_name(reference)} reference run or its comparison)"
        raise PrecisionRunError(dtype, exc, where) from exc
    missing = [row.label for row in result.rows if qualify(row.label) not in _labels(trace)]
    if missing:
        raise PrecisionPathError(missing)
    rel = normwise_errors(trace, result.rows)
    gain = gains(trace, result.rows, rel, dtype, reference)
    drifts = {
        row.label: OpDrift(
            label=row.label,
            func_name=row.func_name,
            rel_error=rel[row.label],
            elementwise_rel_error=json_number(row.max_rel_err),
            abs_error=json_number(row.max_abs_err),
            gain=gain[row.label],
            diverged=bool(row.diverged),
            record=trace[row.label],
        )
        for row in result.rows
    }
    floating = len(floating_compute_labels(trace))
    return PrecisionRun(trace, dtype, reference, result, drifts, len(compute_labels(trace)), floating)


def _labels(trace: Any) -> set[str]:
    """Every pass-qualified op label of a trace."""
    return {str(op.label) for op in trace.layer_list}


def _is_compute(record: Any) -> bool:
    """Whether a record is a compute op (not an input, output or buffer)."""
    return bool(getattr(record, "is_compute_op", False))


def _name(dtype: torch.dtype) -> str:
    """ "bfloat16" for torch.bfloat16."""
    return str(dtype).removeprefix("torch.")


def _failure_site(exc: BaseException) -> str:
    """ "(forward at model.py:8, after add_1_8_raw)" from torchlens' partial capture, when it has one."""
    try:
        import torchlens as tl

        facts = tl.report.explain(tl.partial.from_failed_capture(exc), format="json")
    except Exception:
        return ""
    after = facts.get("last_completed_op_label")
    boundary = facts.get("failing_boundary")
    parts = [str(boundary) if boundary else "", f"after {after}" if after else ""]
    joined = ", ".join(part for part in parts if part)
    return f"({joined})" if joined else ""
