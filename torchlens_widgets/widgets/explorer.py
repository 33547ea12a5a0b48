"""The Explorer widget: one trace, shown inline in a viewer, with selection synced both ways."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Iterable
from typing import Any

import traitlets

from .. import _debug
from .._assets import AssetBundle
from .._errors import (
    DebugQuestionError,
    NodeNotFoundError,
    ViewerNotAvailableError,
)
from .._offline import DEFAULT_MAX_BYTES
from .._privacy import check_privacy_profile
from .._protocol import (
    GraphParams,
    GraphResult,
    InspectNone,
    InspectParams,
    InspectRecord,
    InspectResult,
    Reply,
)
from .._trace import require_trace
from ..graph_model import TraceGraph
from ..inspector.difference import baseline_section
from ..inspector.reply import inspect_record
from ..viewers import VIEWERS, ViewerSource, make_source
from ..viewers.netron import DEFAULT_DEPTH, DEFAULT_SHOW_BUFFERS, check_granularity, check_netron_options
from . import base
from .base import unsubscriber
from .nonfinite import NonFiniteWidget
from .saving import SAVED_TRAITS, SavedView, save_explorer_html

SelectCallback = Callable[[Any], None]


class Explorer(NonFiniteWidget):
    """A torchlens trace drawn inline by Model Explorer (or Netron), selection synced with the kernel.

    Create it with :func:`torchlens_widgets.explore`.
    """

    # What a view may set (a click, the toolbar, what it reports); the rest is the kernel's.
    _browser_writable = (
        frozenset({"viewer", "granularity", "overlay", "height", "selected_node"})
        | base.ROOM_TRAITS
        | base.REPORTED_TRAITS
    )

    viewer = traitlets.Unicode("model-explorer").tag(sync=True)
    # Netron's view of the trace: module calls as drill-down boxes, every op flat, or rolled passes.
    granularity = traitlets.Unicode("module").tag(sync=True)
    # The torchlens label of the selection; derived in the kernel from selected_node.
    selected_label = traitlets.Unicode("", read_only=True).tag(sync=True)
    # Netron's module grouping depth (an int >= 1) and buffer policy ("never" | "meaningful" |
    # "always"): tl.export.netron's options, checked by torchlens (ValueError naming the choices).
    depth = traitlets.Any(DEFAULT_DEPTH).tag(sync=True)
    show_buffers = traitlets.Any(DEFAULT_SHOW_BUFFERS).tag(sync=True)
    # The toolbar's debug buttons: "first_divergence" (with a baseline), "first_nonfinite" and
    # "explain_nonfinite" (when the capture holds a NaN or an Inf).
    _debug_questions = traitlets.List(traitlets.Unicode()).tag(sync=True)
    _answers = ("first_divergence", "first_nonfinite", "explain_nonfinite")

    def __init__(
        self,
        log: Any,
        *,
        viewer: str = "model-explorer",
        granularity: str = "module",
        overlay: str = "",
        height: int = 640,
        privacy_profile: str = "local",
        baseline: Any = None,
        depth: int = DEFAULT_DEPTH,
        show_buffers: str = DEFAULT_SHOW_BUFFERS,
        **kwargs: Any,
    ):
        failure: _debug.PartialCapture | None = None
        if _debug.is_partial_capture(log):  # a forward pass that raised: draw what ran
            failure = _debug.partial_capture(log)  # PartialCaptureNotDrawableError when nothing can be
            log = failure.trace
        require_trace(log)
        self._log = log
        self._failure = failure
        self._netron_options = check_netron_options(depth, show_buffers)
        self._privacy_profile = check_privacy_profile(privacy_profile)
        self._callbacks: list[SelectCallback] = []
        self._graph = TraceGraph(log, self._privacy_profile)  # exported once, on first use
        self._sources: dict[tuple[str, str], ViewerSource] = {}
        self._source: ViewerSource = self._source_for(viewer, granularity)  # raises before drawing
        self._init_colouring(overlay, baseline)  # refused overlays and baselines raise here
        super().__init__(
            viewer=viewer,
            granularity=granularity,
            overlay=overlay,
            height=height,
            baseline=baseline,
            depth=depth,
            show_buffers=show_buffers,
            # In the comm's opening state, so no view (VS Code renders outputs on a path of its own)
            # starts without knowing which assets and graph to ask for.
            **self._source_traits(),
            _graph_rev=1,
            **kwargs,
        )
        self._publish_colouring()
        # torchlens' answer, asked once: after the first graph reply (it reads every saved output,
        # a second on a 10,000-op trace, and the graph need not wait for it) or when the user asks.
        self._nonfinite = None
        self._explanation = None  # torchlens' frontier, asked by explain_nonfinite()
        self._refresh_questions()
        self._open()
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
        self.selected_node = self._source.resolve(name)
        return self

    def on_select(self, callback: SelectCallback) -> Callable[[], None]:
        """Call ``callback(record)`` after each selection, from a click or from select().

        A callback that raises does not stop the others: ``w.notice`` names it and its exception.
        Returns a function that unregisters the callback.
        """
        self._callbacks.append(callback)
        return unsubscriber(self._callbacks, callback)

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
        self._show_answer(answer.status, answer.label if answer.record_a is not None else None)
        return answer.pair

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
        labels = _debug.lineage(self._log, self._source.index, name, direction)
        return self._show_lineage(direction, labels, _debug.drawn_labels(self._source.index, labels))

    def _node_ids(self, labels: list[str]) -> list[str]:
        return self._source.highlight_ids(labels)

    def _answer_selected_label(self) -> str:
        return self.selected_label

    def _show_failure(self, failure: _debug.PartialCapture) -> None:
        if self._privacy_profile == "public":
            # The message names values and may name files; the failing op is torchlens' first non-finite.
            self.set_trait(
                "debug_status",
                f"The forward pass failed with {failure.exception_type}; its message and the op it failed at "
                "are withheld: privacy_profile='public' shows no value-derived facts or source paths. "
                "Remedy: explore(partial, privacy_profile='local').",
            )
            return
        where = f" at {failure.failing_label}" if failure.failing_label else ""
        status = f"The forward pass failed{where}: {failure.exception_text}"
        if failure.failing_label is not None:
            with self.hold_trait_notifications():
                self.highlighted = [failure.failing_label]
                status += self._select_answer(failure.failing_label)
        self.set_trait("debug_status", status)

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
        view = SavedView(
            state={name: getattr(self, name) for name in SAVED_TRAITS},
            source=self._source,
            overlays=[self.overlay, *self._overlay_choices],
            overlay_for=self._overlay_for,
            inspect=self._inspect_label,
        )
        return save_explorer_html(view, pathlib.Path(path), inspector, max_bytes, progress)

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
        self._netron_options = (self.depth, self.show_buffers)
        if not self._ready:  # still in __init__ (already applied)
            return
        self._sources = {key: source for key, source in self._sources.items() if key[0] != "netron"}
        if self.viewer == "netron":  # redraw Netron with the new options; Model Explorer has none
            self._on_view_change(change)

    @traitlets.validate("highlighted")
    def _check_highlighted(self, proposal: dict[str, Any]) -> list[str]:
        return _debug.highlight_labels(self._log, self._source.index, proposal["value"])

    @traitlets.observe("highlighted")
    def _on_highlighted(self, change: dict[str, Any]) -> None:
        self._publish_highlight()  # marked by the browser on the graph drawn, in both viewers

    @traitlets.observe("viewer", "granularity")
    def _on_view_change(self, change: dict[str, Any]) -> None:
        if not self._ready:  # still in __init__
            return
        label = self.selected_label
        self._source = self._source_for(self.viewer, self.granularity)
        # Keep the selection across views when the new view draws that node (op <-> module <-> rolled).
        try:
            node = self._source.resolve(label) if label else ""
        except KeyError:
            node = ""
        with self.hold_trait_notifications():
            self.selected_node = node
            self._publish_highlight()
            self._publish_source()

    def _source_for(self, viewer: str, granularity: str) -> ViewerSource:
        # Model Explorer shows every granularity in one payload; Netron has one artifact per granularity.
        key = (viewer, granularity if viewer == "netron" else "")
        if key not in self._sources:
            depth, show_buffers = self._netron_options
            self._sources[key] = make_source(
                viewer, self._log, granularity, self._privacy_profile, depth, show_buffers, self._graph
            )
            self._sources[key].baseline = self._facts
        return self._sources[key]

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
        info = self._source.info() if self._source.exported else {}
        return {"_asset_key": self._source.assets().key, "_graph_info": info}

    def _publish_source(self) -> None:
        for name, value in self._source_traits().items():
            setattr(self, name, value)
        self._graph_rev += 1

    # ----- requests from the browser --------------------------------------------------------------

    def _bundles(self) -> Iterable[AssetBundle]:
        return [source.assets() for source in self._sources.values()]

    def _answer_graph(self, params: GraphParams) -> Reply[GraphResult]:
        # The export, on first use.
        reply = self._source.graph(self._overlay)
        self._graph_info = self._source.info()  # synced before the reply: the view counts its nodes
        return reply

    def _answer_inspect(self, params: InspectParams) -> Reply[InspectResult]:
        # The current selection, not a label from the browser: the panel shows what w.selected is.
        label = self.selected_label
        if not label:
            return InspectNone(kind="none", label=""), []
        return self._inspect_label(label)

    def _inspect_label(self, label: str) -> Reply[InspectRecord]:
        record = self._source.record(label)
        header, buffers = inspect_record(self._log, record, label, privacy_profile=self._privacy_profile)
        public = self._privacy_profile == "public"
        if self._failure is not None and label == self._failure.failing_label and not public:
            header["exception"] = self._failure.exception_text  # the op the forward pass failed at
        nonfinite = self._nonfinite_facts(label)
        if nonfinite is not None:
            header["nonfinite"] = nonfinite
        if self._facts is not None and self.baseline is not None:  # never under "public": refused there
            header["baseline"] = baseline_section(
                self._log, self.baseline, self._facts, label, record, buffers
            )
        return header, buffers
