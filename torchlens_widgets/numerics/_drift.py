"""The arithmetic behind run_precision: casting the inputs, the dtype check, and each op's error gain.

torchlens' precision table says how far each op's output is from the reference; the gain divides
that by what the op's inputs already carried, so an op that CREATES error stands out from the
ones that only carry it on.
"""

from __future__ import annotations

import copy
import math
import sys
from typing import Any

import torch

from .._errors import PrecisionDtypeError
from ..inspector.facts import json_number
from ._records import record, saved_tensor, unique


def check_dtypes(dtype: Any, reference: Any) -> None:
    """Refuse a non-floating dtype, or a reference without more bits and a smaller eps."""
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise PrecisionDtypeError(dtype, reference, f"dtype {dtype} is not a floating-point dtype")
    if not isinstance(reference, torch.dtype) or not reference.is_floating_point:
        raise PrecisionDtypeError(dtype, reference, f"reference {reference} is not a floating-point dtype")
    low, high = torch.finfo(dtype), torch.finfo(reference)
    if not (high.bits > low.bits and high.eps < low.eps):
        raise PrecisionDtypeError(
            dtype,
            reference,
            f"the reference is not wider ({high.bits} bits, eps {high.eps:.3g} against "
            f"{low.bits} bits, eps {low.eps:.3g})",
        )


def cast_tree(value: Any, dtype: torch.dtype) -> Any:
    """A copy of an input tree with its floating tensors in ``dtype``; integer tensors stay as they are."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().to(dtype) if value.is_floating_point() else value
    if isinstance(value, dict):
        return {key: cast_tree(item, dtype) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(cast_tree(item, dtype) for item in value)
    if isinstance(value, list):
        return [cast_tree(item, dtype) for item in value]
    return value


def model_in(model: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """The model to run in ``dtype``: itself when already there, else a cast deep copy.

    torchlens copies the model for each run, so the caller's model is never touched either way. A
    model already in ``dtype``, wholly or in part (a mixed-precision model whose other modules the
    user kept wider, the fix being tried), runs exactly as it is.
    """
    floating = [t for t in (*model.parameters(), *model.buffers()) if t.is_floating_point()]
    if not floating or any(t.dtype == dtype for t in floating):
        return model
    return copy.deepcopy(model).to(dtype)


def row_eps(native_dtype: str, fallback: torch.dtype) -> float:
    """Machine eps of a row's native dtype ("torch.bfloat16"), or of the run's dtype."""
    candidate = getattr(torch, native_dtype.removeprefix("torch."), None)
    dtype = candidate if isinstance(candidate, torch.dtype) and candidate.is_floating_point else fallback
    return float(torch.finfo(dtype).eps)


def normwise_errors(trace: Any, rows: Any) -> dict[str, float | None]:
    """Each row's max absolute error over the reference output's scale (bounded by the native
    output's largest magnitude plus that error): its relative error as a tensor, from 0 to 1 (1: the
    output lost everything, as ``(h + c) - c`` does). torchlens' elementwise ``max_rel_err`` is
    dominated by elements the reference holds near zero (a sign flip there reads as an error of 100,
    and cubing it as 1e6); an error measured against the output's scale says how much of it is wrong."""
    errors: dict[str, float | None] = {}
    for row in rows:
        absolute = json_number(row.max_abs_err)
        out = saved_tensor(record(trace, row.label))
        finite = out.detach()[torch.isfinite(out)] if out is not None and out.is_floating_point() else None
        largest = float(finite.abs().max()) if finite is not None and finite.numel() else None
        if absolute is None or largest is None:
            errors[row.label] = None
        else:
            errors[row.label] = 0.0 if absolute == 0 else json_number(absolute / (largest + absolute))
    return errors


def gains(
    trace: Any, rows: Any, rel: dict[str, float | None], dtype: torch.dtype, reference: torch.dtype
) -> dict[str, float | None]:
    """Each row's (rel_error + eps) / (max rel_error of its compared parents + eps), ``rel`` being
    each row's relative error (normwise_errors).

    A graph input or buffer parent counts with the error of its upcast to the reference (0 when
    exact, as every upcast between standard float dtypes is); parents without a row (integer ops,
    skipped ops) and parents whose error is not finite are left out.
    """
    out: dict[str, float | None] = {}
    for row in rows:
        own = rel[row.label]
        if own is None:
            out[row.label] = None
            continue
        eps = row_eps(row.native_dtype, dtype)
        inherited = [e for e in _parent_errors(trace, row.label, rel, reference) if e is not None]
        gain = (own + eps) / (max(inherited, default=0.0) + eps)
        out[row.label] = gain if gain < sys.float_info.max else sys.float_info.max
    return out


def _parent_errors(
    trace: Any, label: str, rel: dict[str, float | None], reference: torch.dtype
) -> list[float | None]:
    """The error each parent of ``label`` already carried into it."""
    errors: list[float | None] = []
    for parent in unique(getattr(record(trace, label), "parents", ())):
        if parent in rel:
            errors.append(rel[parent])
            continue
        op = record(trace, parent)
        if bool(getattr(op, "is_input", False)) or bool(getattr(op, "is_buffer", False)):
            errors.append(upcast_error(saved_tensor(op), reference))
    return errors


def upcast_error(tensor: torch.Tensor | None, reference: torch.dtype) -> float | None:
    """The relative error (as normwise_errors measures it) of casting ``tensor`` to the reference dtype."""
    if tensor is None or not tensor.is_floating_point() or tensor.numel() == 0:
        return None
    native = tensor.detach().to(torch.float64)
    cast = tensor.detach().to(reference).to(torch.float64)
    both = torch.isfinite(native) & torch.isfinite(cast)
    if not bool(both.any()):
        return None
    diff = float((native - cast).abs()[both].max())
    return 0.0 if diff == 0 else json_number(diff / (float(native.abs()[both].max()) + diff))


def compute_labels(trace: Any) -> list[str]:
    """Labels of the trace's compute ops (not inputs, outputs or buffers; params are no ops)."""
    return [str(op.label) for op in trace.layer_list if bool(getattr(op, "is_compute_op", False))]


def floating_compute_labels(trace: Any) -> list[str]:
    """The compute ops that can lose precision: a non-empty floating-point output. Integer index
    arithmetic and empty tensors (a model's unused cache) have none to lose."""
    return [
        str(op.label)
        for op in trace.layer_list
        if bool(getattr(op, "is_compute_op", False))
        and getattr(getattr(op, "dtype", None), "is_floating_point", False)
        and _elements(getattr(op, "shape", None)) != 0
    ]


def _elements(shape: Any) -> int | None:
    """How many elements an output of ``shape`` holds (None when torchlens recorded no shape)."""
    return math.prod(int(size) for size in shape) if isinstance(shape, (tuple, list, torch.Size)) else None


def skip_reasons(skipped: Any) -> str:
    """ "4 non-floating, 4 empty tensor": torchlens' skip reasons, counted."""
    counts: dict[str, int] = {}
    for _label, reason in skipped:
        counts[str(reason)] = counts.get(str(reason), 0) + 1
    return ", ".join(f"{n} {reason}" for reason, n in counts.items())
