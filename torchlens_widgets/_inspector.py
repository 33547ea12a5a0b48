"""The inspector: what the widget shows about the selected node, computed in the kernel.

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
so it is tested without a widget.

The trace-level non-finite record (``log.nonfinite_ops``) is deliberately not consulted: its first
access scans every saved payload (8 s on a trace holding 1.2 GB), too slow for a click; the value
summary counts NaN and Inf itself.
"""

from __future__ import annotations

import dataclasses
import json
import math
import ntpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ._channel import Reply
from ._protocol import MASK_FINITE, MASK_NAN, MASK_NEGINF, MASK_POSINF

PRIVACY_PROFILES = ("local", "public")

# Statistics and the histogram read at most this many elements of a tensor (one deterministic strided
# sample, converted to float64 on the CPU: 32 MiB at most). Below it every element counts and the
# numbers equal torch's/numpy's exactly; above it (a 100M-element activation) they are estimates and
# the header says so. 2**22 keeps a click answered in well under a second on a 2-vCPU machine, and a
# 4M-element sample puts the mean/std/fractions within ~1e-3 relative of the full tensor's.
MAX_SAMPLE = 1 << 22
# Histogram resolution: 64 uint32 counts = 256 bytes on the wire.
HIST_BINS = 64
# Heatmap of one 2-D slice: at most this many cells (uint8 each, plus an equal-sized non-finite mask
# when one is needed), so 64 KiB at most; each cell is the mean of the block of values it covers.
HEATMAP_MAX_ROWS = 128
HEATMAP_MAX_COLS = 256
# Before pooling, a slice is read with a stride: at most this many rows and columns of it are converted
# (a 10000 x 10000 slice is read as 1000 x 1000 = 8 MB of float64, not copied whole).
HEATMAP_READ_SIDE = 1024
# Text facts (paths, call lists) are cut to this many characters.
MAX_TEXT = 300
# The whole reply (JSON header + buffers) stays under this many bytes whatever the tensor.
MAX_REPLY_BYTES = 96 * 1024


_NOT_SAVED_REMEDY = "re-run with save=... to retain this activation"


def inspect_record(log: Any, record: Any, label: str, *, privacy_profile: str = "local") -> Reply:
    """Describe ``record`` (the live record behind viewer label ``label``) for the inspector panel.

    Returns ``(header, buffers)``: ``header`` is JSON-able, ``buffers`` are the binary parts it points to
    by index. ``privacy_profile="public"`` drops source locations and value-derived data (tensor
    statistics, histogram, heatmap, non-finite verdicts), as torchlens' own public export profile does.
    """
    if privacy_profile not in PRIVACY_PROFILES:
        raise ValueError(
            f"Unknown privacy_profile {privacy_profile!r}. Remedy: pass one of "
            f"{', '.join(map(repr, PRIVACY_PROFILES))}."
        )
    public = privacy_profile == "public"
    kind = _kind(record)
    buffers: list[bytes] = []
    header: dict[str, Any] = {
        "kind": kind,
        "label": label,
        "privacy_profile": privacy_profile,
        "expression": expression_for(record, label),
    }
    if kind == "module" or kind == "module_call":
        header["title"] = str(_get(record, "address") or label)
        header["facts"] = _module_facts(record, kind, public)
        header["value"] = None  # a module box shows the module, not a tensor
        return header, buffers

    op = _first_op(record) if kind == "layer" else record
    if kind == "layer" and op is not None and (_number(_get(record, "num_passes")) or 0) <= 1:
        # log["relu_1_2"] of a single-pass op is a Layer with one pass: describe that pass.
        kind, record = "op", op
        header["kind"] = kind
    header["title"] = str(
        (_get(record, "layer_label") if kind == "layer" else _get(record, "label")) or label
    )
    header["facts"] = _op_facts(record, op, kind, public)
    header["value"] = _value_section(op, kind, public, buffers)
    return header, buffers


# ----- records ------------------------------------------------------------------------------------


def _kind(record: Any) -> str:
    name = type(record).__name__
    return {"Op": "op", "Layer": "layer", "Module": "module", "ModuleCall": "module_call"}.get(name, "other")


def _get(record: Any, name: str) -> Any:
    """``record.name``, or None when torchlens does not have it for this record.

    torchlens raises (typed) for per-pass facts asked of a multi-pass Layer or Module, and for facts a
    capture did not keep; the inspector shows what exists instead of failing.
    """
    if record is None:
        return None
    try:
        return getattr(record, name)
    except Exception:
        return None


