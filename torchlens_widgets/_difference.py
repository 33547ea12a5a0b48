"""The diff inspector's third panel: what changed between the two captures' values of one node.

Facts (max |Δ|, ‖Δ‖, relative ‖Δ‖, changed elements, torchlens' own delta) and the value summary of
``b - a`` (statistics, histogram, heatmap) with the inspector's bounded, binary encoding. A node that
cannot be compared says why (one side only, a value not saved, shapes or dtypes that differ) instead
of showing a zero.
"""

from __future__ import annotations

from typing import Any

import torch

from ._channel import Reply
from ._inspector import _fact, _first_op, _kind, _quote, _shape_text, summarize_tensor

_NUMERIC = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def saved_value(record: Any) -> torch.Tensor | str:
    """The tensor an op (or a rolled layer's first pass) computed, or why there is none."""
    if record is None:
        return "the node is not in this capture"
    kind = _kind(record)
    if kind in ("module", "module_call"):
        return "a module box has no single value (select one of its ops)"
    op = _first_op(record) if kind == "layer" else record
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
) -> Reply:
    """Header and buffers for the inspector panel showing ``b - a`` for node ``label``.

    ``public`` (privacy_profile="public") withholds it: a difference is value-derived data.
    """
    name_a, name_b = names
    header: dict[str, Any] = {
        "kind": "difference",
        "label": label,
        "title": f"{name_b} - {name_a}",
        "expression": f"log_b[{_quote(label)}].out - log_a[{_quote(label)}].out",
        "privacy_profile": "public" if public else "local",
        "facts": [],
        "value": None,
    }
    if public:
        header["facts"] = [
            _fact("comparable", "comparable", False, "withheld: privacy_profile='public' drops values")
        ]
        return header, []
    a, b = saved_value(record_a), saved_value(record_b)
    reason = _not_comparable(a, b, names)
    if reason is not None:
        header["facts"] = [_fact("comparable", "comparable", False, f"no: {reason}")]
        return header, []
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    buffers: list[bytes] = []
    with torch.no_grad():
        exact = b.to(torch.float64) - a.to(torch.float64)  # the facts, without rounding
        norm_a = float(torch.linalg.vector_norm(a.to(torch.float64)))
        norm = float(torch.linalg.vector_norm(exact))
        delta = exact.to(torch.promote_types(a.dtype, b.dtype))  # summarised in the captures' dtype
        changed = int(torch.count_nonzero(exact))
        header["facts"] = [
            _fact("shape", "shape", list(a.shape), _shape_text(list(a.shape))),
            _measure("max_abs", "max |Δ|", float(exact.abs().max()) if exact.numel() else 0.0),
            _measure("l2", "‖Δ‖ (L2)", norm),
            _measure("relative", "‖Δ‖ / ‖a‖", norm / norm_a if norm_a else None),
            _fact("changed", "changed elements", changed, f"{changed:,} of {exact.numel():,}"),
            _measure("torchlens_delta", "torchlens delta", torchlens_delta),
        ]
        value = summarize_tensor(delta, buffers)
    header["value"] = {"status": "summary", "source": header["expression"], **value}
    return header, buffers


def _measure(key: str, name: str, value: float | None) -> dict[str, Any]:
    """A fact row with a float value shown to 4 significant digits (the value keeps full precision)."""
    return _fact(key, name, value, f"{value:.4g}" if value is not None else None)


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
