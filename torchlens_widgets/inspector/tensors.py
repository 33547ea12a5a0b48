"""A tensor's value as the inspector shows it, bounded whatever its size or device: statistics over a
deterministic strided sample, a histogram (``uint32`` little-endian counts) and, for a 1-D or 2-D slice, a
small heatmap (``uint8`` cells scaled to the slice's finite range, plus a ``uint8`` mask of non-finite
cells with the codes in _protocol.py).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .._protocol import MASK_FINITE, MASK_NAN, MASK_NEGINF, MASK_POSINF
from .facts import dtype_text, json_number

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
        "dtype": dtype_text(tensor.dtype),
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
            stats["min"] = json_number(finite.min())
            stats["max"] = json_number(finite.max())
            stats["mean"] = json_number(finite.mean())
            stats["std"] = json_number(finite.std(ddof=1)) if finite_count > 1 else None
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
        "lo": json_number(lo),
        "hi": json_number(hi),
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