def _first_op(layer: Any) -> Any:
    ops = _get(layer, "ops")
    try:
        return ops[0] if ops is not None and len(ops) else None
    except Exception:
        return None


def expression_for(record: Any, label: str) -> str:
    """The exact Python expression that gives ``record`` back, with the trace in scope as ``log``."""
    kind = _kind(record)
    if kind == "module":
        return f"log.modules[{_quote(_get(record, 'address') or label)}]"
    if kind == "module_call":
        return f"log.module_calls[{_quote(_get(record, 'call_label') or label)}]"
    if kind == "layer":
        return f"log[{_quote(_get(record, 'layer_label') or label)}]"
    if kind == "op":
        return f"log[{_quote(_get(record, 'label') or label)}]"
    return f"log[{_quote(label)}]"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _quote(text: Any) -> str:
    """A double-quoted Python string literal that evaluates to exactly ``str(text)``.

    Not json.dumps: it writes a character beyond the BMP (an emoji) as a surrogate pair
    (``"\\ud83d\\ude00"``), which Python reads as two lone surrogates, another string. Printable
    characters stay as they are; the rest (control and format characters, lone surrogates) are
    escaped by code point, ``\\U`` for those beyond the BMP.
    """
    parts = ['"']
    for char in str(text):
        code = ord(char)
        if char in _ESCAPES:
            parts.append(_ESCAPES[char])
        elif char.isprintable() and not 0xD800 <= code <= 0xDFFF:
            parts.append(char)
        elif code <= 0xFF:
            parts.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _number(value: Any) -> float | int | None:
    """A JSON-safe number (torchlens quantities are int/float subclasses), or None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _fact(key: str, name: str, value: Any, text: Any = None, detail: Any = None) -> dict[str, Any]:
    """One row of the facts table: a machine value, the text shown (torchlens' own formatting) and,
    when the text is shortened, the full text for the tooltip."""
    shown = _text(text if text is not None else value)
    row = {"key": key, "name": name, "value": value, "text": shown}  # text None: the panel shows a dash
    if detail is not None:
        row["detail"] = _text(detail)
    return row


def _quantity(key: str, name: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    return _fact(key, name, _number(value), str(value))


def _shape(value: Any) -> list[int] | None:
    if value is None:
        return None
    try:
        return [int(size) for size in value]
    except (TypeError, ValueError):
        return None


def _shape_text(shape: list[int] | None) -> str | None:
    return None if shape is None else "(" + ", ".join(map(str, shape)) + ")"


def _dtype_text(dtype: Any) -> str | None:
    return None if dtype is None else str(dtype).removeprefix("torch.")


def _device_text(record: Any) -> str | None:
    ref = _get(record, "device_ref")
    name = _get(ref, "name") if ref is not None else None
    return str(name) if name else None


def _source(op: Any) -> dict[str, Any] | None:
    """The call site torchlens recorded (first frame of ``code_context``, as torchlens' exports use)."""
    for location in _get(op, "code_context") or ():
        file_name = _get(location, "file")
        line = _get(location, "line_number")
        if file_name and line is not None:
            function = _get(location, "func_qualname") or _get(location, "func_name")
            return {"file": str(file_name), "line": int(line), "function": _text(function)}
    return None


def _op_facts(record: Any, op: Any, kind: str, public: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any] | None] = []
    func = _get(record, "func_name")
    layer_type = _get(record, "layer_type")
    op_name = func if func and func != "none" else layer_type
    rows.append(_fact("op", "op", _text(op_name)))
    if kind == "layer":
        rows.append(_fact("layer_label", "torchlens layer", _text(_get(record, "layer_label"))))
        passes = _get(record, "num_passes")
        labels = [str(item) for item in (_get(record, "op_labels") or ())]
        rows.append(_fact("passes", "passes", _number(passes), f"{passes} ({', '.join(labels)})"))
    else:
        rows.append(_fact("label", "torchlens label", _text(_get(record, "label"))))
    module = _get(op, "module")
    if module:
        rows.append(_fact("module", "module call", _text(module)))
    if kind == "op":
        index, passes = _get(record, "pass_index"), _get(record, "num_passes")
        if index is not None:
            rows.append(_fact("pass", "pass", _number(index), f"{index} of {passes}" if passes else index))
    shape = _shape(_get(record, "shape"))
    summary = _get(record, "shape_summary") if kind == "layer" else None
    rows.append(_fact("shape", "shape", shape, summary or _shape_text(shape)))
    rows.append(_fact("dtype", "dtype", _dtype_text(_get(record, "dtype"))))
    rows.append(_fact("device", "device", _device_text(record)))
    rows.append(
        _fact(
            "params",
            "parameters",
            _number(_get(record, "num_params")),
            _thousands(_get(record, "num_params")),
        )
    )
    total = kind == "layer"  # a rolled node reports its passes' totals
    rows.append(
        _quantity(
            "time",
            "time (all passes)" if total else "time",
            _get(record, "total_func_duration" if total else "func_duration"),
        )
    )
    rows.append(
        _quantity(
            "flops",
            "FLOPs forward (all passes)" if total else "FLOPs forward",
            _get(record, "total_flops_forward" if total else "flops_forward"),
        )
    )
    rows.append(
        _quantity(
            "bytes",
            "output bytes (all passes)" if total else "output bytes",
            _get(record, "total_activation_memory" if total else "activation_memory"),
        )
    )
    if (_number(_get(record, "num_params")) or 0) > 0:
        rows.append(_quantity("param_bytes", "parameter bytes", _get(record, "param_memory")))
    if not public:
        source = _source(op)
        if source is not None:
            where = f"{source['file']}:{source['line']}"
            function = f" in {source['function']}" if source["function"] else ""
            short = f"{ntpath.basename(source['file'])}:{source['line']}{function}"  # / and \\ paths
            rows.append(_fact("source", "source", source, short, where + function))
    return [row for row in rows if row is not None]


def _module_facts(record: Any, kind: str, public: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any] | None] = [
        _fact("address", "module", _text(_get(record, "address"))),
        _fact("class", "class", _text(_get(record, "class_name")), _get(record, "class_qualname")),
        _fact(
            "params",
            "parameters",
            _number(_get(record, "num_params")),
            _thousands(_get(record, "num_params")),
        ),
    ]
    if kind == "module":
        calls = [str(item) for item in (_get(record, "call_labels") or ())]
        rows.append(
            _fact(
                "calls",
                "calls",
                _number(_get(record, "num_calls")),
                f"{_get(record, 'num_calls')} ({', '.join(calls)})" if calls else None,
            )
        )
        rows.append(_quantity("time", "time (all calls)", _get(record, "total_forward_duration")))
        rows.append(_quantity("flops", "FLOPs forward (all calls)", _get(record, "total_flops_forward")))
        rows.append(_fact("ops", "ops inside", _number(_get(record, "num_layers"))))
    else:
        rows.append(_fact("call", "call", _text(_get(record, "call_label"))))
        rows.append(_quantity("time", "time", _get(record, "forward_duration")))
        rows.append(_fact("ops", "ops inside", _number(_get(record, "num_ops"))))
    outputs = [str(item) for item in (_get(record, "output_ops") or ())]
    if outputs:
        rows.append(_fact("outputs", "output ops", outputs[:20], ", ".join(outputs[:20])))
    if not public:
        file_name, line = _get(record, "class_source_file"), _get(record, "class_source_line")
        if file_name:
            rows.append(
                _fact(
                    "source",
                    "source",
                    {"file": str(file_name), "line": line},
                    f"{file_name}:{line}" if line is not None else file_name,
                )
            )
    return [row for row in rows if row is not None]


