"""The figures by row and case, progress on stderr, and a failed measurement's reason in its rows."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from benchmarks.bench_explore.rows import RATIOS, SUMS


@dataclass
class Results:
    """Values by row key and case: a number, a list of samples (shown as their median), or text."""

    values: dict[str, dict[str, float | list[float] | str]] = field(default_factory=dict)

    def put(self, row: str, case: str, value: float | list[float] | str) -> None:
        self.values.setdefault(row, {})[case] = value
        log(f"  {case} {row}: {describe(value)}")

    def number(self, row: str, case: str) -> float | None:
        if row in SUMS:
            parts = [self.number(key, case) for key in SUMS[row]]
            return None if None in parts else sum(p for p in parts if p is not None)
        if row in RATIOS:
            top, bottom = (self.number(key, case) for key in RATIOS[row])
            return top / bottom if top is not None and bottom else None
        value = self.values.get(row, {}).get(case)
        if isinstance(value, list):
            return statistics.median(value) if value else None
        return float(value) if isinstance(value, int | float) else None

    def cell(self, row: str, unit: str, case: str) -> str:
        value = self.values.get(row, {}).get(case)
        if isinstance(value, str):
            return value
        number = self.number(row, case)
        if number is None:
            return "-"
        return {"x": f"{number:.2f}x", "MB": f"{number:,.1f}"}.get(unit, f"{number:,.0f}")


def describe(value: float | list[float] | str) -> str:
    if isinstance(value, list):
        return ", ".join(f"{v:.0f}" for v in value)
    return str(value)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@contextmanager
def step(results: Results, case: str, rows: tuple[str, ...]) -> Iterator[None]:
    """Runs a measurement; if it fails, its rows say why instead of stopping the run."""
    try:
        yield
    except Exception as error:  # a figure missing, not a run lost
        reason = f"failed: {type(error).__name__}"
        log(f"  {case} {rows}: {reason}: {str(error)[:300]}")
        for row in rows:
            results.values.setdefault(row, {}).setdefault(case, reason)
