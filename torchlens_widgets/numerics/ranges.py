"""The values an op consumed, against its inputs' dtype limits (an fp16 overflow shows here first).

The findings are torchlens' ``dtype_range_audit`` messages; this module only measures the saved
inputs (min, max, NaN and inf counts) so a widget can show them next to the op.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
from torchlens.debug import dtype_range_audit
from torchlens.errors import PostTraceParamUnavailable

from .._protocol import InputRangeRow
from ..inspector.facts import json_number
from ._records import qualify, record

#: What ``finding`` says for an input torchlens kept no values of (the audit could not look at it).
NOT_SAVED = "values not saved: torchlens kept no payload for this input, so its range is unknown"
MODEL_FREED = (
    "value unavailable: torchlens keeps no copy of a parameter, and the model was freed since the trace"
)

log = logging.getLogger(__name__)


# One input of an op against its dtype's limits; every float is finite or None (the inspector's row, as is).
InputRange = InputRangeRow


def input_ranges(trace: Any, label: str) -> list[InputRange]:
    """The op's inputs (its parents, argument order, each once), measured as the op consumed them.

    A graph input is included like any parent. An input whose values were not saved gets None
    values and says so in ``finding``. torchlens' audit covers compute ops only, so a graph input's
    ``finding`` is "" unless its values are missing.
    """
    op = record(trace, label)
    parents = [qualify(str(parent)) for parent in (op.parents or ())]
    try:
        consumed: tuple[Any, ...] = tuple(op.input_activations)
    except (ValueError, AttributeError, RuntimeError, KeyError):
        consumed = (None,) * len(parents)
    findings = _findings_by_op(trace)
    ranges: list[InputRange] = []
    seen: set[str] = set()
    for parent, value in zip(parents, consumed, strict=False):
        if parent in seen:
            continue
        seen.add(parent)
        tensor = value if isinstance(value, torch.Tensor) else None
        ranges.append(_measure(trace, parent, tensor, findings.get(parent, "")))
    return ranges + _parameter_ranges(trace, op)


def _parameter_ranges(trace: Any, op: Any) -> list[InputRange]:
    """The op's parameters, by address: torchlens counts no parameter as a parent op, so a NaN weight
    makes the op that reads it the frontier's producer, and this row says where it came from. The
    value is the live parameter (torchlens keeps no copy of it)."""
    params = getattr(op, "params", None)
    ranges = []
    for param in params.values() if params is not None else ():
        try:
            value = param.value
        except PostTraceParamUnavailable:  # the model was freed (or the parameter removed) since the trace
            ranges.append(_measure(trace, str(param.address), None, "", param.dtype, MODEL_FREED))
            continue
        except Exception as error:  # torchlens' own failure: said in the row, its traceback in the log
            log.warning("torchlens failed to read parameter %s", param.address, exc_info=True)
            failed = f"value unavailable: torchlens raised {type(error).__name__}: {error}"
            ranges.append(_measure(trace, str(param.address), None, "", param.dtype, failed))
            continue
        tensor = value if isinstance(value, torch.Tensor) else None
        ranges.append(_measure(trace, str(param.address), tensor, ""))
    return ranges


def _findings_by_op(trace: Any) -> dict[str, str]:
    """torchlens' dtype-range findings, joined per op label they name."""
    joined: dict[str, list[str]] = {}
    for finding in dtype_range_audit(trace).findings:
        for label in finding.ops:
            joined.setdefault(qualify(str(label)), []).append(str(finding.message))
    return {label: "; ".join(messages) for label, messages in joined.items()}


def _measure(
    trace: Any,
    label: str,
    tensor: torch.Tensor | None,
    finding: str,
    dtype: Any = None,
    missing: str = NOT_SAVED,
) -> InputRange:
    """Min, max, |max| of the finite values, and the non-finite counts, of one consumed input."""
    dtype = tensor.dtype if tensor is not None else dtype or _recorded_dtype(trace, label)
    limit = _dtype_max(dtype)
    nan_count = inf_count = 0
    minimum = maximum = abs_max = None
    if tensor is None:
        finding = "; ".join(filter(None, [finding, missing]))
    else:
        values = tensor.detach()
        if values.is_floating_point() or values.is_complex():
            nan_count = int(torch.isnan(values).sum())
            inf_count = int(torch.isinf(values).sum())
            finite = values[torch.isfinite(values)]
        else:
            finite = values.reshape(-1)
        if finite.numel() and not finite.is_complex() and finite.dtype != torch.bool:
            wide = finite.to(torch.float64)
            minimum, maximum = json_number(float(wide.min())), json_number(float(wide.max()))
            abs_max = json_number(float(wide.abs().max()))
    fraction = json_number(abs_max / limit) if abs_max is not None and limit else None
    return InputRange(
        label=label,
        dtype=str(dtype),
        minimum=minimum,
        maximum=maximum,
        abs_max=abs_max,
        dtype_max=limit,
        fraction_of_max=fraction,
        nan_count=nan_count,
        inf_count=inf_count,
        finding=finding,
    )


def _recorded_dtype(trace: Any, label: str) -> Any:
    """The dtype torchlens recorded for an op whose values it did not keep."""
    try:
        return getattr(record(trace, label), "dtype", None)
    except (KeyError, ValueError, IndexError):
        return None


def _dtype_max(dtype: Any) -> float | None:
    """torch.finfo(dtype).max for a floating dtype, else None."""
    if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
        return float(torch.finfo(dtype).max)
    return None
