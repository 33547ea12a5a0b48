"""What Explorer and Diff share: the frontend bundle, the synced traits every view reads, the request
channel and its asset answers, and selection callbacks. js/widget.ts renders both from one bundle."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    DebugParams,
    DebugResult,
    GraphParams,
    GraphResult,
    InspectParams,
    InspectResult,
    Reply,
)
from .bundle import bundle_source

W = TypeVar("W", bound="ViewerWidget")


# The layout traits a view may set (the divider, the fold and maximize buttons, Escape).
ROOM_TRAITS = frozenset({"inspector_width", "inspector_collapsed", "maximized"})
# What the browser reports: the draw's status, its error, how many graphs were drawn, and the picture
# of the graph as drawn.
REPORTED_TRAITS = frozenset({"status", "error", "draws", "_picture"})


class ViewerWidget(BrowserState):
    """A trace view in the cell: the browser asks for assets, graph and inspector facts; traits carry state.

    Subclasses answer the three requests and call :meth:`_open` at the end of ``__init__``: until then
    the widget is not ready, and observers that would re-publish the view do nothing.
    """

    _esm = bundle_source()
    _browser_reports = REPORTED_TRAITS

    height = traitlets.Int(640, min=200).tag(sync=True)
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
    # Internals: which asset bundle the page needs, a counter bumped whenever the graph changes, and
    # what the view needs to know about the graph before asking for it.
    _asset_key = traitlets.Unicode("").tag(sync=True)
    _graph_rev = traitlets.Int(0).tag(sync=True)
    _graph_info = traitlets.Dict().tag(sync=True)
    # A WebP (or PNG) data URL of the graph as a view last drew it: kept in the notebook when the host
    # saves widget state, and shown by a view restored from it before the kernel runs the cell
    # (js/saved-picture.ts).
    _picture = traitlets.Unicode("").tag(sync=True)

    # False until __init__ has set everything up: trait observers fire during construction too.
    _ready = False

    def _open(self) -> None:
        """Answer the browser's requests from now on (it asks; messages sent before it renders are lost)."""
        self._channel = RequestChannel(self.send, notice=lambda text: self.set_trait("notice", text))
        self._channel.register("assets", self._answer_assets)
        self._channel.register("graph", self._answer_graph, after_reply=self._after_graph_reply)
        self._channel.register("inspect", self._answer_inspect)
        self._channel.register("debug", self._answer_debug)
        self.on_msg(lambda _widget, content, _buffers: self._channel.receive(content))
        self._ready = True

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
        """Asset and graph bytes this widget has sent to the browser (compressed, as sent)."""
        return self._channel.bytes_sent

    def _bundles(self) -> Iterable[AssetBundle]:
        """Every asset bundle this widget has published (a view may ask for any of them)."""
        raise NotImplementedError

    def _answer_assets(self, params: AssetsParams) -> Reply[AssetsResult]:
        # The bundle asked for by key, whichever viewer is current now (a switch may have raced it).
        return answer_assets(params, self._bundles())

    def _answer_graph(self, params: GraphParams) -> Reply[GraphResult]:
        raise NotImplementedError

    def _after_graph_reply(self) -> None:
        """Runs while the browser draws the graph just sent (nothing to do unless a widget says so)."""

    def _answer_inspect(self, params: InspectParams) -> Reply[InspectResult]:
        raise NotImplementedError

    def _answer_debug(self, params: DebugParams) -> Reply[DebugResult]:
        raise NotImplementedError


def unsubscriber(callbacks: list[Any], callback: Callable[..., None]) -> Callable[[], None]:
    """What on_select returns: a function that removes ``callback`` (once; later calls do nothing)."""
    return lambda: callbacks.remove(callback) if callback in callbacks else None
