"""What colours an explorer's graph: its overlay (built-in, custom or the baseline's delta) and its
baseline's facts. Both key on the trace's graph model (``graph_model.TraceGraph``), whichever viewer
draws it, and a refusal leaves the previous overlay or baseline in place."""

from __future__ import annotations

from typing import Any, Self

import traitlets

from .._errors import OverlayUnavailableError
from .._overlays import (
    OVERLAYS,
    VALUE_OVERLAYS,
    Overlay,
    OverlayCache,
    OverlayFunction,
    check_overlay_name,
    overlay_choices,
    overlay_over,
)
from .._privacy import refuse_under_public
from .._trace import require_trace
from ..diffing.baseline import BASELINE_OVERLAY_NAME, BaselineFacts, baseline_facts
from ..graph_model import TraceGraph
from ..viewers import ViewerSource
from .debugging import DebuggingWidget


class OverlayingWidget(DebuggingWidget):
    """A widget of one trace whose graph an overlay and a baseline colour. The subclass sets ``_log``,
    ``_privacy_profile``, ``_graph`` and ``_sources`` (its viewer sources, told the baseline facts),
    then calls ``_init_colouring`` before the widget opens; ``_refresh_questions`` follows the baseline."""

    # Colour nodes by a measured fact: "" | "time" | "flops" | "bytes" | "nan" | "magnitude" |
    # "grad_norm" | "field:<record field>". A refused overlay leaves the previous one in place.
    overlay = traitlets.Unicode("").tag(sync=True)
    # What the widget shows next to the overlay control: coverage, or why an overlay was refused.
    overlay_summary = traitlets.Unicode("", read_only=True).tag(sync=True)
    # A second Trace to compare against (Python-only; never synced), or None.
    baseline = traitlets.Any(None, allow_none=True)
    # What the browser shows about it: {"reference", "line", "counts", "unpaired", ...}; {} when none.
    baseline_summary = traitlets.Dict(read_only=True).tag(sync=True)
    # Bumped when the inspector's facts of the selection changed while the selection did not (a baseline
    # set, changed or cleared): every view asks ``inspect`` again. A new baseline may have the summary of
    # the old one (same name, same counts), so the summary's change alone cannot say it.
    _inspect_rev = traitlets.Int(0).tag(sync=True)
    _overlay_choices = traitlets.List(traitlets.Unicode(), [*OVERLAYS, "delta"]).tag(sync=True)

    _log: Any
    _privacy_profile: str
    _graph: TraceGraph
    _sources: dict[tuple[str, str], ViewerSource]
    # The baseline's facts (each source is told them) and the reference they were computed for.
    _facts: BaselineFacts | None = None
    _facts_of: tuple[Any, BaselineFacts] | None = None

    def _refresh_questions(self) -> None:
        raise NotImplementedError

    def _init_colouring(self, overlay: str, baseline: Any) -> None:
        """Checks the opening overlay and baseline (refusals raise before anything is drawn)."""
        if baseline is not None:
            self._apply_facts(self._baseline_facts(baseline))
        self._overlays = OverlayCache(
            self._log, lambda: self._graph.payload.collection, self._privacy_profile
        )
        self._overlay = self._overlay_for(overlay)

    def _publish_colouring(self) -> None:
        """The summaries of the opening overlay and baseline, once the traits exist."""
        self.set_trait("overlay_summary", self._overlay.summary if self._overlay else "")
        self.set_trait("baseline_summary", self._facts.summary() if self._facts else {})
        self._refresh_choices()

    def add_overlay(self, name: str, fn: OverlayFunction) -> Self:
        """Add an overlay named ``name``: ``fn(record)`` returns a number or None per op record.

        torchlens' node-data builder calls ``fn`` (e.g. ``lambda r: r.out.float().std()``); the name is
        then listed in the toolbar, ``w.overlay = name`` colours both viewers, and ``save_html()``
        includes it. A built-in overlay's name raises ValueError; a function that raises makes
        ``w.overlay = name`` raise OverlayUnavailableError (the previous overlay stays).
        """
        if self._privacy_profile == "public":
            raise OverlayUnavailableError(
                f"add_overlay({name!r}, ...): a custom overlay may read activation values, which "
                "privacy_profile='public' withholds. Remedy: explore with privacy_profile='local', or use "
                "a 'field:' overlay of a public field."
            )
        self._overlays.add(name, fn)  # OverlayNameError (a ValueError) for a taken name
        self._refresh_choices()
        if self.overlay == name:  # on screen: redraw with the new function
            self._overlay = self._overlay_for(name)
            self.set_trait("overlay_summary", self._overlay.summary if self._overlay else "")
            self._graph_rev += 1
        return self

    # ----- overlay ----------------------------------------------------------------------------------

    @traitlets.observe("overlay")
    def _on_overlay(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__ (already applied)
            return
        from_browser = self._set_by_view("overlay")  # chosen in the toolbar, not in Python
        try:
            overlay = self._overlay_for(change["new"])
        except OverlayUnavailableError as error:
            # The previous overlay stays, on screen and in the trait; the reason is shown in the widget.
            self.overlay = change["old"]
            self.set_trait("notice", str(error))
            if not from_browser:
                raise
            return
        self._overlay = overlay
        with self.hold_trait_notifications():
            self.set_trait("notice", "")
            self.set_trait("overlay_summary", overlay.summary if overlay else "")
            self._graph_rev += 1

    def _overlay_for(self, name: str) -> Overlay | None:
        if name == "delta":
            return self._delta_overlay()
        return self._overlays.get(check_overlay_name(name, self._overlays.custom_names))

    def _refresh_choices(self) -> None:
        """The toolbar's overlays: torchlens' for this capture and profile, the delta, the custom ones."""
        built_in = overlay_choices(self._log)
        if self._privacy_profile == "public":  # the toolbar offers only what the profile can show
            self._overlay_choices = [name for name in built_in if name not in VALUE_OVERLAYS]
            return
        self._overlay_choices = [*built_in, "delta", *self._overlays.custom_names]

    def _delta_overlay(self) -> Overlay:
        """torchlens' max-abs delta per node against the baseline (no value where no row settled)."""
        if self._facts is None:
            raise OverlayUnavailableError(
                "The 'delta' overlay needs a baseline. Remedy: set w.baseline = <another trace of this "
                "model> (or explore(log, baseline=ref)) first."
            )
        facts = self._facts
        collection = self._graph.payload.collection
        return overlay_over(collection, "delta", BASELINE_OVERLAY_NAME, facts.overlay, facts.overlay_coverage)

    # ----- baseline ---------------------------------------------------------------------------------

    def _baseline_facts(self, ref: Any) -> BaselineFacts:
        if self._facts_of is not None and self._facts_of[0] is ref:
            return self._facts_of[1]
        if self._privacy_profile == "public":
            raise refuse_under_public(
                "baseline= compares saved values", "explore with privacy_profile='local'."
            )
        require_trace(ref, "baseline")
        # SelfComparisonError when log is ref
        facts = baseline_facts(self._log, ref, payload=self._graph.payload)
        self._facts_of = (ref, facts)
        return facts

    @traitlets.validate("baseline")
    def _check_baseline(self, proposal: dict[str, Any]) -> Any:
        value = proposal["value"]
        if value is not None:
            self._baseline_facts(value)  # raises (typed, with torchlens' remedy); the old baseline stays
        return value

    @traitlets.observe("baseline")
    def _on_baseline(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__ (already applied)
            return
        self._apply_facts(self._baseline_facts(change["new"]) if change["new"] is not None else None)
        with self.hold_trait_notifications():
            self.set_trait("baseline_summary", self._facts.summary() if self._facts else {})
            if self.overlay == "delta":  # recompute against the new baseline, or drop it with the baseline
                if self._facts is None:
                    self.overlay = ""
                else:
                    self._overlay = self._delta_overlay()
                    self.set_trait("overlay_summary", self._overlay.summary)
            self._graph_rev += 1
            self._inspect_rev += 1
            self._refresh_questions()

    def _apply_facts(self, facts: BaselineFacts | None) -> None:
        self._facts = facts
        if facts is None:
            self._facts_of = None
        for source in self._sources.values():
            source.baseline = facts
