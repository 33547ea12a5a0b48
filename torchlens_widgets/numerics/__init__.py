"""Numerics over torchlens traces: where a NaN was born, the ranges an op consumed, and where a
reduced-precision run drifts from a wide reference (ranked by how much error each op creates)."""

from __future__ import annotations

from .nonfinite import NonFiniteExplanation, explain_nonfinite
from .precision import OpDrift, PrecisionRun, run_precision
from .ranges import InputRange, input_ranges

__all__ = [
    "InputRange",
    "NonFiniteExplanation",
    "OpDrift",
    "PrecisionRun",
    "explain_nonfinite",
    "input_ranges",
    "run_precision",
]
