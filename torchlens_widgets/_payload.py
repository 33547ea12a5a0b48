"""The Model Explorer payload of a trace: torchlens' own exporter and validator, nothing re-derived."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl

from ._errors import NotATraceError, PayloadValidationError
from ._node_index import NodeIndex


def require_trace(log: object, parameter: str = "log") -> Any:
    if not isinstance(log, tl.Trace):
        raise NotATraceError(log, parameter)
    return log


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

    def wire(self) -> bytes:
        """The collection as gzip-compressed JSON (what the frontend receives)."""
        text = json.dumps(self.collection, separators=(",", ":"), allow_nan=False)
        return gzip.compress(text.encode(), compresslevel=6, mtime=0)


def model_explorer_payload(log: Any, **options: Any) -> ModelExplorerPayload:
    """Export ``log`` with ``tl.export.to_model_explorer_dict`` and validate it strictly.

    Raises PayloadValidationError (with torchlens' failure rows) instead of showing a broken graph.
    """
    require_trace(log)
    collection = tl.export.to_model_explorer_dict(log, **options)
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