def _thousands(value: Any) -> str | None:
    number = _number(value)
    return None if number is None else f"{int(number):,}"


# ----- the value ----------------------------------------------------------------------------------


def _value_section(op: Any, kind: str, public: bool, buffers: list[bytes]) -> dict[str, Any]:
    source = f"log[{_quote(_get(op, 'label'))}].out" if op is not None else None
    section: dict[str, Any] = {"status": "summary", "source": source}
    if kind == "layer":
        section["note"] = f"value of pass 1 of {_get(op, 'num_passes') or '?'}"
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
        section.update(status="not_tensor", message=f"The value is a {type(value).__name__}: {_text(value)}")
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


@dataclass(frozen=True)
class Plane:
    """The strided read of one 2-D slice (float64, CPU, at most HEATMAP_READ_SIDE squared) and its origin."""

    grid: torch.Tensor
    where: str  # e.g. "[0, :, :]"
    rows: int  # the slice's full size
    cols: int
    steps: tuple[int, int]


@dataclass(frozen=True)
class BoundedRead:
    """All the inspector reads of a tensor: a flat strided sample and one strided 2-D slice.

    Both are float64 on the CPU and bounded (MAX_SAMPLE elements, HEATMAP_READ_SIDE squared), whatever
    the tensor's size or device, so anything computed from them (a difference included) is bounded too.
    """

    shape: list[int]
    numel: int
    sample: torch.Tensor
    step: int
    plane: Plane | None

    def minus(self, other: BoundedRead) -> BoundedRead:
        """``self - other`` element by element, for two reads of tensors of one shape (same positions)."""
        plane = None
        if self.plane is not None and other.plane is not None:
            plane = dataclasses.replace(self.plane, grid=self.plane.grid - other.plane.grid)
        return BoundedRead(self.shape, self.numel, self.sample - other.sample, self.step, plane)


