"""The Explorer widget: one trace, shown inline in a viewer, with selection synced both ways."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Iterable
from typing import Any

import traitlets

from .._assets import AssetBundle
from .._errors import NodeNotFoundError, OverlayUnavailableError, ViewerNotAvailableError
from .._offline import DEFAULT_MAX_BYTES, read_bundle, write_page
from .._overlays import OVERLAYS, VALUE_OVERLAYS, Overlay, OverlayCache, check_overlay_name, overlay_over
from .._privacy import check_privacy_profile
from .._progress import Progress
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
from ..diffing.baseline import BASELINE_OVERLAY_NAME, BaselineFacts, baseline_facts
from ..inspector.reply import inspect_record
from ..viewers import VIEWERS, ViewerSource, make_source
from ..viewers.model_explorer import ModelExplorerSource
from ..viewers.netron import check_granularity
from . import base
from .base import ViewerWidget, unsubscriber

SelectCallback = Callable[[Any], None]

# The synced traits the saved HTML file needs to draw the same view.
_SAVED_TRAITS = (
    *("viewer", "granularity", "overlay", "overlay_summary", "baseline_summary", "height"),
    *("selected_node", "selected_label", "_asset_key", "_graph_rev", "_graph_info", "_overlay_choices"),
    *("inspector_width", "inspector_collapsed"),
)


class Explorer(ViewerWidget):
    """A torchlens trace drawn inline by Model Explorer (or Netron), selection synced with the kernel.

    Create it with :func:`torchlens_widgets.explore`.
    """

    # What a view may set (a click, the toolbar, what it reports); the rest is the kernel's.
    _browser_writable = (
        frozenset({"viewer", "granularity", "overlay", "height", "selected_node", "status", "error"})
        | base.ROOM_TRAITS
    )

    viewer = traitlets.Unicode("model-explorer").tag(sync=True)
    # Netron's view of the trace: module calls as drill-down boxes, every op flat, or rolled passes.
    granularity = traitlets.Unicode("module").tag(sync=True)
    # Colour nodes by a measured fact: "" | "time" | "flops" | "bytes" | "nan" | "magnitude" |
    # "grad_norm" | "field:<record field>". A refused overlay leaves the previous one in place.
    overlay = traitlets.Unicode("").tag(sync=True)
    # What the widget shows next to the overlay control: coverage, or why an overlay was refused.
    overlay_summary = traitlets.Unicode("", read_only=True).tag(sync=True)
    # A second Trace to compare against (Python-only; never synced), or None.
    baseline = traitlets.Any(None, allow_none=True)
    # What the browser shows about it: {"reference", "line", "counts", "unpaired", ...}; {} when none.
    baseline_summary = traitlets.Dict(read_only=True).tag(sync=True)
    # The torchlens label of the selection; derived in the kernel from selected_node.
    selected_label = traitlets.Unicode("", read_only=True).tag(sync=True)
    _overlay_choices = traitlets.List(traitlets.Unicode(), [*OVERLAYS, "delta"]).tag(sync=True)

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
        **kwargs: Any,
    ):
        require_trace(log)
        self._log = log
        self._privacy_profile = check_privacy_profile(privacy_profile)
        self._callbacks: list[SelectCallback] = []
        self._sources: dict[tuple[str, str], ViewerSource] = {}
        self._facts: BaselineFacts | None = None
        self._facts_of: tuple[Any, BaselineFacts] | None = None  # (reference, its facts): computed once
        self._source: ViewerSource = self._source_for(viewer, granularity)  # raises before drawing
        if baseline is not None:
            self._apply_facts(self._baseline_facts(baseline))  # refusals raise before anything is drawn
        self._overlays = OverlayCache(log, self._overlay_collection, self._privacy_profile)
        self._overlay = self._overlay_for(overlay)  # refused overlays raise here
        super().__init__(
            viewer=viewer,
            granularity=granularity,
            overlay=overlay,
            height=height,
            baseline=baseline,
            # In the comm's opening state, so no view (VS Code renders outputs on a path of its own)
            # starts without knowing which assets and graph to ask for.
            **self._source_traits(),
            _graph_rev=1,
            **kwargs,
        )
        self.set_trait("overlay_summary", self._overlay.summary if self._overlay else "")
        self.set_trait("baseline_summary", self._facts.summary() if self._facts else {})
        if self._privacy_profile == "public":  # the toolbar offers only what the profile can show
            self._overlay_choices = [name for name in OVERLAYS if name not in VALUE_OVERLAYS]
        self._open()

    # ----- public API -----------------------------------------------------------------------------

    @property
    def log(self) -> Any:
        """The trace this widget shows."""
        return self._log

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
        target = pathlib.Path(path)
        bundle = read_bundle(base.BUNDLE)  # a missing bundle fails before any work
        state = {name: getattr(self, name) for name in _SAVED_TRAITS}
        state.update(status="", error="", notice="")
        names = list(dict.fromkeys(["", self.overlay, *self._overlay_choices]))
        labels = self._source.index.labels_by_id()
        nodes = len(set(labels.values())) if inspector else 0
        bar = Progress(len(names) + nodes, "Saving", progress)
        graphs: dict[str, tuple[Reply[GraphResult], str]] = {}
        refused: dict[str, str] = {}
        for done, name in enumerate(names, 1):
            bar.update(done, f"overlay {name or '(none)'}")
            try:
                overlay = self._overlay_for(name)
            except OverlayUnavailableError as error:
                refused[name] = str(error)
                continue
            graphs[name] = (self._source.graph(overlay), overlay.summary if overlay else "")
        try:
            report = write_page(
                target,
                bundle=bundle,
                title=f"{self._graph_info.get('label') or 'model'} in {self.viewer}",
                state=state,
                assets=self._source.assets().reply(),
                graphs=graphs,
                refused=refused,
                labels=labels,
                inspect=self._inspect_label if inspector else None,
                first=self.selected_label,
                max_bytes=max_bytes,
                progress=lambda done: bar.update(len(names) + done, f"node {done:,} of {nodes:,}"),
            )
        except Exception as error:
            bar.finish(f"not saved: {type(error).__name__}", ok=False)
            raise
        left_out = report.trimmed + report.bare
        bar.finish(
            f"{target.name}: {report.bytes / 1e6:.1f} MB"
            + (
                f"; {left_out:,} of {report.nodes:,} nodes without value summary (max_bytes)"
                if left_out
                else ""
            )
        )
        return target

    # ----- trait plumbing -------------------------------------------------------------------------

    @traitlets.validate("viewer")
    def _check_viewer(self, proposal: dict[str, Any]) -> str:
        value = str(proposal["value"])
        if value not in VIEWERS:
            raise ViewerNotAvailableError(
                f"Unknown viewer {value!r}. Remedy: use one of {', '.join(map(repr, VIEWERS))}."
            )
        return value

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
        return self._overlays.get(check_overlay_name(name))

    def _delta_overlay(self) -> Overlay:
        """torchlens' max-abs delta per node against the baseline (no value where no row settled)."""
        if self._facts is None:
            raise OverlayUnavailableError(
                "The 'delta' overlay needs a baseline. Remedy: set w.baseline = <another trace of this "
                "model> (or explore(log, baseline=ref)) first."
            )
        facts = self._facts
        return overlay_over(
            self._overlay_collection(), "delta", BASELINE_OVERLAY_NAME, facts.overlay, facts.overlay_coverage
        )

    # ----- baseline ---------------------------------------------------------------------------------

    def _baseline_facts(self, ref: Any) -> BaselineFacts:
        if self._facts_of is not None and self._facts_of[0] is ref:
            return self._facts_of[1]
        if self._privacy_profile == "public":
            raise ViewerNotAvailableError(
                "baseline= compares saved values, which privacy_profile='public' drops by construction. "
                "Remedy: explore with privacy_profile='local'."
            )
        require_trace(ref, "baseline")
        payload = self._model_explorer().payload
        facts = baseline_facts(self._log, ref, payload=payload)  # SelfComparisonError on log is ref
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

    def _apply_facts(self, facts: BaselineFacts | None) -> None:
        self._facts = facts
        if facts is None:
            self._facts_of = None
        for source in self._sources.values():
            source.baseline = facts

    def _overlay_collection(self) -> dict[str, Any]:
        return self._model_explorer().payload.collection

    def _model_explorer(self) -> ModelExplorerSource:
        """Overlays and baseline facts are keyed by the Model Explorer payload, whatever the view."""
        source = self._source_for("model-explorer", "")
        assert isinstance(source, ModelExplorerSource)
        return source

    @traitlets.validate("granularity")
    def _check_granularity(self, proposal: dict[str, Any]) -> str:
        return check_granularity(proposal["value"])

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
            self._publish_source()

    def _source_for(self, viewer: str, granularity: str) -> ViewerSource:
        # Model Explorer shows every granularity in one payload; Netron has one artifact per granularity.
        key = (viewer, granularity if viewer == "netron" else "")
        if key not in self._sources:
            self._sources[key] = make_source(viewer, self._log, granularity, self._privacy_profile)
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
        """What a view needs to know to ask for the current viewer's assets and graph."""
        return {"_asset_key": self._source.assets().key, "_graph_info": self._source.info()}

    def _publish_source(self) -> None:
        for name, value in self._source_traits().items():
            setattr(self, name, value)
        self._graph_rev += 1

    # ----- requests from the browser --------------------------------------------------------------

    def _bundles(self) -> Iterable[AssetBundle]:
        return [source.assets() for source in self._sources.values()]

    def _answer_graph(self, params: GraphParams) -> Reply[GraphResult]:
        return self._source.graph(self._overlay)

    def _answer_inspect(self, params: InspectParams) -> Reply[InspectResult]:
        # The current selection, not a label from the browser: the panel shows what w.selected is.
        label = self.selected_label
        if not label:
            return InspectNone(kind="none", label=""), []
        return self._inspect_label(label)

    def _inspect_label(self, label: str) -> Reply[InspectRecord]:
        record = self._source.record(label)
        return inspect_record(self._log, record, label, privacy_profile=self._privacy_profile)
