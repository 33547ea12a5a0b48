"""The inspector's memory section for the selected op: torchlens' estimated bytes alive when it ran,
the largest tensors alive then (each with the op that produced it, a link in the panel) and torchlens'
module rollup of the module it ran in. Only torchlens' figures, read through ``memory.MemoryTimeline``."""

from __future__ import annotations

from collections.abc import Callable

from .._protocol import MEMORY_ALIVE_ROWS, AliveTensorRow, MemoryBytes, MemorySection
from ..memory import CAPTION, MemoryTimeline
from ..memory.summary import size


def memory_section(
    timeline: MemoryTimeline, label: str, node_id: Callable[[str], str]
) -> MemorySection | None:
    """The section of the op ``label`` (None where torchlens' estimate has no figure for it: a graph
    input, a rolled layer of several passes, a module); ``node_id`` gives the node a label is drawn as
    in the viewer on screen ("" for none)."""
    live = timeline.live_bytes(label)
    if live is None:
        return None
    alive = timeline.alive_at(label)
    module = timeline.module_of(label)
    rollup = timeline.rollup(module) or {}
    return MemorySection(
        live_bytes=live,
        live_text=size(live),
        above_baseline_text=size(live - timeline.persistent_bytes),
        baseline_text=size(timeline.persistent_bytes),
        caption=CAPTION,
        alive=[
            AliveTensorRow(
                name=tensor.category,
                bytes=tensor.bytes,
                text=size(tensor.bytes),
                label=tensor.label,
                node_id=node_id(tensor.label),
            )
            for tensor in alive[:MEMORY_ALIVE_ROWS]
        ],
        alive_count=len(alive),
        module=module,
        module_rollup=[
            MemoryBytes(name=category, bytes=value, text=size(value))
            for category, value in rollup.items()
            if value
        ],
    )