def bounded_read(tensor: torch.Tensor) -> BoundedRead:
    """What the inspector reads of ``tensor`` (complex as magnitude, booleans as 0/1)."""
    sample, step = _flat_sample(tensor, MAX_SAMPLE)
    return BoundedRead(list(tensor.shape), tensor.numel(), sample, step, _plane(tensor))


def summarize_tensor(tensor: torch.Tensor, buffers: list[bytes]) -> dict[str, Any]:
    """Statistics, histogram and heatmap of ``tensor``; appends their buffers to ``buffers``.

    Complex tensors are summarised by magnitude, booleans as 0/1.
    """
    out: dict[str, Any] = {
        "shape": list(tensor.shape),
        "dtype": _dtype_text(tensor.dtype),
        "numel": tensor.numel(),
    }
    if tensor.is_complex():
        out["of"] = "abs"
    if tensor.numel() == 0:
        out.update(status="empty", message="The tensor has no elements.")
        return out
    out.update(summarize_read(bounded_read(tensor), buffers))
    return out


def summarize_read(read: BoundedRead, buffers: list[bytes]) -> dict[str, Any]:
    """Statistics (marked ``sampled`` past MAX_SAMPLE elements), histogram and heatmap of a bounded read."""
    values = read.sample.numpy()
    stats, finite = _stats(values)
    stats.update(numel=read.numel, sample_size=int(values.size), sampled=read.step > 1, stride=read.step)
    return {
        "stats": stats,
        "histogram": _histogram(finite, stats, buffers),
        "heatmap": _heatmap(read.plane, buffers) if read.plane is not None else None,
    }


def _flat_sample(tensor: torch.Tensor, limit: int) -> tuple[torch.Tensor, int]:
    """At most ``limit`` elements of ``tensor`` in memory order, as float64 on the CPU, and the stride.

    Deterministic: every ``step``-th element, ``step`` chosen coprime with every dimension so the
    sample does not keep hitting the same columns. Only the sample is copied, never the whole tensor.
    """
    numel = tensor.numel()
    step = 1 if numel <= limit else _coprime_step(math.ceil(numel / limit), tensor.shape)
    if tensor.is_contiguous():
        flat = tensor.reshape(-1)[::step]  # a view
    else:
        index = torch.arange(0, numel, step, device=tensor.device)
        flat = tensor[torch.unravel_index(index, tensor.shape)]
    if flat.is_complex():
        flat = flat.abs()
    return flat.to(device="cpu", dtype=torch.float64), step


def _coprime_step(start: int, shape: Iterable[int]) -> int:
    sizes = [int(size) for size in shape if int(size) > 1]
    step = max(1, start)
    while any(math.gcd(step, size) != 1 for size in sizes):
        step += 1
    return step


def _stats(values: np.ndarray) -> tuple[dict[str, Any], np.ndarray]:
    """Statistics of a float64 vector; min/max/mean/std over its finite values only."""
    finite_mask = np.isfinite(values)
    finite_count = int(np.count_nonzero(finite_mask))
    nonfinite = values.size - finite_count
    finite = values if nonfinite == 0 else values[finite_mask]
    nan = int(np.count_nonzero(np.isnan(values))) if nonfinite else 0
    posinf = int(np.count_nonzero(np.isposinf(values))) if nonfinite else 0
    zeros = int(values.size - np.count_nonzero(values))  # NaN counts as non-zero
    stats: dict[str, Any] = {
        "count": int(values.size),
        "finite_count": finite_count,
        "zero_count": zeros,
        "nan_count": nan,
        "posinf_count": posinf,
        "neginf_count": nonfinite - nan - posinf,
        "zero_fraction": zeros / values.size,
        "nonfinite_fraction": nonfinite / values.size,
        "min": None,
        "max": None,
        "mean": None,
        "std": None,
        # std is torch's default: the unbiased estimate (correction=1); None for a single value.
        "std_correction": 1,
    }
    if finite_count:
        with np.errstate(over="ignore", invalid="ignore"):
            stats["min"] = _number(finite.min())
            stats["max"] = _number(finite.max())
            stats["mean"] = _number(finite.mean())
            stats["std"] = _number(finite.std(ddof=1)) if finite_count > 1 else None
    return stats, finite


