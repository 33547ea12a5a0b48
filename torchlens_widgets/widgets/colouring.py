"""What colours a trace's graph: its overlay (built-in, custom or the baseline's delta) and its
baseline's facts. Both key on the trace's graph model (``graph_model.TraceGraph``), whichever viewer
draws it, and a refusal leaves the previous overlay or baseline in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import OverlayUnavailableError
from .._overlays import (
    OVERLAYS,
    VALUE_OVERLAYS,
    Overlay,
    OverlayFunction,
    OverlaySource,
    check_overlay_name,
    overlay_choices,
)
from .._privacy import refuse_under_public
from .._trace import require_trace
from ..diffing.baseline import BaselineFacts, baseline_facts, delta_overlay
from ..diffing.facts_cache import FactsByReference, MadeOncePerFacts
from ..graph_model import TraceGraph
from .base import ViewerWidget

# The toolbar's overlays before the capture is known (the trait's default).
DEFAULT_CHOICES = (*OVERLAYS, "delta")


class Colouring:
    """One trace's overlay and baseline, published on a widget's traits: ``overlay`` (read),
    ``overlay_summary``, ``baseline_summary``, ``_overlay_choices``, ``notice`` and ``_colour_rev``
    (bumped: every view asks the colours again and repaints the graph it drew in place).

    Given explicitly: the widget whose traits it sets, the trace and its graph model, the privacy
    profile, ``tell_facts`` (each viewer source is told the baseline's facts: its graph carries them)
    ``reinspect`` (every view asks the selection's inspector facts again) and ``overlays``, where the
    overlays come from (an explorer's own, ``ViewerOverlays``, over the graph of the viewer drawing it;
    a comparison's runs, ``comparing.overlays.RunOverlays``, which names its own comparisons in
    ``own_names``). The widget's trait observers call :meth:`choose`, :meth:`refresh`,
    :meth:`follow_viewer` and :meth:`rebase`; :meth:`check_baseline` validates a new baseline before it
    is set.
    """

    def __init__(
        self,
        widget: ViewerWidget,
        log: Any,
        graph: TraceGraph,
        privacy_profile: str,
        tell_facts: Callable[[BaselineFacts | None], None],
        reinspect: Callable[[], None],
        overlays: OverlaySource,
    ) -> None:
        self._widget = widget
        self._log = log
        self._graph = graph
        self._privacy_profile = privacy_profile
        self._tell_facts = tell_facts
        self._reinspect = reinspect
        self._overlays = overlays
        self.overlay: Overlay | None = None  # the overlay on screen
        # The baseline's facts, and those of the references set before, while they live.
        self.facts: BaselineFacts | None = None
        self._facts_by_reference = FactsByReference()
        self._delta_overlays: MadeOncePerFacts[Overlay] = MadeOncePerFacts()

    def open(self, overlay: str, baseline: Any) -> None:
        """The opening overlay and baseline, checked before anything is drawn (refusals raise)."""
        if baseline is not None:
            self._apply_facts(self.check_baseline(baseline))
        self.overlay = self.overlay_for(overlay)

    def publish(self) -> None:
        """The summaries of the opening overlay and baseline, once the widget's traits exist."""
        self._widget.set_trait("overlay_summary", self.overlay.summary if self.overlay else "")
        self._widget.set_trait("baseline_summary", self.facts.summary() if self.facts else {})
        self._refresh_choices()

    # ----- overlay ----------------------------------------------------------------------------------

    def overlay_for(self, name: str) -> Overlay | None:
        """The overlay of that name (None for ""); OverlayUnavailableError for one it cannot show."""
        if name in self._overlays.own_names:  # a comparison's own ("delta" of the runs, "spread")
            return self._overlays.get(name)
        if name == "delta":
            return self._delta_overlay()
        return self._overlays.get(check_overlay_name(name, self._overlays.custom_names))

    def choose(self, old: str, new: str, *, from_view: bool) -> None:
        """The ``overlay`` trait changed from ``old`` to ``new``: draw it, or put ``old`` back and say why
        (raised too, unless the view chose it in the toolbar)."""
        widget = self._widget
        try:
            overlay = self.overlay_for(new)
        except OverlayUnavailableError as error:
            # The previous overlay stays, on screen and in the trait; the reason is shown in the widget.
            widget.set_trait("overlay", old)
            widget.set_trait("notice", str(error))
            if not from_view:
                raise
            return
        if overlay is self.overlay and overlay is not None:
            # The overlay on screen put back after a refusal (the cache's same object): the graph
            # drawn is already this one, so nothing is asked again.
            return
        self._show(overlay, notice="")

    def refresh(self, name: str) -> None:
        """What the overlay ``name`` on screen shows changed (a comparison's run or reference): its new
        values are drawn in place; one refused for what is shown now draws none and says why in
        ``notice`` (the ``overlay`` trait stays: the next run may show it)."""
        try:
            overlay, notice = self.overlay_for(name), ""
        except OverlayUnavailableError as error:
            overlay, notice = None, str(error)
        self._show(overlay, notice=notice)

    def follow_viewer(self) -> None:
        """The viewer drawing the graph changed: the overlay on screen becomes that viewer's (each
        viewer's overlays key on its own graph), carried by the graph its views ask for next."""
        if self.overlay is None:
            return
        try:
            self.overlay = self.overlay_for(self._widget.overlay)
        except OverlayUnavailableError as error:  # torchlens refused it over this viewer's graph
            self.overlay = None
            self._widget.set_trait("overlay_summary", "")
            self._widget.set_trait("notice", str(error))

    def _show(self, overlay: Overlay | None, *, notice: str) -> None:
        """Draws ``overlay`` (None: no colours) on the graph, with ``notice`` and its summary."""
        widget = self._widget
        self.overlay = overlay
        # One comm message for the summary, the notice and the new colours (a cell of many changes
        # sends a burst the kernel's IOPub socket may drop the end of).
        with widget.hold_sync(), widget.hold_trait_notifications():
            widget.set_trait("notice", notice)
            widget.set_trait("overlay_summary", overlay.summary if overlay else "")
            self._redraw()

    def add(self, name: str, fn: OverlayFunction, current: str) -> None:
        """``add_overlay``: listed in the toolbar; redrawn at once when ``current`` is that name."""
        if self._privacy_profile == "public":
            raise OverlayUnavailableError(
                f"add_overlay({name!r}, ...): a custom overlay may read activation values, which "
                "privacy_profile='public' withholds. Remedy: explore with privacy_profile='local', or use "
                "a 'field:' overlay of a public field."
            )
        self._overlays.add(name, fn)  # OverlayNameError (a ValueError) for a taken name
        self._refresh_choices()
        if current == name:  # on screen: redraw with the new function
            self.overlay = self.overlay_for(name)
            with self._widget.hold_sync():
                self._widget.set_trait("overlay_summary", self.overlay.summary if self.overlay else "")
                self._redraw()

    def _refresh_choices(self) -> None:
        """The toolbar's overlays: torchlens' for this capture and profile, the delta (or a comparison's
        own), the custom ones."""
        built_in = overlay_choices(self._log)
        if self._privacy_profile == "public":  # the toolbar offers only what the profile can show
            choices = [name for name in built_in if name not in VALUE_OVERLAYS]
        else:
            compared = self._overlays.own_names or ("delta",)
            choices = [*built_in, *compared, *self._overlays.custom_names]
        self._widget.set_trait("_overlay_choices", choices)

    def _delta_overlay(self) -> Overlay:
        """torchlens' max-abs delta per node against the baseline (no value where no row settled)."""
        if self.facts is None:
            raise OverlayUnavailableError(
                "The 'delta' overlay needs a baseline. Remedy: set w.baseline = <another trace of this "
                "model> (or explore(log, baseline=ref)) first."
            )
        facts = self.facts
        return self._delta_overlays.get(facts, lambda: delta_overlay(self._graph.payload.collection, facts))

    def _redraw(self) -> None:
        self._widget._recolour()

    # ----- baseline ---------------------------------------------------------------------------------

    def check_baseline(self, ref: Any) -> BaselineFacts:
        """The facts of ``ref`` against this trace (kept while ``ref`` lives: facts_cache.py); raises,
        typed and with torchlens' remedy, for a reference it cannot compare."""
        kept = self._facts_by_reference.get(ref)
        if kept is not None:
            return kept
        if self._privacy_profile == "public":
            raise refuse_under_public(
                "baseline= compares saved values", "explore with privacy_profile='local'."
            )
        require_trace(ref, "baseline")
        # SelfComparisonError when log is ref
        facts = baseline_facts(self._log, ref, payload=self._graph.payload)
        self._facts_by_reference.put(ref, facts)
        return facts

    def rebase(self, ref: Any, overlay: str) -> None:
        """The baseline is now ``ref`` (None: cleared); ``overlay`` is the one on screen (a delta is
        recomputed, or dropped with the baseline). The graph and the inspector are asked again."""
        self._apply_facts(self.check_baseline(ref) if ref is not None else None)
        widget = self._widget
        with widget.hold_trait_notifications():
            widget.set_trait("baseline_summary", self.facts.summary() if self.facts else {})
            if overlay == "delta" and self.facts is None:
                # The delta goes with its baseline: the overlay's observer draws no overlay, with the
                # facts cleared, in one recolour.
                widget.set_trait("overlay", "")
            else:
                if overlay == "delta":
                    self.overlay = self._delta_overlay()
                    widget.set_trait("overlay_summary", self.overlay.summary)
                self._redraw()
            self._reinspect()

    def _apply_facts(self, facts: BaselineFacts | None) -> None:
        self.facts = facts
        self._tell_facts(facts)
