"""torchlens' memory picture of a trace (its timeline v2 and estimated liveness), read per op and per
module, and stated as a summary; the widgets put it on the graph."""

from __future__ import annotations

from .summary import CAPTION, memory_summary
from .timeline import AliveTensor, MemoryTimeline, memory_timeline

__all__ = ["CAPTION", "AliveTensor", "MemoryTimeline", "memory_summary", "memory_timeline"]
