"""torchlens' memory picture of one trace, read per op: its memory timeline (``observe.memory_timeline_v2``)
and the estimated liveness over it (``observe.estimated_liveness``), looked up by the labels the
viewers draw. Every figure is torchlens'; this module only finds the op each of them belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchlens import observe
from torchlens.errors import InvalidArgumentError

from .. import _export_cache
from .._errors import MemoryTimelineError
from .._trace import op_label

# What a timeline is cached as: one per trace, shared by every widget of it (see _export_cache).
_CACHE_KEY = "memory-timeline"
# The categories torchlens' liveness estimate counts alive per op (its death rules say how long each
# lives); parameters and buffers are its persistent baseline, the saved-for-backward band is excluded.
_LIVE_CATEGORIES = ("input", "activation")


@dataclass(frozen=True)
class AliveTensor:
    """One tensor torchlens counts alive when an op ran: the op that produced it (its label as the
    viewers draw it), torchlens' category for it and its logical bytes."""

    label: str
    category: str
    bytes: int
    dtype: str | None


class MemoryTimeline:
    """torchlens' timeline artifact and liveness estimate of one trace, with lookups by op label."""

    def __init__(self, log: Any) -> None:
        try:
            self.artifact: dict[str, Any] = observe.memory_timeline_v2(log)
        except InvalidArgumentError as error:
            remedy = (getattr(error, "fields", None) or {}).get("remedy", "")
            raise MemoryTimelineError(str(error), remedy=str(remedy)) from error
        self.liveness: dict[str, Any] = observe.estimated_liveness(self.artifact)
        self._live = {int(ordinal): int(live) for ordinal, live in self.liveness["series"]}
        # torchlens' forward op events, one per op that ran (the saved-band rows share their ordinal).
        ops = [row for row in self.artifact["events"] if row["phase"] == "forward" and row["kind"] == "op"]
        self._labels: dict[int, str] = {}  # ordinal -> the op's label as drawn ("linear_1_1:1")
        self._ordinals: dict[str, int] = {}
        self._owners: dict[str, str] = {}  # label -> torchlens' innermost module call ("lm_head:1")
        for row in ops:
            label = _drawn_label(log, str(row["label"]))
            if label is not None:
                self._labels[int(row["ordinal"])] = label
                self._ordinals[label] = int(row["ordinal"])
                self._owners[label] = str(row["owner"] or "")
        self._rollups: dict[int, dict[str, Any]] = {}  # depth -> torchlens' module rollup
        self._events = [row for row in ops if row["category"] in _LIVE_CATEGORIES]
        self._last_ordinal = max((int(row["ordinal"]) for row in ops), default=0)

    # ----- torchlens' totals ------------------------------------------------------------------------

    @property
    def persistent_bytes(self) -> int:
        """torchlens' persistent baseline: parameters (tied ones once) and buffers."""
        return int(self.liveness["persistent_baseline_bytes"])

    @property
    def peak_bytes(self) -> int:
        return int(self.liveness["peak_bytes"])

    @property
    def peak_ordinal(self) -> int:
        return int(self.liveness["peak_ordinal"])

    @property
    def peak_label(self) -> str | None:
        """The op torchlens' estimate peaks at (its forward op event at ``peak_ordinal``), or None."""
        return self._labels.get(self.peak_ordinal)

    @property
    def series(self) -> list[tuple[int, int]]:
        """torchlens' live bytes over execution order: (ordinal, live bytes), persistent baseline included."""
        return sorted(self._live.items())

    # ----- per op -----------------------------------------------------------------------------------

    def ordinal(self, label: str) -> int | None:
        """Where the op ran in torchlens' execution order (its timeline ordinal), or None."""
        return self._ordinals.get(label)

    def label_at(self, ordinal: int) -> str | None:
        return self._labels.get(ordinal)

    def live_bytes(self, label: str) -> int | None:
        """torchlens' estimated live bytes while the op ran (baseline included); None where torchlens'
        series has no point for it (a graph input: the series starts at the first op after it)."""
        ordinal = self._ordinals.get(label)
        return self._live.get(ordinal) if ordinal is not None else None

    def above_baseline(self, record: Any) -> int | None:
        """The overlay's value for an op record: its live bytes minus the persistent baseline, so the
        colours follow the activations' rise and fall even where parameters dwarf them. A multi-pass
        layer (a rolled node) has one figure per pass and gets none."""
        label = op_label(record, single_pass=True)
        live = self.live_bytes(label) if label is not None else None
        return live - self.persistent_bytes if live is not None else None

    def alive_at(self, label: str) -> list[AliveTensor]:
        """The tensors torchlens counts alive while the op ran, largest first: each forward input or
        activation row of its timeline between its birth and its death by torchlens' printed rules
        (``observe.DEATH_RULES``: an input lives to the phase's end, an activation to its last
        recorded consumer, or to the end when it has none). Their bytes plus the persistent baseline
        are the op's ``live_bytes`` (a test holds them to torchlens' series)."""
        ordinal = self._ordinals.get(label)
        if ordinal is None or ordinal not in self._live:
            return []
        alive = [
            AliveTensor(
                label=self._labels.get(int(row["ordinal"]), str(row["label"])),
                category=str(row["category"]),
                bytes=int(row["bytes"]),
                dtype=row.get("dtype"),
            )
            for row in self._events
            if int(row["ordinal"]) <= ordinal <= self._death(row)
        ]
        return sorted(alive, key=lambda tensor: -tensor.bytes)

    def live_by_category(self) -> dict[str, list[int]]:
        """For each point of torchlens' series (in ``series`` order), the bytes alive then in each of its
        live categories (input, activation), above the persistent baseline: the same rows and death
        rules as :meth:`alive_at`, swept once over execution order. With the baseline they add up to
        torchlens' live bytes at every point (``strip.py`` checks it before drawing them apart)."""
        ordinals = [ordinal for ordinal, _live in self.series]
        # Bytes born and dying per ordinal and category; a running sum gives what is alive at each.
        change: dict[str, dict[int, int]] = {category: {} for category in _LIVE_CATEGORIES}
        for row in self._events:
            steps = change[str(row["category"])]
            born, died = int(row["ordinal"]), self._death(row) + 1
            steps[born] = steps.get(born, 0) + int(row["bytes"])
            steps[died] = steps.get(died, 0) - int(row["bytes"])
        bands: dict[str, list[int]] = {}
        for category, steps in change.items():
            points = sorted(steps)
            alive, band, at = 0, [], 0
            for ordinal in ordinals:
                while at < len(points) and points[at] <= ordinal:
                    alive += steps[points[at]]
                    at += 1
                band.append(alive)
            bands[category] = band
        return bands

    def _death(self, row: dict[str, Any]) -> int:
        last = row.get("last_consumer_ordinal")
        if row["category"] == "input" or last is None:
            return self._last_ordinal
        return int(last)

    # ----- per module -------------------------------------------------------------------------------

    def module_of(self, label: str) -> str:
        """The module address the op ran in (torchlens' innermost owner, without its call index), or ""."""
        return module_address(self._owners.get(label, ""))

    def rollup(self, address: str) -> dict[str, int] | None:
        """torchlens' bytes by category charged to the module at ``address`` and everything inside it
        (``observe.module_rollup`` at the address's depth), or None for the top level."""
        if not address:
            return None
        depth = address.count(".") + 1
        if depth not in self._rollups:
            self._rollups[depth] = observe.module_rollup(self.artifact, depth=depth)
        row = self._rollups[depth]["rows"].get(address)
        return {str(category): int(value) for category, value in row.items()} if row is not None else None


def module_address(owner: str) -> str:
    """A module call as torchlens' timeline spells it ("transformer.h.0:1") as its address
    ("transformer.h.0"): the rollup's own reading, each component without its call index."""
    return ".".join(part.split(":", 1)[0] for part in owner.split(".") if part)


def _drawn_label(log: Any, label: str) -> str | None:
    """The pass-qualified label of the op a timeline row names (torchlens' lookup of its label)."""
    try:
        record = log[label]
    except (KeyError, ValueError, IndexError, InvalidArgumentError):
        return None
    return op_label(record, single_pass=True)


def memory_timeline(log: Any) -> MemoryTimeline:
    """The memory timeline of ``log``, made once per trace (MemoryTimelineError where torchlens refuses)."""
    return _export_cache.cached(log, _CACHE_KEY, lambda: MemoryTimeline(log), lambda _timeline: 0)
