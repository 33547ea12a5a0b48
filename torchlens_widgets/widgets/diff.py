"""The Diff widget: two captures side by side in Model Explorer, navigation synced by node id."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import traitlets

from .. import _debug
from .._assets import AssetBundle
from .._errors import DebugQuestionError, NodeNotFoundError
from .._privacy import check_privacy_profile, refuse_under_public
from .._protocol import (
    GraphParams,
    InspectNone,
    InspectParams,
    InspectResult,
    ModelExplorerDiffGraph,
    PaneNodeData,
    Reply,
)
from ..diffing.split_pane import DiffPayload, diff_payload
from ..inspector.difference import difference_reply
from ..inspector.reply import inspect_record
from ..viewers.model_explorer import model_explorer_assets
from .base import (
    DEFAULT_HEIGHT,
    DEFAULT_PRIVACY_PROFILE,
    REPORTED_TRAITS,
    ROOM_TRAITS,
    Answers,
    ViewerWidget,
    unsubscriber,
)
from .debugging import Debugging

PairCallback = Callable[[tuple[Any, Any]], None]


def _rename_log(expression: str, name: str) -> str:
    return name + expression[len("log") :] if expression.startswith("log") else expression


class Diff(ViewerWidget):
    """Two torchlens traces in Model Explorer's split pane, each coloured by torchlens' per-node delta.

    Create it with :func:`torchlens_widgets.diff` (its parameters are documented there). Its debug
    answers are shown by the same ``Debugging`` collaborator as an explorer's.
    """

    _kind = traitlets.Unicode("diff").tag(sync=True)  # the shared bundle renders two panes, no toolbar
    _browser_writable = frozenset({"height", "selected_node"}) | ROOM_TRAITS | REPORTED_TRAITS
    viewer = traitlets.Unicode("model-explorer", read_only=True).tag(sync=True)
    # selected_node: the node id of the selection in either pane; ids are shared by both captures.
    # (label in log_a, label in log_b); "" on the side that lacks the node.
    selected_labels = traitlets.Tuple(
        traitlets.Unicode(), traitlets.Unicode(), default_value=("", ""), read_only=True
    ).tag(sync=True)
    # Counts per status and the largest deltas (label, value, node id) for click-to-select.
    # A NaN or Inf delta has value None and says which in text ("NaN", "inf").
    summary = traitlets.Dict(read_only=True).tag(
        sync=True,
        ts="{ line?: string; top?: { node_id: string; label: string; value: number | null; "
        "text?: string }[] }",
    )
    # The toolbar's debug buttons (highlighted nodes' ids are shared by both panes).
    _debug_questions = traitlets.List(traitlets.Unicode(), ["first_divergence"]).tag(sync=True)

    def __init__(
        self,
        log_a: Any,
        log_b: Any,
        *,
        names: tuple[str, str] = ("a", "b"),
        top: int = 10,
        height: int = DEFAULT_HEIGHT,
        privacy_profile: str = DEFAULT_PRIVACY_PROFILE,
    ) -> None:
        if check_privacy_profile(privacy_profile) == "public":
            # Every pane is coloured by a value delta, and "changed" vs "zero" is one too.
            raise refuse_under_public(
                "tlw.diff() colours both captures by the difference of their saved values",
                "diff with privacy_profile='local', or show each capture on its own: "
                "tlw.explore(log_a, privacy_profile='public').",
            )
        assets = model_explorer_assets()  # missing or unsupported assets fail here, before drawing
        self._payload = diff_payload(log_a, log_b, names=names, top=top, privacy_profile=privacy_profile)
        self._privacy_profile = privacy_profile
        self._names = (str(names[0]), str(names[1]))
        self._callbacks: list[PairCallback] = []
        self._debugging = Debugging(
            self,
            select=self.select,
            node_ids=self._node_ids,
            selected_label=lambda: self.selected_labels[0] or self.selected_labels[1],
            lineage=lambda direction: self.lineage(direction=direction),
            answers={"first_divergence": self.first_divergence},
            unanswered_remedy="for 'first_nonfinite', explore one capture: "
            "tlw.explore(d.log_a).first_nonfinite().",
        )
        super().__init__(
            height=height,
            # In the comm's opening state: no view starts without knowing what to ask for.
            _asset_key=assets.key,
            _graph_info={
                "label": f"{self._payload.a.label} vs {self._payload.b.label}",
                "graphs": self._payload.a.graph_sizes,
                "panes": [self._payload.a.graph_sizes, self._payload.b.graph_sizes],
            },
            _graph_rev=1,
        )
        self.set_trait("summary", self._payload.summary())
        self._open(
            Answers(
                bundles=self._bundles,
                graph=self._answer_graph,
                inspect=self._answer_inspect,
                debug=self._debugging.answer,
            )
        )

    @property
    def payload(self) -> DiffPayload:
        return self._payload

    @property
    def log_a(self) -> Any:
        return self._payload.log_a

    @property
    def log_b(self) -> Any:
        return self._payload.log_b

    @property
    def selected(self) -> tuple[Any, Any] | None:
        """``(log_a[label], log_b[label])`` of the selection, None on a side without it; None if none."""
        return self._payload.pair(self.selected_node) if self.selected_node else None

    def select(self, name: str) -> Diff:
        """Select a node in both panes by torchlens label, module address or node id."""
        self.selected_node = self._payload.resolve(name)
        return self

    def first_divergence(self, rtol: float = 1e-5, atol: float = 1e-8) -> tuple[Any, Any] | None:
        """torchlens' first divergence of ``log_a`` from ``log_b`` (``tl.debug.first_divergence``).

        Selects and centres that op in both panes, says what diverged and by how much in
        ``d.debug_status``, and returns ``(record_a, record_b)`` (None on a side that lacks the op), or
        None when nothing diverged.
        """
        answer = _debug.first_divergence(self.log_a, self.log_b, rtol=rtol, atol=atol)
        self._debugging.show_answer(answer.status, answer.label)
        return answer.pair

    def highlight(self, names: str | Iterable[str] | None) -> Diff:
        """Mark nodes in both panes (torchlens labels, module addresses or node ids); None clears."""
        if names is None:
            self.highlighted = []
            return self
        listed = [names] if isinstance(names, str) else list(names)
        node_ids = [self._payload.resolve(name) for name in listed]  # NodeNotFoundError first
        labels = (self._payload.a.index.label_of(i) or self._payload.b.index.label_of(i) for i in node_ids)
        self.highlighted = list(dict.fromkeys(labels))
        return self

    def lineage(self, name: str | None = None, direction: str = "upstream") -> list[str]:
        """Highlight torchlens' lineage of a node (default: the selection) in both panes, walked in
        the capture that has it (``log_a`` first), and return its labels, the node's own first."""
        node_id = self._payload.resolve(name) if name is not None else self.selected_node
        if not node_id:
            raise DebugQuestionError(
                "lineage() of the selection, and nothing is selected. Remedy: select a node "
                "(a click, or d.select(name)) or pass its name: d.lineage('linear_1_1')."
            )
        in_a = self._payload.a.index.has_id(node_id)
        log, index = (self.log_a, self._payload.a.index) if in_a else (self.log_b, self._payload.b.index)
        labels = _debug.lineage(log, index, node_id, direction)
        where = " in log_a" if in_a else " in log_b"
        return self._debugging.show_lineage(direction, labels, _debug.drawn_labels(index, labels), where)

    @traitlets.observe("highlighted")
    def _on_highlighted(self, change: dict[str, Any]) -> None:
        self._debugging.publish_highlight()  # marked by the browser on both panes drawn

    def _node_ids(self, labels: list[str]) -> list[str]:
        """The node ids of ``labels`` (shared by both panes)."""
        ids: dict[str, None] = {}
        for label in labels:
            node_id = self._payload.a.index.id_of_label(label) or self._payload.b.index.id_of_label(label)
            if node_id is not None:
                ids.setdefault(node_id)
        return list(ids)

    def on_select(self, callback: PairCallback) -> Callable[[], None]:
        """Call ``callback((record_a, record_b))`` after each selection; one that raises is named in
        ``d.notice`` and the others still run. Returns a function that unregisters the callback."""
        self._callbacks.append(callback)
        return unsubscriber(self._callbacks, callback)

    @traitlets.validate("selected_node")
    def _check_selected_node(self, proposal: dict[str, Any]) -> str:
        value = str(proposal["value"])
        if value and not (self._payload.a.index.has_id(value) or self._payload.b.index.has_id(value)):
            raise NodeNotFoundError(
                f"No node with viewer id {value!r} in either capture. Remedy: use select(name) with a label."
            )
        return value

    @traitlets.observe("selected_node")
    def _on_selected_node(self, change: dict[str, Any]) -> None:
        node_id = change["new"]
        labels = (self._payload.a.index.label_of(node_id), self._payload.b.index.label_of(node_id))
        self.set_trait("selected_labels", labels if node_id else ("", ""))
        if node_id:
            self._run_callbacks(self._callbacks, self.selected)

    def _bundles(self) -> Iterable[AssetBundle]:
        return [model_explorer_assets()]

    def _answer_inspect(self, params: InspectParams) -> Reply[InspectResult]:
        """The selected node of one capture (params: side 0 = log_a, 1 = log_b), for the inspector;
        side 2 is what changed between them (b - a)."""
        if params.get("side") == 2:
            return self._answer_difference()
        side = 1 if params.get("side") == 1 else 0
        label = self.selected_labels[side]
        if not label or not self.selected_node:
            return InspectNone(kind="none", label=""), []
        record = self._payload.pair(self.selected_node)[side]
        log = self._payload.log_b if side else self._payload.log_a
        header, buffers = inspect_record(log, record, label, privacy_profile=self._privacy_profile)
        # Expressions name the capture by the diff's argument: log_a[...], log_b.modules[...].
        name = "log_b" if side else "log_a"
        header["expression"] = _rename_log(header["expression"], name)
        value = header["value"]
        if value is not None and isinstance(value.get("source"), str):
            value["source"] = _rename_log(str(value["source"]), name)
        return header, buffers

    def _answer_difference(self) -> Reply[InspectResult]:
        label = self.selected_labels[0] or self.selected_labels[1]
        if not label or not self.selected_node:
            return InspectNone(kind="none", label=""), []
        record_a, record_b = self._payload.pair(self.selected_node)
        delta = self._payload.deltas.get(self.selected_node)
        public = self._privacy_profile == "public"
        return difference_reply(record_a, record_b, label, self._names, delta, public=public)

    def _answer_graph(self, params: GraphParams) -> Reply[ModelExplorerDiffGraph]:
        payload = self._payload
        wire = payload.wire()
        header = ModelExplorerDiffGraph(
            label=payload.a.label,
            encoding="gzip",
            panes=[{"label": payload.a.label}, {"label": payload.b.label}],
            paneNodeData=[],
        )
        buffers = [wire["a"], wire["b"]]
        if payload.node_data_b.get("results"):  # no finite delta: no heatmap (an empty file shows nothing)
            name = str(payload.node_data_b.get("name", "delta"))
            header["paneNodeData"] = [PaneNodeData(name=name, pane=0), PaneNodeData(name=name, pane=1)]
            buffers += [wire["node_data_a"], wire["node_data_b"]]
        return header, buffers