def _histogram(finite: np.ndarray, stats: dict[str, Any], buffers: list[bytes]) -> dict[str, Any] | None:
    if finite.size == 0 or stats["min"] is None or stats["max"] is None:
        return None
    lo, hi = float(stats["min"]), float(stats["max"])
    if lo == hi:  # one value: numpy's convention, a unit-wide range around it
        lo, hi = lo - 0.5, hi + 0.5
    with np.errstate(over="ignore", invalid="ignore"):
        counts, _ = np.histogram(finite, bins=HIST_BINS, range=(lo, hi))
    buffers.append(counts.astype("<u4").tobytes())
    return {
        "bins": HIST_BINS,
        "lo": lo,
        "hi": hi,
        "buffer": len(buffers) - 1,
        "dtype": "uint32le",
        "total": int(counts.sum()),
    }


def _plane(tensor: torch.Tensor) -> Plane | None:
    """One 2-D slice (the last two dims at index 0 of the others) or a 1-D tensor, read with a stride."""
    if tensor.dim() == 0:
        return None
    if tensor.dim() == 1:
        plane, where = tensor.unsqueeze(0), "[:]"
    else:
        lead = (0,) * (tensor.dim() - 2)
        plane = tensor[lead] if lead else tensor
        where = "[" + ", ".join(["0"] * len(lead) + [":", ":"]) + "]"
    rows, cols = int(plane.shape[0]), int(plane.shape[1])
    if rows == 0 or cols == 0:
        return None
    # At most HEATMAP_READ_SIDE rows and columns are converted; the heatmap pools them to its cell grid.
    row_step = math.ceil(rows / HEATMAP_READ_SIDE)
    col_step = math.ceil(cols / HEATMAP_READ_SIDE)
    part = plane[::row_step, ::col_step]
    if part.is_complex():
        part = part.abs()
    return Plane(part.to(device="cpu", dtype=torch.float64), where, rows, cols, (row_step, col_step))


def _heatmap(plane: Plane, buffers: list[bytes]) -> dict[str, Any]:
    """A small image of a strided 2-D slice: uint8 cells scaled to its finite range, plus a mask."""
    grid = plane.grid
    out_rows, out_cols = min(grid.shape[0], HEATMAP_MAX_ROWS), min(grid.shape[1], HEATMAP_MAX_COLS)
    pooled = (out_rows, out_cols) != tuple(grid.shape)
    if pooled:
        grid = torch.nn.functional.adaptive_avg_pool2d(grid[None], (out_rows, out_cols))[0]
    cells = grid.numpy()
    finite_mask = np.isfinite(cells)
    finite = cells[finite_mask]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 0.0
    span = hi - lo
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = (
            (cells - lo) / span * 255.0 if span > 0 and math.isfinite(span) else np.full_like(cells, 127.0)
        )
    image = np.where(finite_mask, np.clip(np.rint(scaled), 0, 255), 0).astype(np.uint8)
    buffers.append(image.tobytes())
    header: dict[str, Any] = {
        "rows": out_rows,
        "cols": out_cols,
        "slice": plane.where,
        "slice_shape": [plane.rows, plane.cols],
        "stride": list(plane.steps),
        "sampled": plane.steps != (1, 1),
        "pooled": pooled,
        "lo": _number(lo),
        "hi": _number(hi),
        "encoding": "uint8",
        "buffer": len(buffers) - 1,
        "mask_buffer": None,
    }
    if not finite_mask.all():
        mask = np.full(cells.shape, MASK_FINITE, dtype=np.uint8)
        mask[np.isnan(cells)] = MASK_NAN
        mask[np.isposinf(cells)] = MASK_POSINF
        mask[np.isneginf(cells)] = MASK_NEGINF
        buffers.append(mask.tobytes())
        header["mask_buffer"] = len(buffers) - 1
    return header


def reply_size(reply: Reply) -> int:
    """Bytes of a reply on the wire (JSON header plus buffers), to check it against MAX_REPLY_BYTES."""
    header, buffers = reply
    return len(json.dumps(header, allow_nan=False).encode()) + sum(len(buffer) for buffer in buffers)
