"""The Compare widget (``tlw.compare``): many runs of one model on one graph, drawn once, recoloured in
place for the run shown. An Explorer of the reference run whose colouring reads the runs' overlays
(``comparing.overlays.RunOverlays``): a change of run takes the path of an overlay switch."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import traitlets

from .. import _debug
from .._errors import DebugQuestionError, ViewerNotAvailableError
from .._overlays import VALUE_OVERLAYS, check_public_field
from .._privacy import check_privacy_profile, refuse_under_public
from .._protocol import InspectRecord, Reply
from .._trace import record_for_label
from ..comparing.multiples import runs_section
from ..comparing.overlays import COMPARE_OVERLAYS, DELTA_OVERLAY, RunOverlays
from ..comparing.runs import check_aligned, collect_runs, not_on_graph, not_on_graph_line
from ..comparing.union import RunsGraph
from ..inspector.reply import inspect_record
from .base import DEFAULT_HEIGHT, DEFAULT_PRIVACY_PROFILE
from .colouring import Colouring
from .explorer import DEFAULT_VIEWER, Explorer
from .saving import SavedView

# The overlays made of values: refused under privacy_profile="public" before anything is drawn.
VALUE_DERIVED = frozenset({*COMPARE_OVERLAYS, *VALUE_OVERLAYS})


class Compare(Explorer):
    """2 to 16 runs of one model on one graph: the reference run's graph with every run's ops, drawn
    once, coloured for the run shown (``c.run``, the toolbar's run scrubber) by the overlay chosen.

    Create it with :func:`torchlens_widgets.compare` (its parameters are documented there). Everything
    an explorer does on its graph (select, highlight, lineage, overlays, both viewers) works here; what
    is per run answers per run: ``c.selected``, ``c.values()``, ``c.first_divergence()``.
    """

    _kind = traitlets.Unicode("compare", read_only=True).tag(sync=True)
    _browser_writable = Explorer._browser_writable | frozenset({"run"})
    # The runs' names, in order; the run shown (set from Python or the scrubber); the reference.
    runs = traitlets.List(traitlets.Unicode(), read_only=True).tag(sync=True)
    run = traitlets.Unicode("").tag(sync=True)
    reference = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        runs: Any,
        *,
        names: Sequence[str] | None = None,
        reference: str | None = None,
        overlay: str = DELTA_OVERLAY,
        viewer: str = DEFAULT_VIEWER,
        height: int = DEFAULT_HEIGHT,
        privacy_profile: str = DEFAULT_PRIVACY_PROFILE,
    ) -> None:
        profile = check_privacy_profile(privacy_profile)
        if profile == "public" and overlay in VALUE_DERIVED:
            raise refuse_under_public(
                f"overlay={overlay!r} is made of the runs' saved values",
                "call tlw.compare(..., privacy_profile='local'), or a cost overlay: overlay='time' "
                "(or 'flops', 'bytes', 'memory').",
            )
        check_public_field(overlay, profile)  # a "field:" overlay of a value under public
        collected = collect_runs(runs, names)
        ref = collected.check_name(reference if reference is not None else collected.names[0], "reference")
        check_aligned(collected, ref)
        self._runs = collected
        self._drawn_run = ref  # the graph drawn is this run's (with the others' ops), whatever the reference
        super().__init__(collected.trace(ref), viewer=viewer, height=height, privacy_profile=profile)
        # The colouring reads the runs' overlays; the explorer's own (of the reference alone) is replaced
        # before any overlay was computed or shown.
        self._run_overlays = RunOverlays(
            collected, self._graph, profile, shown=lambda: self.run, reference=lambda: self.reference
        )
        self._colouring = Colouring(
            self,
            self._log,
            self._graph,
            profile,
            tell_facts=self._sources.tell_facts,
            reinspect=lambda: self.set_trait("_inspect_rev", self._inspect_rev + 1),
            overlays=self._run_overlays,
        )
        # The ops that some runs lack say so on their nodes.
        self._sources.tell_marks(self._graph.marks)
        others = [name for name in collected.names if name != ref]
        with self.hold_trait_notifications():
            self.set_trait("runs", collected.names)
            self.set_trait("reference", ref)
            self.set_trait("run", others[0])  # the first run that has a delta to show
        self._colouring.open(overlay, None)  # a refused overlay raises here, before anything is drawn
        self._compare_ready = True
        self.set_trait("overlay", overlay)
        self._colouring.publish()
        self._refresh_questions()
        self._look_ahead(+1)

    _compare_ready = False
    _scrub_step = +1  # the way the reader last scrubbed: the run after the one shown, that way, is next

    # ----- public API -----------------------------------------------------------------------------

    @property
    def selected(self) -> dict[str, Any] | None:
        """Run name -> that run's live record of the selection (None where the run lacks it), or None
        when nothing is selected."""
        label = self.selected_label
        if not label:
            return None
        return {name: self._record(name, label) for name in self._runs.names}

    @property
    def not_drawn(self) -> dict[str, list[str]]:
        """Run name -> its op labels with no node of their own on the graph shown, for the runs that have
        any (the status line says so). Both viewers draw the first reference run's graph with every op
        only other runs have added (``comparing.union``); an op may still have none in Netron (inside a
        module call it draws closed), or where torchlens' validator refused Model Explorer's union."""
        return {name: list(labels) for name, labels in self._not_drawn_now().items()}

    def trace(self, name: str) -> Any:
        """The torchlens Trace of run ``name``."""
        return self._runs.trace(name)

    def values(self, name: str | None = None) -> dict[str, float | None]:
        """Run name -> the current overlay's value at the node ``name`` (a label, module address or node
        id; default: the selection), None where that run has no value (not measured, or no such op).

        For "delta", the run's torchlens delta from the reference (None for the reference itself); for
        "spread", each run's own figure the spread is taken over (torchlens' "magnitude").
        """
        label = self._label_of(name)
        overlay = self.overlay
        return {run: self._run_overlays.value(run, overlay, label) for run in self._runs.names}

    def most_changed(self, k: int = 10) -> list[tuple[Any, float]]:
        """The ``k`` nodes that differ most across the runs: each node's largest delta from the reference
        over the runs (torchlens' ``diff_report`` figure, the "delta" overlay's), largest first, as
        ``(record, score)`` with the reference run's record. Highlighted, the first selected."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(
                f"most_changed(k={k!r}): k is how many nodes to return. Remedy: pass an int >= 1."
            )
        largest = self._run_overlays.largest_deltas()
        ranked = sorted(largest.items(), key=lambda item: item[1][0], reverse=True)[:k]
        if not ranked:
            self._debugging.say("No node has a delta from the reference: torchlens compared no saved values.")
            return []
        index = self._source.index
        drawn = [label for label, _ in ranked if index.id_of_label(label) is not None]
        top, (score, run) = ranked[0]
        status = (
            f"The {len(ranked)} nodes that differ most from {self.reference} over the runs, filled yellow; "
            f"first {top} (delta {score:.3g} in run {run})."
        )
        with self.hold_trait_notifications():
            self._debugging.mark(dict.fromkeys(drawn, "ranked"))
            self._debugging.show_answer(status, top)
        return [(self._record(self.reference, label), score) for label, (score, _) in ranked]

    def first_divergence(  # type: ignore[override]  # per run, where an explorer answers one pair
        self, rtol: float = 1e-5, atol: float = 1e-8
    ) -> dict[str, tuple[Any, Any] | None]:
        """Run name -> torchlens' first divergence of that run from the reference
        (``tl.debug.first_divergence``, as ``w.first_divergence()`` answers for a baseline):
        ``(record, reference_record)`` (None on a side that lacks the op), or None where nothing diverged
        (and for the reference itself). The run shown's answer is selected and said in ``debug_status``."""
        reference = self._runs.trace(self.reference)
        answers: dict[str, _debug.Divergence | None] = {
            name: None
            if name == self.reference
            else _debug.first_divergence(self._runs.trace(name), reference, rtol=rtol, atol=atol)
            for name in self._runs.names
        }
        shown = answers.get(self.run)
        if shown is None:  # the reference shown: the first run that diverged speaks
            shown = next((a for a in answers.values() if a is not None and a.label), None)
        if shown is not None:
            run = next(name for name, answer in answers.items() if answer is shown)
            label = shown.label if shown.record_b is not None else None
            self._debugging.show_answer(f"Run {run} vs {self.reference}: {shown.status}", label)
        return {name: (answer.pair if answer is not None else None) for name, answer in answers.items()}

    def _saved_view(self) -> SavedView:
        """The explorer's file with every run's graphs (the page's scrubber switches among them) and the
        runs' traits; the inspector's facts are the reference run's, its runs section at the overlay
        shown when saved."""
        view = super()._saved_view()
        return dataclasses.replace(
            view,
            state={**view.state, "runs": self.runs, "run": self.run, "reference": self.reference},
            runs={run: functools.partial(self._run_overlays.of, run) for run in self._runs.names},
        )

    # ----- helpers --------------------------------------------------------------------------------

    _graph: RunsGraph

    def _graph_model(self, log: Any) -> RunsGraph:
        """Every run's ops on the reference run's graph, in both viewers (``comparing.union``)."""
        return RunsGraph(self._runs, self._drawn_run, self._privacy_profile)

    def _trace_of(self, name: str) -> Any:
        """The trace of the run drawn; for an op only other runs have, the first run's that has it."""
        try:
            label = self._source.index.label_of(self._source.resolve(name))
        except (KeyError, ValueError):
            return self._log  # torchlens says what the name is not
        if not self._runs.lacks(self._drawn_run, label):
            return self._log
        return self._runs.trace(next(run for run in self._runs.names if not self._runs.lacks(run, label)))

    def _not_drawn_now(self) -> dict[str, list[str]]:
        """Run name -> its ops the run drawn lacks that have no node of their own on the graph shown."""
        index = self._source.index
        lacking = not_on_graph(self._runs, self._drawn_run)
        not_drawn = {
            run: [label for label in labels if index.id_of_label(label) is None]
            for run, labels in lacking.items()
        }
        return {run: labels for run, labels in not_drawn.items() if labels}

    def _record(self, run: str, label: str) -> Any:
        try:
            return record_for_label(self._runs.trace(run), label)
        except (KeyError, ValueError, IndexError):
            return None

    def _label_of(self, name: str | None) -> str:
        if name is None:
            label = self.selected_label
            if not label:
                raise DebugQuestionError(
                    "values() of the selection, and nothing is selected. Remedy: select a node (a click, "
                    "or c.select(name)) or pass its name: c.values('linear_1_1')."
                )
            return label
        return self._source.index.label_of(self._source.resolve(name))

    def _inspect_label(self, label: str) -> Reply[InspectRecord]:
        """The panel of the run drawn for the node (the first run's that has it, for an op the run drawn
        lacks), with the node in every run (the small multiples)."""
        trace = self._trace_of(label)
        if trace is not self._log:  # an op only other runs have: drawn from theirs
            profile = self._privacy_profile
            header, buffers = inspect_record(trace, trace[label], label, privacy_profile=profile)
        else:
            header, buffers = super()._inspect_label(label)
        header["runs"] = runs_section(
            self._runs, self._run_overlays, self.overlay, label, shown=self.run, reference=self.reference
        )
        return header, buffers

    def _refresh_questions(self) -> None:
        questions = ["first_divergence"]
        if self._nonfinite.found:
            questions += ["first_nonfinite", "explain_nonfinite"]
        self._debug_questions = questions

    def _subject(self) -> str:
        return f"{len(self._runs.names)} runs of {super()._subject()}"

    def _graph_info_now(self) -> dict[str, Any]:
        """The explorer's, with a warning of the runs' ops the graph has no node for."""
        info = super()._graph_info_now()
        netron = self._sources.viewer == "netron"
        why = "Model Explorer draws each op (c.viewer = 'model-explorer')" if netron else self._graph.refused
        line = not_on_graph_line(self._not_drawn_now(), self._drawn_run, why)
        return {**info, "warnings": [*info.get("warnings", []), line]} if line and info else info

    # ----- trait plumbing -------------------------------------------------------------------------

    @traitlets.validate("baseline")
    def _check_baseline(self, proposal: dict[str, Any]) -> Any:
        if proposal["value"] is not None:
            raise ViewerNotAvailableError(
                "A Compare compares its runs with c.reference, not with a baseline. Remedy: set "
                "c.reference = <a run's name>, or tlw.explore(trace, baseline=ref) for one pair."
            )
        return None

    @traitlets.validate("run", "reference")
    def _check_run(self, proposal: dict[str, Any]) -> str:
        return self._runs.check_name(proposal["value"], proposal["trait"].name)

    @traitlets.observe("run", "reference")
    def _on_run(self, change: dict[str, Any]) -> None:
        if self._compare_ready:  # recoloured in place: the same graph, the run's node data
            if change["name"] == "run":
                names = self._runs.names
                self._scrub_step = +1 if names.index(change["new"]) >= names.index(change["old"]) else -1
            self._colouring.refresh(self.overlay)
            if change["name"] == "reference":
                self._reinspect()  # every run's delta is from the reference
            self._look_ahead(self._scrub_step)

    @traitlets.observe("overlay")
    def _on_compare_overlay(self, change: dict[str, Any]) -> None:
        if self._compare_ready:
            self._reinspect()  # the small multiples show the overlay's values
            self._look_ahead(self._scrub_step)

    def _look_ahead(self, step: int) -> None:
        """Starts the overlay shown, for the run the reader reaches next (the one after the run shown, the
        way they last scrubbed), while they look at this one: a scrub on finds it computed instead of
        waiting for torchlens (the delta's ``diff_report``: 0.07-0.2 s a run on GPT-2 small, about 1.5 s
        on a 10,000-op trace; the memory overlay's liveness 0.13 s on GPT-2 small). One run ahead only:
        the kernel's time goes to the run a reader is about to see."""
        names = self._runs.names
        ahead = names.index(self.run) + step
        if 0 <= ahead < len(names):
            self._run_overlays.ahead(names[ahead], self.overlay)

    def _overlay_ahead(self, name: str) -> None:
        self._run_overlays.ahead(self.run, name)  # the run shown's own

    def _reinspect(self) -> None:
        """Every view asks the selection's panel again (the run shown alone is marked by the view: its
        values do not change with it)."""
        if self.selected_label:
            self.set_trait("_inspect_rev", self._inspect_rev + 1)
