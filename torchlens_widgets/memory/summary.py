"""What torchlens says of a trace's memory, as the widget states it: a dict of its figures and one line."""

from __future__ import annotations

from typing import Any

from .._torchlens import human_readable_size
from .timeline import MemoryTimeline

# What kind of figure every byte count here is, in torchlens' terms: its liveness view is an estimate
# ("evidence": "estimated") of logical tensor bytes, "not allocator residency" (its disclaimer).
CAPTION = "estimated logical bytes, not allocator residency"


def size(value: int) -> str:
    """A byte count as torchlens prints one ("480.1 MB")."""
    return str(human_readable_size(max(0, int(value))))


def memory_summary(timeline: MemoryTimeline) -> dict[str, Any]:
    """torchlens' peak (bytes, op, module), persistent baseline, category totals and named absences,
    with a one-line ``"line"``. Plain ints and strings: valid JSON as it stands."""
    artifact, liveness = timeline.artifact, timeline.liveness
    label = timeline.peak_label
    absent = {str(key): str(reason) for key, reason in artifact["absent"].items()}
    note = artifact.get("parameter_gradient_note")
    if note:
        absent["parameter_gradient"] = str(note)
    summary: dict[str, Any] = {
        "peak_bytes": timeline.peak_bytes,
        "peak_above_baseline_bytes": timeline.peak_bytes - timeline.persistent_bytes,
        "peak_label": label or "",
        "peak_module": timeline.module_of(label) if label else "",
        "peak_ordinal": timeline.peak_ordinal,
        "persistent_baseline_bytes": timeline.persistent_bytes,
        "category_totals": {str(key): int(value) for key, value in artifact["category_totals"].items()},
        "absent": absent,
        "excluded": {str(key): str(reason) for key, reason in liveness["excluded"].items()},
        "evidence": str(liveness["evidence"]),
        "disclaimer": str(artifact["disclaimer"]),
        "caption": str(liveness["caption"]),
        "backward_captured": has_backward(timeline),
    }
    summary["line"] = summary_line(summary)
    return summary


def has_backward(timeline: MemoryTimeline) -> bool:
    """Whether torchlens' timeline holds a backward phase (its liveness estimate leaves it out)."""
    return any(str(row["phase"]).startswith("backward") for row in timeline.artifact["events"])


def summary_line(summary: dict[str, Any]) -> str:
    """The summary in one line: 'Memory peak 480.1 MB at linear_1_541:1 in lm_head: 5.4 MB alive above
    the 474.7 MB baseline of parameters and buffers (estimated logical bytes, not allocator residency)'."""
    where = f" at {summary['peak_label']}" if summary["peak_label"] else ""
    module = f" in {summary['peak_module']}" if summary["peak_module"] else ""
    line = (
        f"Memory peak {size(summary['peak_bytes'])}{where}{module}: "
        f"{size(summary['peak_above_baseline_bytes'])} alive above the "
        f"{size(summary['persistent_baseline_bytes'])} baseline of parameters and buffers ({CAPTION}"
    )
    if summary["backward_captured"]:
        line += "; torchlens' estimate covers the forward pass only"
    return line + ")"
