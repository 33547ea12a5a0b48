"""The package's graph model: a trace as torchlens' own Model Explorer payload (its exporter and
strict validator, nothing re-derived) and the index of its node ids, on which Model Explorer, its
overlays, the baseline and the diff key; and the trace's labels as a collection of their own, on which
Netron's overlays key without the export."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl

from . import _export_cache
from ._errors import PayloadValidationError
from ._gzip_json import gzip_json
from ._privacy import without_source_locations
from ._trace import require_trace

# The ids of torchlens' Model Explorer graphs: every op as executed, and the layers with passes rolled up.
EXECUTION_GRAPH = "00-execution"
ROLLED_GRAPH = "01-rolled"


def node_attr(node: Mapping[str, Any], key: str) -> str:
    """The value of attribute ``key`` of a Model Explorer node ("" when it has none)."""
    for attr in node.get("attrs", ()):
        if attr.get("key") == key:
            return str(attr.get("value", ""))
    return ""


# ----- payload ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelExplorerPayload:
    """One validated graph collection, ready to be sent to the frontend."""

    collection: dict[str, Any]
    index: NodeIndex = field(repr=False)

    @property
    def label(self) -> str:
        return str(self.collection.get("label", ""))

    @property
    def graph_sizes(self) -> dict[str, int]:
        return {str(graph["id"]): len(graph.get("nodes", ())) for graph in self.collection["graphs"]}

    @functools.cached_property
    def wire(self) -> bytes:
        """The collection as gzip-compressed JSON (what the frontend receives; made once)."""
        return gzip_json(self.collection)


def model_explorer_payload(log: Any, **options: Any) -> ModelExplorerPayload:
    """Export ``log`` with ``tl.export.to_model_explorer_dict`` and validate it strictly.

    Raises PayloadValidationError (with torchlens' failure rows) instead of showing a broken graph.
    """
    require_trace(log)
    collection = tl.export.to_model_explorer_dict(log, **options)
    if options.get("privacy_profile") == "public":  # torchlens leaves the advisories' paths in
        collection = without_source_locations(collection)
    return payload_of(collection)


def payload_of(collection: dict[str, Any]) -> ModelExplorerPayload:
    """A collection validated strictly by torchlens, its wide layers split, with its node index."""
    validate(collection)
    split = split_wide_layers(collection)
    if split is not collection:
        validate(split)  # still a payload torchlens accepts, with a group row for each sub-layer
        collection = split
    index = NodeIndex((str(graph["id"]), graph.get("nodes", ())) for graph in collection["graphs"])
    return ModelExplorerPayload(collection, index)


# Model Explorer's layout worker splits a layer with more than 1,000 direct children by a recursive
# walk along its edges, as deep as the chain is long: a flat chain of ~4,000 ops overflows the worker's
# stack ("Maximum call stack size exceeded") and the graph never draws (measured, 0.1.34; its own server
# fails the same way). Sub-layers of at most this many ops keep every walk short.
MAX_DIRECT_OPS = 1000


class TraceGraph:
    """The graph model of one trace: torchlens' Model Explorer payload, exported on first use (the
    first view's graph request, or a Python call that needs a node id). Model Explorer draws it and its
    overlays key on it, the baseline facts whatever the viewer; Netron's overlays key on ``labels``. A
    widget holds one per trace and hands it to each part, so the trace is exported once."""

    def __init__(self, log: Any, privacy_profile: str = "local") -> None:
        self._log = log
        self._privacy_profile = privacy_profile

    @functools.cached_property
    def payload(self) -> ModelExplorerPayload:
        """The collection Model Explorer draws: the trace's own export (a comparison's adds its runs')."""
        return self._own_payload()

    def _own_payload(self) -> ModelExplorerPayload:
        """torchlens' export of this trace (kept for the other widgets of the trace: ``_export_cache``)."""

        def export() -> ModelExplorerPayload:
            return model_explorer_payload(self._log, privacy_profile=self._privacy_profile)

        what = ("model-explorer", self._privacy_profile)
        return _export_cache.cached(self._log, what, export, lambda payload: len(payload.wire))

    @property
    def exported(self) -> bool:
        """Whether torchlens' export has run (what the graph's size is known from)."""
        return "payload" in self.__dict__

    def netron_artifact(self, own: Any, export: Callable[[Any], Any]) -> Any:
        """What Netron draws of this graph: ``own``, torchlens' Netron artifact of the trace (``export``
        makes another trace's with the same options: a comparison adds its other runs' ops)."""
        return own

    @functools.cached_property
    def labels(self) -> dict[str, Any]:
        """The trace's ops and layers as a collection torchlens' node-data builder joins by label, made
        without the Model Explorer export: what a viewer that does not draw the export (Netron) builds
        its overlays over. Its graphs are the export's (every op of the execution graph, every layer of
        the rolled one), each node's id its torchlens label."""
        return label_collection(self._log)


def label_collection(log: Any) -> dict[str, Any]:
    """``TraceGraph.labels``: the execution graph's ops (``label:pass``) and the rolled graph's layers."""

    def nodes(labels: Iterable[str]) -> list[dict[str, Any]]:
        return [{"id": label, "attrs": [{"key": "torchlens_label", "value": label}]} for label in labels]

    return {
        "graphs": [
            {"id": EXECUTION_GRAPH, "nodes": nodes(str(op.label) for op in log.layer_list)},
            {"id": ROLLED_GRAPH, "nodes": nodes(str(layer) for layer in log.layer_logs)},
        ],
    }


def split_wide_layers(collection: dict[str, Any], limit: int = MAX_DIRECT_OPS) -> dict[str, Any]:
    """``collection`` with the direct ops of any layer wider than ``limit`` grouped, in execution order,
    into sub-layers ``"ops 1-1000"``, ``"ops 1001-2000"``, ...

    Only namespaces change: node ids, labels, attributes and edges stay torchlens' own, so selection,
    overlays and the inspector are unaffected. Collections with no such layer are returned as they are.
    """
    graphs = []
    for graph in collection["graphs"]:
        nodes = graph.get("nodes", [])
        widths: dict[str, int] = {}
        for node in nodes:
            widths[node.get("namespace", "")] = widths.get(node.get("namespace", ""), 0) + 1
        wide = {namespace for namespace, width in widths.items() if width > limit}
        if not wide:
            graphs.append(graph)
            continue
        seen: dict[str, int] = {}
        regrouped = []
        groups = dict(graph.get("groupNodeAttributes") or {})
        for node in nodes:
            namespace = node.get("namespace", "")
            if namespace in wide:
                position = seen[namespace] = seen.get(namespace, 0) + 1
                first = (position - 1) // limit * limit + 1
                last = min(first + limit - 1, widths[namespace])
                chunk = f"ops {first}-{last}"
                child = f"{namespace}/{chunk}" if namespace else chunk
                # Every namespace needs its group row (torchlens' validator checks): what the sub-layer is.
                groups.setdefault(
                    child,
                    {
                        "ops": str(last - first + 1),
                        "split": f"ops {first}-{last} of {widths[namespace]} (for layout)",
                    },
                )
                node = {**node, "namespace": child}
            regrouped.append(node)
        graphs.append({**graph, "nodes": regrouped, "groupNodeAttributes": groups})
    if all(new is old for new, old in zip(graphs, collection["graphs"], strict=True)):
        return collection
    return {**collection, "graphs": graphs}


def validate(collection: dict[str, Any]) -> None:
    try:
        tl.export.validate_model_explorer_payload(collection, strict=True)
    except Exception as error:  # torchlens' typed refusal: report every failing row, not just the first
        rows = tl.export.validate_model_explorer_payload(collection, strict=False).failures
        raise PayloadValidationError(rows, error) from error


# ----- node index ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeEntry:
    node_id: str
    label: str  # torchlens label as the viewer shows it, e.g. "linear_1_1:1" or "encoder.layer.0"
    graph_id: str


class NodeIndex:
    """Maps between the ids a viewer reports and torchlens labels.

    ``graphs`` is an iterable of (graph id, nodes) where each node is a Model Explorer node dict.
    Graphs earlier in the order win when two graphs share a node id (the execution graph comes
    before the rolled one, so a click in the rolled view resolves to the first pass).
    """

    def __init__(self, graphs: Iterable[tuple[str, Iterable[Mapping[str, Any]]]]) -> None:
        self._by_id: dict[str, NodeEntry] = {}
        self._by_label: dict[str, str] = {}
        for graph_id, nodes in graphs:
            for node in nodes:
                label = node_attr(node, "torchlens_label")
                if not label:
                    continue
                node_id = str(node["id"])
                self._by_id.setdefault(node_id, NodeEntry(node_id, label, graph_id))
                self._by_label.setdefault(label, node_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def label_of(self, node_id: str) -> str:
        """The torchlens label of a viewer node id ("" for ids without one, e.g. a layer group)."""
        entry = self._by_id.get(node_id)
        return entry.label if entry else ""

    def id_of_label(self, label: str) -> str | None:
        return self._by_label.get(label)

    def has_id(self, node_id: str) -> bool:
        return node_id in self._by_id

    def suggestions(self, name: str, limit: int = 5) -> list[str]:
        return difflib.get_close_matches(name, list(self._by_label), n=limit, cutoff=0.5)

    def labels_by_id(self) -> dict[str, str]:
        """Every node id with a torchlens label, and that label."""
        return {node_id: entry.label for node_id, entry in self._by_id.items()}
