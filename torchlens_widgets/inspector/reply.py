"""The inspector's reply: what the widget shows about the selected node, computed in the kernel.

``inspect_record(log, record, label)`` turns a live torchlens record (an ``Op``, a rolled ``Layer``, a
``Module`` or a ``ModuleCall``) into a small JSON-able header plus binary buffers:

- facts (op, label, module and pass, shape, dtype, device, parameters, time, FLOPs, bytes, source),
- for a saved tensor value: min / max / mean / std over the finite values, counts of zeros and of NaN,
  +Inf and -Inf, a histogram (``uint32`` little-endian counts) and, for a 1-D or 2-D slice, a small
  heatmap (``uint8`` cells scaled to the slice's finite range, plus a ``uint8`` mask of non-finite cells),
- ``expression``: the exact Python that gives the record back (``log["linear_1_1:1"]``).

The reply size does not depend on the tensor: at most :data:`MAX_SAMPLE` elements are read for the
statistics and :data:`HEATMAP_READ_SIDE` squared for the heatmap, and the buffers are at most
``HIST_BINS * 4 + 2 * HEATMAP_MAX_ROWS * HEATMAP_MAX_COLS`` bytes. It is a pure function of its inputs,
so it is tested without a widget. (An explorer with a baseline adds a second summary, of the difference,
bounded the same way: ``difference.baseline_section``.)

The trace-level non-finite record (``log.nonfinite_ops``) is deliberately not consulted: its first
access scans every saved payload (8 s on a trace holding 1.2 GB), too slow for a click; the value
summary counts NaN and Inf itself.
"""

from __future__ import annotations

import json
from typing import Any, cast

import torch

from .._privacy import check_privacy_profile
from .._protocol import InspectRecord, Reply, ValueSection
from .facts import (
    expression_for,
    fact_of,
    first_op,
    json_number,
    module_facts,
    op_facts,
    python_string,
    record_kind,
    short_text,
)
from .tensors import summarize_tensor

# The whole reply (JSON header + buffers) stays under this many bytes whatever the tensor.
MAX_REPLY_BYTES = 96 * 1024

_NOT_SAVED_REMEDY = "re-run with save=... to retain this activation"


def inspect_record(
    log: Any, record: Any, label: str, *, privacy_profile: str = "local"
) -> Reply[InspectRecord]:
    """Describe ``record`` (the live record behind viewer label ``label``) for the inspector panel.

    Returns ``(header, buffers)``: ``header`` is JSON-able, ``buffers`` are the binary parts it points to
    by index. ``privacy_profile="public"`` drops source locations and value-derived data (tensor
    statistics, histogram, heatmap, non-finite verdicts), as torchlens' own public export profile does.
    """
    public = check_privacy_profile(privacy_profile) == "public"
    kind = record_kind(record)
    buffers: list[bytes] = []
    header = InspectRecord(
        kind=kind,
        label=label,
        title=label,
        privacy_profile=privacy_profile,
        expression=expression_for(record, label),
        facts=[],
        value=None,
    )
    if kind == "module" or kind == "module_call":
        header["title"] = str(fact_of(record, "address") or label)
        header["facts"] = module_facts(record, kind, public)
        return header, buffers  # value None: a module box shows the module, not a tensor

    op = first_op(record) if kind == "layer" else record
    if kind == "layer" and op is not None and (json_number(fact_of(record, "num_passes")) or 0) <= 1:
        # log["relu_1_2"] of a single-pass op is a Layer with one pass: describe that pass.
        kind, record = "op", op
        header["kind"] = kind
    header["title"] = str(
        (fact_of(record, "layer_label") if kind == "layer" else fact_of(record, "label")) or label
    )
    header["facts"] = op_facts(record, op, kind, public)
    header["value"] = cast(ValueSection, _value_section(op, kind, public, buffers))
    return header, buffers


def _value_section(op: Any, kind: str, public: bool, buffers: list[bytes]) -> dict[str, Any]:
    source = f"log[{python_string(fact_of(op, 'label'))}].out" if op is not None else None
    section: dict[str, Any] = {"status": "summary", "source": source}
    if kind == "layer":
        section["note"] = f"value of pass 1 of {fact_of(op, 'num_passes') or '?'}"
    if public:
        section.update(
            status="withheld",
            message=(
                "Value summary withheld: privacy_profile='public' drops value-derived data (as torchlens' "
                "public export profile does). Remedy: explore(log, privacy_profile='local')."
            ),
        )
        return section
    if op is None:
        section.update(status="not_saved", message="This node has no op with a value.")
        return section
    try:
        value = op.out
    except Exception as error:  # PayloadUnavailableError (code activation_not_saved) on a selective save
        fields = getattr(error, "fields", None) or {}
        remedy = fields.get("remedy") or _NOT_SAVED_REMEDY
        section.update(
            status="not_saved", message=f"Value not saved: {_first_sentence(error)} Remedy: {remedy}."
        )
        return section
    if value is None:
        section.update(
            status="not_saved",
            message=(
                "Value not saved: this capture kept no activation for this op. "
                f"Remedy: {_NOT_SAVED_REMEDY} (tl.trace(model, x) saves every op by default)."
            ),
        )
        return section
    if not isinstance(value, torch.Tensor):
        section.update(
            status="not_tensor", message=f"The value is a {type(value).__name__}: {short_text(value)}"
        )
        return section
    problem = _unsupported(value)
    if problem:
        section.update(status="unsupported", message=problem)
        return section
    with torch.no_grad():
        tensor = value.detach()
        section.update(summarize_tensor(tensor, buffers))
    return section


def _first_sentence(error: BaseException) -> str:
    text = str(error).split(" Remedy:")[0].strip()
    return text if text.endswith(".") else text + "."


def _unsupported(tensor: torch.Tensor) -> str | None:
    if tensor.layout != torch.strided:
        return f"No summary for a {tensor.layout} tensor (only dense tensors are summarised)."
    if tensor.device.type == "meta":
        return "No summary: the tensor is on the meta device (it has no values)."
    if tensor.is_quantized:
        return "No summary for a quantized tensor. Remedy: summarise tensor.dequantize() yourself."
    return None


def reply_size(reply: Reply) -> int:
    """Bytes of a reply on the wire (JSON header plus buffers), to check it against MAX_REPLY_BYTES."""
    header, buffers = reply
    return len(json.dumps(header, allow_nan=False).encode()) + sum(len(buffer) for buffer in buffers)
