"""The overlays of a comparison's runs on its one graph: every overlay an explorer has, computed for
the run shown, plus "delta" and "spread". All keyed by the node ids of the one Model Explorer
collection drawn (the reference run's), so switching the run shown recolours the graph in place.

Every figure is torchlens': a run's overlay is torchlens' node-data builder run on that run's trace over
the drawn collection (it joins nodes to the run's ops by label and counts the nodes the run lacks as
unjoined, never as zero); "delta" is ``diff_report`` of the run shown against the reference, mapped as
``explore(log, baseline=ref)`` maps it (``diffing.baseline``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from .._ahead import Ahead
from .._overlays import Overlay, OverlayCache, OverlayFunction, overlay_over
from .._privacy import refuse_under_public
from ..diffing.baseline import BaselineFacts, baseline_facts, delta_overlay
from ..diffing.labels import execution_labels
from ..graph_model import TraceGraph
from .runs import Runs

DELTA_OVERLAY = "delta"
SPREAD_OVERLAY = "spread"
COMPARE_OVERLAYS = (DELTA_OVERLAY, SPREAD_OVERLAY)
# The per-run figure the spread is taken over: torchlens' "magnitude" (mean |output| per op).
SPREAD_FIGURE = "magnitude"
SPREAD_PROVIDER = "spread (max - min over the runs of torchlens' magnitude, mean abs per op)"


class RunOverlays:
    """The overlays of every run on the graph drawn (an ``OverlaySource`` for ``Colouring``): ``get``
    answers for the run shown now (``shown()``) against the reference now (``reference()``).

    Each run's overlays are computed once per name (custom overlays added to every run); a run's delta
    once per reference.
    """

    own_names: tuple[str, ...] = COMPARE_OVERLAYS

    def __init__(
        self,
        runs: Runs,
        graph: TraceGraph,
        privacy_profile: str,
        *,
        shown: Callable[[], str],
        reference: Callable[[], str],
    ) -> None:
        self._runs = runs
        self._graph = graph
        self._privacy_profile = privacy_profile
        self._shown = shown
        self._reference = reference
        collection = lambda: graph.payload.collection  # noqa: E731 (built only when first needed)
        self._caches = {
            name: OverlayCache(trace, collection, privacy_profile) for name, trace in runs.traces.items()
        }
        self._facts: dict[tuple[str, str], BaselineFacts] = {}
        self._facts_ahead: Ahead[tuple[str, str], BaselineFacts] = Ahead()
        self._noted: dict[tuple[str, str, str], Overlay | None] = {}

    # ----- the OverlaySource ------------------------------------------------------------------------

    @property
    def custom_names(self) -> tuple[str, ...]:
        return next(iter(self._caches.values())).custom_names

    def add(self, name: str, fn: OverlayFunction) -> None:
        for cache in self._caches.values():
            cache.add(name, fn)
        self._noted.clear()

    def get(self, name: str) -> Overlay | None:
        return self.of(self._shown(), name)

    # ----- per run ----------------------------------------------------------------------------------

    def of(self, run: str, name: str) -> Overlay | None:
        """Overlay ``name`` of ``run`` on the graph drawn; OverlayUnavailableError where torchlens
        refuses it for that run, PrivacyProfileError for a comparison under the public profile."""
        if not name:
            return None
        reference = self._reference()
        key = (run, name, reference if name == DELTA_OVERLAY else "")
        if key not in self._noted:
            if name == DELTA_OVERLAY:
                self._noted[key] = self._delta(run, reference)
            elif name == SPREAD_OVERLAY:
                self._noted[key] = self._spread()
            else:
                overlay = self._caches[run].get(name)
                self._noted[key] = overlay and dataclasses.replace(overlay, note=self._note(run))
        return self._noted[key]

    def facts(self, run: str, reference: str | None = None) -> BaselineFacts | None:
        """torchlens' ``diff_report`` of ``run`` against the reference (the current one by default),
        mapped onto the drawn graph's node ids; None for the reference itself (torchlens compares a
        capture only with another)."""
        reference = reference if reference is not None else self._reference()
        if run == reference:
            return None
        if self._privacy_profile == "public":
            raise refuse_under_public(
                "the delta of two runs compares their saved values",
                "call tlw.compare(..., privacy_profile='local'), or show a cost overlay (time, flops).",
            )
        key = (run, reference)
        if key not in self._facts:
            self._facts[key] = self._facts_ahead.take(key, self._facts_of(run, reference))
        return self._facts[key]

    def ahead(self, run: str, name: str) -> None:
        """Starts overlay ``name`` of ``run`` on the background worker (``_ahead``): its delta, or its
        own overlay (not the spread: made of every run's, it does not change with the run shown)."""
        if name == DELTA_OVERLAY:
            self.facts_ahead(run)
        elif name and name != SPREAD_OVERLAY:
            self._caches[run].ahead(name)

    def facts_ahead(self, run: str) -> None:
        """Starts torchlens' ``diff_report`` of ``run`` against the current reference on the background
        worker (``_ahead``), unless it is known already or not to be computed (the reference
        itself, the public profile); ``facts`` takes it when the run is shown. Answers started ahead
        against an earlier reference are forgotten."""
        reference = self._reference()
        self._facts_ahead.drop(lambda key: key[1] == reference)
        key = (run, reference)
        if run == reference or self._privacy_profile == "public" or key in self._facts:
            return
        self._facts_ahead.start(key, self._facts_of(run, reference))

    def _facts_of(self, run: str, reference: str) -> Callable[[], BaselineFacts]:
        """torchlens' differential of ``run`` against ``reference`` as a call with everything it reads
        bound here, on the kernel's thread (the payload is built here when it was not yet)."""
        subject, ref, payload = self._runs.trace(run), self._runs.trace(reference), self._graph.payload
        return lambda: baseline_facts(subject, ref, payload=payload)

    def value(self, run: str, name: str, label: str) -> float | None:
        """The value of overlay ``name`` at the node of ``label`` for ``run`` (None: not measured there,
        or not in that run). For "spread", each run's own figure the spread is taken over."""
        overlay = self.of(run, SPREAD_FIGURE if name == SPREAD_OVERLAY else name)
        if overlay is None:
            return None
        for graph_id in overlay.node_data:  # the execution graph's op labels, then the rolled layers'
            value = overlay.values_by_label(graph_id).get(label)
            if value is not None:
                return value
        return None

    def largest_deltas(self) -> dict[str, tuple[float, str]]:
        """Drawn op label -> (its largest delta from the reference over the runs, the run it is in)."""
        largest: dict[str, tuple[float, str]] = {}
        for run in self._runs.names:
            facts = self.facts(run)
            if facts is None:
                continue
            for label, fact in facts.by_label.items():
                delta = fact.numeric_delta
                if delta is not None and (label not in largest or delta > largest[label][0]):
                    largest[label] = (delta, run)
        return largest

    # ----- the comparisons --------------------------------------------------------------------------

    def _delta(self, run: str, reference: str) -> Overlay:
        collection = self._graph.payload.collection
        facts = self.facts(run, reference)
        if facts is None:
            coverage = {"provider": "delta", "resolved": 0}
            note = f"run {run} is the reference: pick another run to see its delta"
            return overlay_over(collection, DELTA_OVERLAY, "delta", {}, coverage, note=note)
        return delta_overlay(collection, facts, note=f"{self._note(run)} vs {reference}")

    def _spread(self) -> Overlay:
        """Per node, max - min over the runs of torchlens' magnitude figure (None where fewer than two
        runs have one: a node only one run has, or one torchlens could not measure)."""
        if self._privacy_profile == "public":
            raise refuse_under_public(
                "the spread compares the runs' saved values",
                "call tlw.compare(..., privacy_profile='local'), or show a cost overlay (time, flops).",
            )
        figures = [self._caches[run].get(SPREAD_FIGURE) for run in self._runs.names]
        collection = self._graph.payload.collection
        node_data: dict[str, Any] = {}
        for graph in collection.get("graphs", ()):
            graph_id = str(graph["id"])
            per_run = [figure.values(graph_id) for figure in figures if figure is not None]
            results = {}
            for node_id in {node_id for values in per_run for node_id in values}:
                values = [values[node_id] for values in per_run if node_id in values]
                spread = max(values) - min(values) if len(values) >= 2 else None
                if spread is not None and math.isfinite(spread):
                    results[node_id] = {"value": spread}
            if results:
                template = next(f.node_data[graph_id] for f in figures if f and graph_id in f.node_data)
                node_data[graph_id] = {**template, "name": SPREAD_PROVIDER, "results": results}
        resolved = sum(len(data["results"]) for data in node_data.values())
        total = sum(len(graph.get("nodes", ())) for graph in collection.get("graphs", ()))
        coverage = {"provider": SPREAD_PROVIDER, "resolved": resolved, "omitted_missing": total - resolved}
        runs = len(self._runs.names)
        note = f"over {runs} runs; no value where fewer than two runs measured the node"
        return overlay_over(collection, SPREAD_OVERLAY, SPREAD_PROVIDER, node_data, coverage, note=note)

    def _note(self, run: str) -> str:
        """The run an overlay shows, and how many drawn ops it lacks (drawn without a value)."""
        labels = set(execution_labels(self._graph.payload.collection).values())
        missing = sum(1 for label in labels if self._runs.lacks(run, label))
        return f"run {run}" + (f"; {missing} drawn ops not in this run (no value)" if missing else "")
