"""The memory strip's series (``w.timeline = "memory"``, drawn by js/memory/memory-strip.ts): torchlens' live
bytes over execution order as its estimated liveness gives them, split into torchlens' live categories,
with the op that ran at each point. The totals are torchlens' series as is; the split is shown only
where it adds up to them."""

from __future__ import annotations

from collections.abc import Callable

from .._protocol import MemoryTimelineResult
from .summary import CAPTION, size
from .timeline import MemoryTimeline


def strip_series(
    timeline: MemoryTimeline, node_ids: Callable[[list[str]], list[str]]
) -> MemoryTimelineResult:
    """The strip of ``timeline``; ``node_ids`` gives the nodes labels are drawn as in the viewer on
    screen ("" for none)."""
    series = timeline.series
    ordinals = [ordinal for ordinal, _live in series]
    live = [value for _ordinal, value in series]
    baseline = timeline.persistent_bytes
    by_category = timeline.live_by_category()
    above = [value - baseline for value in live]
    adds_up = all(sum(points) == total for *points, total in zip(*by_category.values(), above, strict=True))
    # A split that does not add up to torchlens' figures (its death rules changed) is not drawn: the
    # strip then shows torchlens' total alone, one band.
    categories, bands = (list(by_category), list(by_category.values())) if adds_up else (["live"], [above])
    labels = [timeline.label_at(ordinal) or "" for ordinal in ordinals]
    return MemoryTimelineResult(
        ordinals=ordinals,
        live=live,
        categories=categories,
        bands=bands,
        labels=labels,
        node_ids=node_ids(labels),
        baseline_bytes=baseline,
        baseline_text=size(baseline),
        peak_bytes=timeline.peak_bytes,
        peak_text=size(timeline.peak_bytes),
        peak_ordinal=timeline.peak_ordinal,
        caption=CAPTION,
    )
