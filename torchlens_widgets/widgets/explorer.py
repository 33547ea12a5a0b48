"""The Explorer widget: one trace, shown inline in a viewer, with selection synced both ways."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Iterable
from typing import Any, Self

import traitlets

from .. import _debug
from .._assets import AssetBundle
from .._errors import (
    DebugQuestionError,
    NodeNotFoundError,
    ViewerNotAvailableError,
)
from .._offline import DEFAULT_MAX_BYTES
from .._overlays import (
    AHEAD_OVERLAYS,
    MEMORY_OVERLAY,
    MENU_AHEAD_OVERLAYS,
    Overlay,
    OverlayFunction,
    ViewerOverlays,
)
from .._privacy import check_privacy_profile
from .._protocol import (
    ColoursParams,
    ColoursResult,
    GraphParams,
    GraphResult,
    InspectNone,
    InspectParams,
    InspectRecord,
    InspectResult,
    OverlaysAheadParams,
    OverlaysAheadResult,
    Reply,
)
from .._trace import require_trace
from ..graph_model import TraceGraph
from ..inspector.difference import baseline_section
from ..inspector.memory import memory_section
from ..inspector.reply import inspect_record
from ..viewers import VIEWERS, ViewerSource
from ..viewers.netron import DEFAULT_DEPTH, DEFAULT_SHOW_BUFFERS, check_granularity, check_netron_options
from . import base
from .base import DEFAULT_HEIGHT, DEFAULT_PRIVACY_PROFILE, Answers, ViewerWidget, unsubscriber
from .colouring import DEFAULT_CHOICES, Colouring
from .debugging import Debugging
from .memory import MemoryAnswers
from .nonfinite import NonFiniteAnswers, NonFiniteResult
from .saving import SAVED_TRAITS, SavedView, save_explorer_html
from .sources import TraceSources

# explore()'s defaults besides every widget's (base.py) and Netron's (viewers/netron.py).
DEFAULT_VIEWER = "model-explorer"
DEFAULT_GRANULARITY = "module"

SelectCallback = Callable[[Any], None]


class Explorer(ViewerWidget):
    """A torchlens trace drawn inline by Model Explorer (or Netron), selection synced with the kernel.

    Create it with :func:`torchlens_widgets.explore` (its parameters are documented there). The
    widget owns its traits; its collaborators do the work: ``TraceSources`` (which viewer draws the
    trace), ``Colouring`` (overlay and baseline), ``Debugging`` (highlights and answers),
    ``NonFiniteAnswers`` (NaN and Inf), and ``saving`` (save_html).
    """

    # What a view may set (a click, the toolbar, what it reports); the rest is the kernel's.
    _browser_writable = (
        frozenset({"viewer", "granularity", "overlay", "timeline", "height", "selected_node"})
        | base.ROOM_TRAITS
        | base.REPORTED_TRAITS
    )

    viewer = traitlets.Unicode(DEFAULT_VIEWER).tag(sync=True)
    # Netron's view of the trace: module calls as drill-down boxes, every op flat, or rolled passes.
    granularity = traitlets.Unicode(DEFAULT_GRANULARITY).tag(sync=True)
    # The torchlens label of the selection; derived in the kernel from selected_node.
    selected_label = traitlets.Unicode("", read_only=True).tag(sync=True)
    # Netron's module grouping depth (an int >= 1) and buffer policy ("never" | "meaningful" |
    # "always"): tl.export.netron's options, checked by torchlens (ValueError naming the choices).
    depth = traitlets.Any(DEFAULT_DEPTH).tag(sync=True, ts="number")
    show_buffers = traitlets.Any(DEFAULT_SHOW_BUFFERS).tag(sync=True, ts="string")
    # Colour nodes by a measured fact: "" | "time" | "flops" | "bytes" | "nan" | "magnitude" |
    # "grad_norm" | "field:<record field>". A refused overlay leaves the previous one in place.
    overlay = traitlets.Unicode("").tag(sync=True)
    # What the widget shows next to the overlay control: coverage, or why an overlay was refused.
    overlay_summary = traitlets.Unicode("", read_only=True).tag(sync=True)
    # A second Trace to compare against (Python-only; never synced), or None.
    baseline = traitlets.Any(None, allow_none=True)
    # What the browser shows about it: {"reference", "line", "counts", "unpaired", ...}; {} when none.
    baseline_summary = traitlets.Dict(read_only=True).tag(sync=True, ts="{ line?: string }")
    # Bumped when the inspector's facts of the selection changed while the selection did not (a baseline
    # set, changed or cleared): every view asks ``inspect`` again. A new baseline may have the summary of
    # the old one (same name, same counts), so the summary's change alone cannot say it.
    _inspect_rev = traitlets.Int(0).tag(sync=True)
    _overlay_choices = traitlets.List(traitlets.Unicode(), list(DEFAULT_CHOICES)).tag(sync=True)
    # The toolbar's debug buttons: "first_divergence" (with a baseline), "first_nonfinite" and
    # "explain_nonfinite" (when the capture holds a NaN or an Inf).
    _debug_questions = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # torchlens' memory summary in one line, shown in the status line while memory is shown ("" else).
    _memory_line = traitlets.Unicode("").tag(sync=True)
    # The strip under the graph: None (hidden) or "memory" (torchlens' live bytes over execution order,
    # js/memory/memory-strip.ts). Set from Python; a strip torchlens cannot build raises and the value stays.
    timeline = traitlets.Unicode(None, allow_none=True).tag(sync=True)

    def __init__(
        self,
        log: Any,
        *,
        viewer: str = DEFAULT_VIEWER,
        granularity: str = DEFAULT_GRANULARITY,
        overlay: str = "",
        height: int = DEFAULT_HEIGHT,
        privacy_profile: str = DEFAULT_PRIVACY_PROFILE,
        baseline: Any = None,
        depth: int = DEFAULT_DEPTH,
        show_buffers: str = DEFAULT_SHOW_BUFFERS,
        timeline: str | None = None,
    ):
        failure: _debug.PartialCapture | None = None
        if _debug.is_partial_capture(log):  # a forward pass that raised: draw what ran
            failure = _debug.partial_capture(log)  # PartialCaptureNotDrawableError when nothing can be
            log = failure.trace
        require_trace(log)
        self._log = log
        self._failure = failure
        self._privacy_profile = check_privacy_profile(privacy_profile)
        self._callbacks: list[SelectCallback] = []
        self._graph = self._graph_model(log)  # exported once, on first use
        self._sources = TraceSources(  # raises before drawing (an unknown viewer, missing assets)
            log,
            self._graph,
            self._privacy_profile,
            viewer=viewer,
            granularity=granularity,
            depth=depth,
            show_buffers=show_buffers,
        )
        self._own_overlays = ViewerOverlays(
            log, self._graph, self._privacy_profile, lambda: self._sources.viewer
        )
        self._colouring = Colouring(
            self,
            log,
            self._graph,
            self._privacy_profile,
            tell_facts=self._sources.tell_facts,
            reinspect=lambda: self.set_trait("_inspect_rev", self._inspect_rev + 1),
            overlays=self._own_overlays,
        )
        self._colouring.open(overlay, baseline)  # refused overlays and baselines raise here
        self._debugging = Debugging(
            self,
            select=self.select,
            node_ids=lambda labels: self._source.highlight_ids(labels),
            selected_label=lambda: self.selected_label,
            lineage=lambda direction: self.lineage(direction=direction),
            answers={
                "first_divergence": self.first_divergence,
                "first_nonfinite": self.first_nonfinite,
                "explain_nonfinite": self.explain_nonfinite,
            },
        )
        self._nonfinite = NonFiniteAnswers(
            log,
            self._privacy_profile,
            self._debugging,
            index=lambda: self._source.index,
            holding=self.hold_trait_notifications,
            on_known=self._refresh_questions,  # the toolbar offers its buttons once the answer is known
        )
        self._memory = MemoryAnswers(
            self, log, self._debugging, record=lambda label: log[label], node_ids=self._drawn_node_ids
        )
        super().__init__(
            viewer=viewer,
            granularity=granularity,
            overlay=overlay,
            height=height,
            baseline=baseline,
            depth=depth,
            show_buffers=show_buffers,
            timeline=timeline,  # validated by _check_timeline: a refusal raises here, before any draw
            # In the comm's opening state, so no view (VS Code renders outputs on a path of its own)
            # starts without knowing which assets and graph to ask for.
            **self._source_traits(),
            _graph_rev=1,
        )
        self._colouring.publish()
        self._memory.show(self._memory_shown)
        self._refresh_questions()
        self._open(
            Answers(
                bundles=self._bundles,
                graph=self._answer_graph,
                colours=self._answer_colours,
                inspect=self._answer_inspect,
                debug=self._debugging.answer,
                # torchlens' first non-finite op, asked while the browser draws the first graph.
                after_graph=self._nonfinite.prefetch,
                memory_timeline=self._memory.strip,
                overlays_ahead=self._answer_overlays_ahead,
            )
        )
        if failure is not None:
            self._show_failure(failure)

    # ----- public API -----------------------------------------------------------------------------

    @property
    def log(self) -> Any:
        """The trace this widget shows."""
        return self._log

    def _subject(self) -> str:
        return str(getattr(self._log, "model_class_name", "") or super()._subject())

    @property
    def selected(self) -> Any:
        """The live torchlens record of the selection (``log[selected_label]``), or None."""
        return self._source.record(self.selected_label) if self.selected_label else None

    def select(self, name: str) -> Explorer:
        """Select and centre a node by torchlens label, module address or viewer node id.

        Raises NodeNotFoundError (a KeyError), with torchlens' suggestions, for a name that matches no node.
        """
        node = self._source.resolve(name)
        with self.hold_sync():  # the node and its label in one comm message
            self.selected_node = node
        return self

    def on_select(self, callback: SelectCallback) -> Callable[[], None]:
        """Call ``callback(record)`` after each selection, from a click or from select().

        A callback that raises does not stop the others: ``w.notice`` names it and its exception.
        Returns a function that unregisters the callback.
        """
        self._callbacks.append(callback)
        return unsubscriber(self._callbacks, callback)

    def add_overlay(self, name: str, fn: OverlayFunction) -> Self:
        """Add an overlay named ``name``: ``fn(record)`` returns a number or None per op record.

        torchlens' node-data builder calls ``fn`` (e.g. ``lambda r: r.out.float().std()``); the name is
        then listed in the toolbar, ``w.overlay = name`` colours both viewers, and ``save_html()``
        includes it. A built-in overlay's name raises ValueError; a function that raises makes
        ``w.overlay = name`` raise OverlayUnavailableError (the previous overlay stays).
        """
        self._colouring.add(name, fn, current=self.overlay)
        return self

    # ----- memory ---------------------------------------------------------------------------------

    @property
    def memory_summary(self) -> dict[str, Any]:
        """torchlens' memory picture of the trace (``torchlens.observe``'s timeline and its estimated
        liveness): ``peak_bytes``, ``peak_label`` and ``peak_module`` (the op and module at the peak),
        ``persistent_baseline_bytes`` (parameters and buffers), ``category_totals``, ``absent`` (what
        torchlens says it cannot see, e.g. no backward pass), and a one-line ``"line"``, also in the
        status line while ``overlay == "memory"``. Estimated logical bytes, not allocator residency.
        MemoryTimelineError where torchlens cannot build the timeline."""
        return self._memory.summary()

    @property
    def _memory_shown(self) -> bool:
        return _memory_on(self.overlay, self.timeline)

    def _memory_changed(self, was_shown: bool) -> None:
        """The overlay or the strip changed: the summary line and the inspector's memory section come
        or go when memory's being on screen did."""
        if self._memory_shown != was_shown:
            with self.hold_trait_notifications():
                self._memory.show(self._memory_shown)
                self._inspect_rev += 1

    def memory_peak(self) -> Any:
        """Select and centre torchlens' memory peak (the op its liveness estimate peaks at), state the
        summary in ``w.debug_status``, and return the op's record (None when no op is at the peak)."""
        return self._memory.peak()

    # ----- debugging ------------------------------------------------------------------------------

    def first_divergence(self, rtol: float = 1e-5, atol: float = 1e-8) -> tuple[Any, Any] | None:
        """torchlens' first divergence of this trace from its baseline (``tl.debug.first_divergence``).

        Selects and centres that op, says what diverged and by how much in ``w.debug_status``, and
        returns ``(record, baseline_record)`` (None on a side that lacks the op), or None when nothing
        diverged. Needs a baseline (``explore(log, baseline=ref)`` or ``w.baseline = ref``).
        """
        if self.baseline is None:
            raise DebugQuestionError(
                "first_divergence() compares this trace with its baseline, and it has none. Remedy: set "
                "w.baseline = <another trace of this model> (or use tlw.diff(a, b).first_divergence())."
            )
        answer = _debug.first_divergence(self._log, self.baseline, rtol=rtol, atol=atol)
        self._debugging.show_answer(answer.status, answer.label if answer.record_a is not None else None)
        return answer.pair

    def first_nonfinite(self) -> Any:
        """torchlens' first op whose saved output holds a NaN or an Inf (``log.find_nan()``, the op
        behind ``log.first_nonfinite()``): selects and centres it and returns its record, or None."""
        return self._nonfinite.first_nonfinite()

    def explain_nonfinite(self) -> NonFiniteResult:
        """Where the capture's non-finite values were born, apart from where they only spread.

        torchlens' frontier (``torchlens.notebook.frontier.nonfinite_frontier``) names the ops that
        produced them (their inputs were finite) and the ops that carry them. The producers are
        highlighted filled in magenta, the carriers boxed in purple; the first producer is selected
        and centred, and the inspector shows its inputs' ranges against their dtype's limits and
        its source line. ``w.debug_status`` says what was found and torchlens' coverage.
        """
        return self._nonfinite.explain_nonfinite()

    def highlight(self, names: str | Iterable[str] | None) -> Explorer:
        """Mark nodes (torchlens labels, module addresses or node ids) apart from the selection and
        the overlay colours; ``w.highlighted`` lists their labels. ``highlight(None)`` clears.

        An unknown name raises NodeNotFoundError (a KeyError) and nothing changes.
        """
        self.highlighted = _debug.highlight_labels(self._log, self._source.index, names)
        return self

    def lineage(self, name: str | None = None, direction: str = "upstream") -> list[str]:
        """Highlight torchlens' lineage of a node (``tl.debug.lineage``; default: the selection) and
        return its labels, the node's own first. ``direction``: "upstream" (what feeds it) or
        "downstream" (what it feeds). Ops the view does not draw are returned but not highlighted."""
        if name is None:
            name = self.selected_label
            if not name:
                raise DebugQuestionError(
                    "lineage() of the selection, and nothing is selected. Remedy: select a node "
                    "(a click, or w.select(name)) or pass its name: w.lineage('linear_1_1')."
                )
        labels = _debug.lineage(self._trace_of(name), self._source.index, name, direction)
        drawn = _debug.drawn_labels(self._source.index, labels)
        return self._debugging.show_lineage(direction, labels, drawn)

    def _show_failure(self, failure: _debug.PartialCapture) -> None:
        if self._privacy_profile == "public":
            # The message names values and may name files; the failing op is torchlens' first non-finite.
            self._debugging.say(
                f"The forward pass failed with {failure.exception_type}; its message and the op it failed at "
                "are withheld: privacy_profile='public' shows no value-derived facts or source paths. "
                "Remedy: explore(partial, privacy_profile='local')."
            )
            return
        where = f" at {failure.failing_label}" if failure.failing_label else ""
        status = f"The forward pass failed{where}: {failure.exception_text}"
        if failure.failing_label is not None:
            with self.hold_trait_notifications():
                self.highlighted = [failure.failing_label]
                status += self._debugging.select_answer(failure.failing_label)
        self._debugging.say(status)

    def _refresh_questions(self) -> None:
        questions = ["first_divergence"] if self.baseline is not None else []
        if self._nonfinite.found:
            questions += ["first_nonfinite", "explain_nonfinite"]
        self._debug_questions = questions

    def save_html(
        self,
        path: str | pathlib.Path,
        *,
        inspector: bool = True,
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: bool | None = None,
    ) -> pathlib.Path:
        """Write one self-contained HTML file that shows this widget with no kernel and no network.

        It holds the viewer, the graph, every overlay this capture can show (switchable in the
        file's toolbar), the current selection and, unless ``inspector=False``, the inspector facts
        of every node. The notebook's saved state stays small: only this file holds the assets.

        The file is at most ``max_bytes`` bytes (default 32 MiB). Inspector facts are added in graph
        order, the selected node first, while they fit; past the bound a node keeps its facts with
        its value summary left out, or only its name, and its panel in the file says so and how to
        save it whole (a larger ``max_bytes``). If the viewer and the graph alone do not fit,
        SaveSizeError says how many bytes they need, and nothing is written.

        Replies are written to the file as they are computed, never all held at once. A progress
        bar shows in the cell for a long write (``progress=None``: in a notebook, from 200 nodes
        on; ``True`` / ``False`` to force it on or off).
        """
        return save_explorer_html(self._saved_view(), pathlib.Path(path), inspector, max_bytes, progress)

    def _saved_view(self) -> SavedView:
        """What the file of ``save_html`` shows: this view's traits, graphs and answers."""
        return SavedView(
            state={name: getattr(self, name) for name in SAVED_TRAITS},
            source=self._source,
            overlays=[self.overlay, *self._overlay_choices],
            overlay_for=self._colouring.overlay_for,
            inspect=self._inspect_label,
            timeline=(lambda: self._memory.strip({})) if self.timeline is not None else None,
        )

    # ----- collaborators' state -------------------------------------------------------------------

    @property
    def _source(self) -> ViewerSource:
        """The viewer source of what the views draw now."""
        return self._sources.current

    @property
    def _overlay(self) -> Overlay | None:
        """The overlay on screen (None for none)."""
        return self._colouring.overlay

    # ----- trait plumbing -------------------------------------------------------------------------

    @traitlets.validate("viewer")
    def _check_viewer(self, proposal: dict[str, Any]) -> str:
        value = str(proposal["value"])
        if value not in VIEWERS:
            raise ViewerNotAvailableError(
                f"Unknown viewer {value!r}. Remedy: use one of {', '.join(map(repr, VIEWERS))}."
            )
        return value

    @traitlets.validate("granularity")
    def _check_granularity(self, proposal: dict[str, Any]) -> str:
        return check_granularity(proposal["value"])

    @traitlets.validate("depth")
    def _check_depth(self, proposal: dict[str, Any]) -> int:
        return check_netron_options(proposal["value"], self.show_buffers)[0]

    @traitlets.validate("show_buffers")
    def _check_show_buffers(self, proposal: dict[str, Any]) -> str:
        return check_netron_options(self.depth, proposal["value"])[1]

    @traitlets.observe("depth", "show_buffers")
    def _on_netron_options(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__ (already applied)
            return
        self._sources.set_netron_options(self.depth, self.show_buffers)
        if self.viewer == "netron":  # redraw Netron with the new options; Model Explorer has none
            self._on_view_change(change)

    @traitlets.observe("overlay")
    def _on_overlay(self, change: dict[str, Any]) -> None:
        if self._ready:  # else still in __init__ (already applied)
            was_shown = _memory_on(change["old"], self.timeline)
            self._colouring.choose(change["old"], change["new"], from_view=self._set_by_view("overlay"))
            self._memory_changed(was_shown)

    @traitlets.observe("draws")
    def _on_drawn(self, change: dict[str, Any]) -> None:
        """A view drew the graph, and the kernel is free (the browser's report waits behind the cells
        being run): the overlays a reader switches to first are built now, on the background worker,
        so that a first switch to one waits for the browser's recolour only."""
        for name in AHEAD_OVERLAYS:
            self._overlay_ahead(name)

    def _overlay_ahead(self, name: str) -> None:
        self._own_overlays.ahead(name)

    def _answer_overlays_ahead(self, params: OverlaysAheadParams) -> Reply[OverlaysAheadResult]:
        """The reader nears the overlay menu or the memory switch: the memory overlay is started too
        (after the cost overlays, started when the graph was drawn), on the background worker."""
        for name in MENU_AHEAD_OVERLAYS:
            self._overlay_ahead(name)
        return OverlaysAheadResult(overlays=[*AHEAD_OVERLAYS, *MENU_AHEAD_OVERLAYS]), []

    @traitlets.validate("timeline")
    def _check_timeline(self, proposal: dict[str, Any]) -> str | None:
        return self._memory.check_timeline(proposal["value"])

    @traitlets.observe("timeline")
    def _on_timeline(self, change: dict[str, Any]) -> None:
        self._memory_changed(_memory_on(self.overlay, change["old"]))

    @traitlets.validate("baseline")
    def _check_baseline(self, proposal: dict[str, Any]) -> Any:
        value = proposal["value"]
        if value is not None:
            self._colouring.check_baseline(value)  # raises (typed, with torchlens' remedy); the old stays
        return value

    @traitlets.observe("baseline")
    def _on_baseline(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__ (already applied)
            return
        with self.hold_trait_notifications():
            self._colouring.rebase(change["new"], self.overlay)
            self._refresh_questions()

    @traitlets.validate("highlighted")
    def _check_highlighted(self, proposal: dict[str, Any]) -> list[str]:
        return _debug.highlight_labels(self._log, self._source.index, proposal["value"])

    @traitlets.observe("highlighted")
    def _on_highlighted(self, change: dict[str, Any]) -> None:
        self._debugging.publish_highlight()  # marked by the browser on the graph drawn, in both viewers

    @traitlets.observe("viewer", "granularity")
    def _on_view_change(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__
            return
        label = self.selected_label
        source = self._sources.show(self.viewer, self.granularity)
        self._colouring.follow_viewer()
        # Keep the selection across views when the new view draws that node (op <-> module <-> rolled).
        try:
            node = source.resolve(label) if label else ""
        except KeyError:
            node = ""
        # One comm message for the new source, the selection and the highlight.
        with self.hold_sync(), self.hold_trait_notifications():
            self.selected_node = node
            self._debugging.publish_highlight()
            self._publish_source()

    @traitlets.validate("selected_node")
    def _check_selected_node(self, proposal: dict[str, Any]) -> str:
        value = str(proposal["value"])
        if value and not self._source.index.has_id(value):
            raise NodeNotFoundError(
                f"No node with viewer id {value!r}. Remedy: use select(name) with a label."
            )
        return value

    @traitlets.observe("selected_node")
    def _on_selected_node(self, change: dict[str, Any]) -> None:
        label = self._source.index.label_of(change["new"]) if change["new"] else ""
        self.set_trait("selected_label", label)
        if label:
            self._run_callbacks(self._callbacks, self.selected)

    def _source_traits(self) -> dict[str, Any]:
        """What a view needs to know to ask for the current viewer's assets and graph. The graph's
        size is known once torchlens has exported it ({} until then: the graph reply sets it)."""
        info = self._graph_info_now() if self._source.exported else {}
        return {"_asset_key": self._source.assets().key, "_graph_info": info}

    def _graph_info_now(self) -> dict[str, Any]:
        """What the view is told of the graph exported: its label, sizes and warnings."""
        return self._source.info()

    def _publish_source(self) -> None:
        for name, value in self._source_traits().items():
            setattr(self, name, value)
        self._graph_rev += 1

    # ----- requests from the browser --------------------------------------------------------------

    def _bundles(self) -> Iterable[AssetBundle]:
        return self._sources.bundles()

    def _answer_graph(self, params: GraphParams) -> Reply[GraphResult]:
        # The export, on first use.
        reply = self._source.graph(self._colouring.overlay, self._colour_rev)
        self._graph_info = self._graph_info_now()  # synced before the reply: the view counts its nodes
        return reply

    def _answer_colours(self, params: ColoursParams) -> Reply[ColoursResult]:
        # The node facts are sent only when they are not the ones the view shows (a key of them).
        shown_facts = str(params.get("facts", ""))
        return self._source.colours(self._colouring.overlay, self._colour_rev, shown_facts)

    def _answer_inspect(self, params: InspectParams) -> Reply[InspectResult]:
        # The current selection, not a label from the browser: the panel shows what w.selected is.
        label = self.selected_label
        if not label:
            return InspectNone(kind="none", label=""), []
        return self._inspect_label(label)

    def _drawn_node_id(self, label: str) -> str:
        """The node the view on screen draws ``label`` as ("" for none): what a link to it selects."""
        node_id = self._source.index.id_of_label(label)
        return node_id or ""

    def _drawn_node_ids(self, labels: list[str]) -> list[str]:
        """``_drawn_node_id`` of many labels (the strip's thousands of ops), the index read once."""
        index = self._source.index
        return [(index.id_of_label(label) or "") if label else "" for label in labels]

    def _trace_of(self, name: str) -> Any:
        """The trace torchlens is asked about node ``name``: the widget's own."""
        return self._log

    def _graph_model(self, log: Any) -> TraceGraph:
        """The graph model the viewers draw and everything keys on: the trace's own."""
        return TraceGraph(log, self._privacy_profile)

    def _inspect_label(self, label: str) -> Reply[InspectRecord]:
        record = self._source.record(label)
        header, buffers = inspect_record(self._log, record, label, privacy_profile=self._privacy_profile)
        public = self._privacy_profile == "public"
        if self._failure is not None and label == self._failure.failing_label and not public:
            header["exception"] = self._failure.exception_text  # the op the forward pass failed at
        nonfinite = self._nonfinite.facts(label)
        if nonfinite is not None:
            header["nonfinite"] = nonfinite
        if self._memory_shown:  # what the colours and the strip say of this op, in bytes
            memory = memory_section(self._memory.timeline, label, self._drawn_node_id)
            if memory is not None:
                header["memory"] = memory
        facts = self._colouring.facts
        if facts is not None and self.baseline is not None:  # never under "public": refused there
            header["baseline"] = baseline_section(self._log, self.baseline, facts, label, record, buffers)
        return header, buffers


def _memory_on(overlay: str, timeline: str | None) -> bool:
    """Whether memory is on screen (its overlay or its strip): the status line states the summary and
    the inspector shows the selected op's memory."""
    return overlay == MEMORY_OVERLAY or timeline is not None
