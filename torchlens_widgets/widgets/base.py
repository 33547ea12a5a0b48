"""What every widget shares, and only that: the frontend bundle, the synced traits every view reads
(layout, selection, status, the debug answers' highlights and status line), and the request channel,
answered by the handlers a widget passes to :meth:`ViewerWidget._open`. The behaviour is in
collaborators a widget holds (``debugging.py``, ``colouring.py``, ``nonfinite.py``, ``sources.py``,
``saving.py``). js/widget.ts renders every widget from one bundle."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import traitlets

from .._assets import AssetBundle, answer_assets
from .._browser_state import BrowserState
from .._channel import RequestChannel
from .._protocol import (
    INSPECTOR_WIDTH,
    MIN_INSPECTOR_WIDTH,
    PICTURE_MAX_CHARS,
    PICTURE_PREFIXES,
    AssetsParams,
    AssetsResult,
    ColoursParams,
    ColoursResult,
    DebugParams,
    DebugResult,
    GraphParams,
    InspectParams,
    InspectResult,
    MemoryTimelineParams,
    MemoryTimelineResult,
    OverlaysAheadParams,
    OverlaysAheadResult,
    Reply,
)
from .bundle import bundle_source

W = TypeVar("W", bound="ViewerWidget")


# Every widget's defaults (explore(), diff(), precision() take them from here).
DEFAULT_HEIGHT = 640
DEFAULT_PRIVACY_PROFILE = "local"

# Recolours closer together than this (a loop over overlays in one cell) send no colours ahead after the
# first: the views would repaint only the last, and ask for it.
BURST_S = 0.1

# The layout traits a view may set (the divider, the fold and maximize buttons, Escape).
ROOM_TRAITS = frozenset({"inspector_width", "inspector_collapsed", "maximized"})
# What the browser reports: the draw's status, its error, how many graphs were drawn, and the picture
# of the graph as drawn.
REPORTED_TRAITS = frozenset({"status", "error", "draws", "_picture"})


@dataclass(frozen=True)
class Answers:
    """How a widget answers its views' requests (the channel's methods, ARCHITECTURE.md)."""

    bundles: Callable[[], Iterable[AssetBundle]]  # every asset bundle it has published
    graph: Callable[[GraphParams], Reply[Any]]
    inspect: Callable[[InspectParams], Reply[InspectResult]]
    debug: Callable[[DebugParams], Reply[DebugResult]]
    # Runs while the browser draws the graph just sent.
    after_graph: Callable[[], None] | None = None
    # The colours of the graph drawn (overlay, node facts); a widget that never recolours has none.
    colours: Callable[[ColoursParams], Reply[ColoursResult]] | None = None
    # The memory strip's series (an explorer's w.timeline); a widget without one answers no such request.
    memory_timeline: Callable[[MemoryTimelineParams], Reply[MemoryTimelineResult]] | None = None
    # The reader nears the overlay menu or the memory switch: overlays slow to build are started.
    overlays_ahead: Callable[[OverlaysAheadParams], Reply[OverlaysAheadResult]] | None = None


def _no_overlays_ahead(params: OverlaysAheadParams) -> Reply[OverlaysAheadResult]:
    """A widget whose menu's overlays are all made when drawn (a diff's delta) builds none ahead."""
    return OverlaysAheadResult(overlays=[]), []


class ViewerWidget(BrowserState):
    """A trace view in the cell: the browser asks for assets, graph and inspector facts; traits carry state.

    A widget calls :meth:`_open` with its :class:`Answers` at the end of ``__init__``: until then it is
    not ready, and observers that would re-publish the view do nothing.
    """

    _esm = bundle_source()
    _browser_reports = REPORTED_TRAITS

    height = traitlets.Int(DEFAULT_HEIGHT, min=200).tag(sync=True)
    # The inspector layout: the inspector's width in px beside the graph (its divider sets it), whether it is
    # folded to a thin strip, and whether the widget fills the notebook window (Escape restores).
    # Set from the view as the user drags, folds or maximizes; kept for the widget's life.
    inspector_width = traitlets.Int(INSPECTOR_WIDTH, min=MIN_INSPECTOR_WIDTH).tag(sync=True)
    inspector_collapsed = traitlets.Bool(False).tag(sync=True)
    maximized = traitlets.Bool(False).tag(sync=True)
    # The viewer's node id of the selection ("" when none); a click sets it, so does select().
    selected_node = traitlets.Unicode("").tag(sync=True)
    # Reported by the browser: "loading", "ready", "error" (with `error` saying why), or "paused": its
    # Model Explorer frame was freed off-screen (the page's WebGL budget) and redraws when scrolled back.
    status = traitlets.Unicode("", read_only=True).tag(sync=True)
    error = traitlets.Unicode("", read_only=True).tag(sync=True)
    # How many times a view of this widget has painted a graph (its frame painted, not only "ready"):
    # a wait for a redraw reads it before the change and waits for it to grow, never for a "ready"
    # that may be left from the last draw.
    draws = traitlets.Int(0, min=0, read_only=True).tag(sync=True)
    # Why the last request did not go as asked: a refused change, a failing callback.
    notice = traitlets.Unicode("", read_only=True).tag(sync=True)
    # Internals: which asset bundle the page needs, a counter bumped whenever the graph changes, one
    # bumped whenever only its colours do (an overlay, a baseline's facts: repainted in place), and
    # what the view needs to know about the graph before asking for it.
    _asset_key = traitlets.Unicode("").tag(sync=True)
    _graph_rev = traitlets.Int(0).tag(sync=True)
    _colour_rev = traitlets.Int(0).tag(sync=True)
    _graph_info = traitlets.Dict().tag(
        sync=True, ts="{ label?: string; graphs?: Record<string, number>; warnings?: string[] }"
    )
    # A WebP (or PNG) data URL of the graph as a view last drew it: kept in the notebook when the host
    # saves widget state, and shown by a view restored from it before the kernel runs the cell
    # (js/view/saved-picture.ts).
    _picture = traitlets.Unicode("").tag(sync=True)
    # The debug answers (debugging.Debugging sets them): the torchlens labels of the highlighted nodes
    # (highlight(), lineage(), a partial capture's failing op), set by the kernel only; their node ids
    # in what the view draws; node id -> role (HIGHLIGHT_ROLE_COLOURS) of the highlighted nodes an
    # answer tells apart (explain_nonfinite), {} for a plain highlight; the last answer's status line.
    highlighted = traitlets.List(traitlets.Unicode()).tag(sync=True)
    _highlight_nodes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    _highlight_roles = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
    debug_status = traitlets.Unicode("", read_only=True).tag(sync=True)

    # False until __init__ has set everything up: trait observers fire during construction too.
    _ready = False
    # The node facts' key of the last colours sent ahead: the next are sent with their facts only if
    # these changed (a view showing other facts asks for them).
    _facts_sent_ahead = ""
    _last_sent_ahead = -float("inf")  # when (time.monotonic()): recolours closer than BURST_S are asked for
    # How it answers its views (set by _open).
    _answers: Answers | None = None

    def _open(self, answers: Answers) -> None:
        """Answer the browser's requests from now on (it asks; messages sent before it renders are lost)."""

        def assets(params: AssetsParams) -> Reply[AssetsResult]:
            # The bundle asked for by key, whichever viewer is current now (a switch may have raced it).
            return answer_assets(params, answers.bundles())

        self._channel = RequestChannel(self.send, notice=lambda text: self.set_trait("notice", text))
        self._channel.register("assets", assets)
        self._channel.register("graph", answers.graph, after_reply=answers.after_graph)
        if answers.colours is not None:
            self._channel.register("colours", answers.colours)
        self._channel.register("inspect", answers.inspect)
        self._channel.register("debug", answers.debug)
        if answers.memory_timeline is not None:
            self._channel.register("memory_timeline", answers.memory_timeline)
        self._channel.register("overlays_ahead", answers.overlays_ahead or _no_overlays_ahead)
        self.on_msg(lambda _widget, content, _buffers: self._channel.receive(content))
        self._answers = answers
        self._ready = True

    def _recolour(self) -> None:
        """Every view repaints the graph it drew with the colours now (an overlay, a baseline's facts,
        a run shown): they are sent ahead, then ``_colour_rev`` moves, which each view would ask
        them for. A view takes those sent ahead when they fit what it shows: one message from the
        kernel instead of a round trip per view."""
        # Held: the new revision reaches the views after the colours it names.
        with self.hold_sync():
            self.set_trait("_colour_rev", self._colour_rev + 1)
            if self._answers is None or self._answers.colours is None:
                return  # not open yet (no view asked anything), or a widget that never recolours
            now = time.monotonic()
            if now - self._last_sent_ahead < BURST_S:
                return  # a cell of many changes: each view asks for the last once the cell is done
            sent = self._channel.send_ahead("colours", {"facts": self._facts_sent_ahead})
            if sent is not None:
                self._facts_sent_ahead = str(sent.get("facts", ""))
                self._last_sent_ahead = now

    def __repr__(self) -> str:
        # Also the text a notebook shows where no widget can be drawn (nbconvert without saved widget
        # state, a viewer without Jupyter): what it is, and how to see it.
        # Never exports: a notebook asks for the repr each time it displays the widget.
        graphs = self._graph_info.get("graphs") or {}
        size = f"{next(iter(graphs.values())):,} nodes " if graphs else ""
        return (
            f"<{type(self).__name__} of {self._subject()}: {size}in {self.viewer}; "
            "a live widget, drawn by a running kernel>"
        )

    def _subject(self) -> str:
        """What the widget shows, in a few words (its repr)."""
        return str(self._graph_info.get("label") or "a trace")

    @traitlets.validate("_picture")
    def _check_picture(self, proposal: dict[str, Any]) -> str:
        value = str(proposal["value"])
        if value and not (value.startswith(PICTURE_PREFIXES) and len(value) <= PICTURE_MAX_CHARS):
            raise traitlets.TraitError(
                f"A picture must be a WebP or PNG data URL of at most {PICTURE_MAX_CHARS:,} characters, not"
                f" {len(value):,} starting {value[:30]!r}. Remedy: the view makes it; leave "
                "it alone."
            )
        return value

    def maximize(self: W, on: bool = True) -> W:
        """Fill the notebook window with the widget (``on=False``, Escape or its button restore it)."""
        self.maximized = bool(on)
        return self

    @property
    def bytes_sent(self) -> int:
        """Asset, graph and colour bytes this widget has sent to the browser (compressed, as sent)."""
        return self._channel.bytes_sent


def unsubscriber(callbacks: list[Any], callback: Callable[..., None]) -> Callable[[], None]:
    """What on_select returns: a function that removes ``callback`` (once; later calls do nothing)."""
    return lambda: callbacks.remove(callback) if callback in callbacks else None
