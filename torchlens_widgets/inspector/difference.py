"""The diff inspector's third panel: what changed between the two captures' values of one node; and an
explorer's baseline section, which shows the same value summary beside torchlens' row for the node.

Facts (max |Δ|, ‖Δ‖, relative ‖Δ‖, changed elements, torchlens' own delta) and the value summary of
``b - a`` (statistics, histogram, heatmap) with the inspector's bounded, binary encoding. Like the
inspector, it reads at most ``MAX_SAMPLE`` elements of each side (the same strided positions) and one
strided 2-D slice, as float64 on the CPU, so a 100M-element activation (on any device) costs the same
as a 4M-element one; past that bound the facts are estimates and say so ("sampled"). A node that
cannot be compared says why (one side only, a value not saved, shapes or dtypes that differ) instead
of showing a zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import torch

from .._protocol import BaselineSection, FactRow, InspectRecord, Reply, ValueSection
from .._trace import record_for_label
from ..diffing.baseline import BaselineFacts, NodeFacts
from .facts import (
    dtype_text,
    fact_of,
    fact_row,
    first_op,
    json_number,
    python_string,
    record_kind,
    shape_text,
)
from .tensors import bounded_read, summarize_read

_NUMERIC = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def saved_value(record: Any) -> torch.Tensor | str:
    """The tensor an op (or a rolled layer's first pass) computed, or why there is none."""
    if record is None:
        return "the node is not in this capture"
    kind = record_kind(record)
    if kind in ("module", "module_call"):
        return "a module box has no single value (select one of its ops)"
    op = first_op(record) if kind == "layer" else record
    try:
        value = op.out if op is not None else None
    except Exception as error:  # torchlens' PayloadUnavailableError on a capture that saved no values
        return f"its value was not saved ({type(error).__name__})"
    if value is None:
        return "its value was not saved"
    if not isinstance(value, torch.Tensor):
        return f"its value is a {type(value).__name__}, not a tensor"
    return value.detach()


def difference_reply(
    record_a: Any,
    record_b: Any,
    label: str,
    names: tuple[str, str],
    torchlens_delta: float | None,
    *,
    public: bool = False,
) -> Reply[InspectRecord]:
    """Header and buffers for the inspector panel showing ``b - a`` for node ``label``.

    ``public`` (privacy_profile="public") withholds it: a difference is value-derived data.
    """
    name_a, name_b = names
    expression = f"log_b[{python_string(label)}].out - log_a[{python_string(label)}].out"
    header = InspectRecord(
        kind="difference",
        label=label,
        title=f"{name_b} - {name_a}",
        expression=expression,
        privacy_profile="public" if public else "local",
        facts=[],
        value=None,
    )
    if public:
        header["facts"] = [
            fact_row("comparable", "comparable", False, "withheld: privacy_profile='public' drops values")
        ]
        return header, []
    buffers: list[bytes] = []
    comparison = compare(record_a, record_b, names, expression, torchlens_delta, buffers)
    if comparison.reason is not None:
        header["facts"] = [fact_row("comparable", "comparable", False, f"no: {comparison.reason}")]
        return header, buffers
    header["facts"], header["value"] = comparison.facts, comparison.value
    return header, buffers


def baseline_section(
    log: Any, ref: Any, facts: BaselineFacts, label: str, record: Any, buffers: list[bytes]
) -> BaselineSection:
    """The selected node of an explorer against its baseline ``ref``: torchlens' ``diff_report`` row
    (``facts``, computed once per baseline) and the summary of ``log[...].out - ref[...].out`` as
    :func:`difference_reply` makes it, its buffers appended to ``buffers`` (the reply's).

    ``record`` is the selected record (for why a module box or a multi-pass layer has no row).
    """
    reference = facts.reference
    section = BaselineSection(reference=reference, facts=[], value=None)
    row = facts.row_for(label)
    if row is None:
        section["message"] = _without_row(record, reference)
        return section
    section["facts"] = _row_facts(row, reference)
    if row.reference_label is None:  # one-sided: torchlens paired no op of the baseline with it
        paired = "not in" if row.status == "added" else "not paired with an op of"
        section["message"] = f"{paired} {reference}"
        return section
    expression = (
        f"log[{python_string(row.subject_label)}].out - ref[{python_string(row.reference_label)}].out"
    )
    # torchlens' own max |Δ| is the row's; the difference's measures are not repeated beside it.
    comparison = compare(
        _record(ref, row.reference_label),
        _record(log, row.subject_label),
        (reference, "this trace"),
        expression,
        None,
        buffers,
    )
    if comparison.reason is not None:
        section["message"] = f"no difference: {comparison.reason}"
    else:
        section["value"] = comparison.value
    return section


@dataclass(frozen=True)
class Comparison:
    """``b - a`` of one node: its measures and value summary, or why the two cannot be compared."""

    facts: list[FactRow]
    value: ValueSection | None
    reason: str | None = None


def compare(
    record_a: Any,
    record_b: Any,
    names: tuple[str, str],
    source: str,
    torchlens_delta: float | None,
    buffers: list[bytes],
) -> Comparison:
    """The measures and value summary of ``b - a`` (``source`` is its Python expression); the summary's
    buffers are appended to ``buffers`` and its indices point there."""
    a, b = saved_value(record_a), saved_value(record_b)
    reason = _not_comparable(a, b, names)
    if reason is not None:
        return Comparison([], None, reason)
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    if a.numel() == 0:
        return Comparison(
            [fact_row("shape", "shape", list(a.shape), shape_text(list(a.shape)))],
            ValueSection(status="empty", source=source, message="No elements."),
        )
    with torch.no_grad():
        # Bounded like the inspector: the same strided positions of a and b (at most MAX_SAMPLE
        # elements and one strided 2-D slice), as float64 on the CPU; never a full-size copy.
        read_a, read_b = bounded_read(a), bounded_read(b)
        difference = read_b.minus(read_a)
        exact = difference.sample
        sampled = difference.step > 1
        numel, seen = a.numel(), exact.numel()
        scale = numel / seen  # a sum over the sample stands for the whole tensor's
        norm_a = float(torch.linalg.vector_norm(read_a.sample)) * math.sqrt(scale)
        norm = float(torch.linalg.vector_norm(exact)) * math.sqrt(scale)
        changed = int(torch.count_nonzero(exact))
        estimate = "≈" if sampled else ""
        facts = [
            fact_row("shape", "shape", list(a.shape), shape_text(list(a.shape))),
            _measure("max_abs", "max |Δ| (of the sample)" if sampled else "max |Δ|", _max_abs(exact)),
            _measure("l2", f"‖Δ‖ (L2){' ≈' if sampled else ''}", norm),
            _measure("relative", "‖Δ‖ / ‖a‖", norm / norm_a if norm_a else None),
            fact_row(
                "changed",
                "changed elements",
                round(changed * scale) if sampled else changed,
                f"{estimate}{round(changed * scale):,} of {numel:,}"
                + (f" ({changed:,} of {seen:,} sampled)" if sampled else ""),
            ),
            _measure("torchlens_delta", "torchlens delta", torchlens_delta),
        ]
        if sampled:
            facts.insert(
                1,
                fact_row(
                    "sampled",
                    "sampled",
                    True,
                    f"every {difference.step:,}th of {numel:,} elements (estimates, like the inspector)",
                ),
            )
        value = {
            "shape": list(a.shape),
            "dtype": dtype_text(torch.promote_types(a.dtype, b.dtype)),
            "numel": numel,
            **summarize_read(difference, buffers),
        }
    return Comparison(facts, cast(ValueSection, {"status": "summary", "source": source, **value}))


def _row_facts(row: NodeFacts, reference: str) -> list[FactRow]:
    """torchlens' row as it gave it: only the fields it filled (max |Δ| on value rows only)."""
    facts = [fact_row("status", "status", row.status, row.status.replace("_", " "))]
    if row.max_abs_delta is not None:
        facts.append(_measure("max_abs_delta", "max |Δ|", row.max_abs_delta))
    for key, name, value in (
        ("reference_label", f"op in {reference}", row.reference_label),
        ("verdict", "verdict", row.verdict),
        ("detail", "detail", row.detail),
        ("site_key", "site", row.site_key),
    ):
        if value:
            facts.append(fact_row(key, name, value))
    return facts


def _without_row(record: Any, reference: str) -> str:
    """Why a node has no ``diff_report`` row: torchlens' rows are per op (and per pass)."""
    kind = record_kind(record)
    if kind in ("module", "module_call"):
        return "a module box has no row of its own: select one of its ops"
    if kind == "layer":
        passes = json_number(fact_of(record, "num_passes"))
        return f"a layer of {passes or 'several'} passes has no single row: select one of its passes"
    return f"not in {reference}"


def _record(log: Any, label: str) -> Any:
    """``log[label]``, or None when the capture has no such op (said so as not in this capture)."""
    try:
        return record_for_label(log, label)
    except (KeyError, ValueError, IndexError):
        return None


def _max_abs(values: torch.Tensor) -> float:
    return float(values.abs().max()) if values.numel() else 0.0


def _measure(key: str, name: str, value: float | None) -> FactRow:
    """A fact row with a float value shown to 4 significant digits (the value keeps full precision).

    A NaN or an Inf (a side holds one) is said as such in the text; its value is None, since JSON has
    no such number.
    """
    if value is None:
        return fact_row(key, name, None)
    if not math.isfinite(value):
        return fact_row(key, name, None, "NaN" if math.isnan(value) else f"{value}")
    return fact_row(key, name, value, f"{value:.4g}")


def _not_comparable(a: torch.Tensor | str, b: torch.Tensor | str, names: tuple[str, str]) -> str | None:
    for value, name in ((a, names[0]), (b, names[1])):
        if isinstance(value, str):
            return f"in {name}, {value}"
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    if a.shape != b.shape:
        return f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}"
    if a.dtype not in _NUMERIC or b.dtype not in _NUMERIC:
        return f"only floating-point values are compared ({a.dtype} vs {b.dtype})"
    return None
