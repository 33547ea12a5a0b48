"""What both diff products read of a capture: its execution graph's labels and its display name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..graph_model import node_attr

# torchlens puts the execution graph first; its delta node data and diff rows cover it only.
EXECUTION_GRAPH_INDEX = 0


def execution_labels(collection: Mapping[str, Any]) -> dict[str, str]:
    """Node id -> torchlens label of the execution graph (the graph torchlens' deltas cover)."""
    graphs = collection.get("graphs") or []
    if not graphs:
        return {}
    labels: dict[str, str] = {}
    for node in graphs[EXECUTION_GRAPH_INDEX].get("nodes", ()):
        label = node_attr(node, "torchlens_label")
        if label:
            labels[str(node["id"])] = label
    return labels


def default_label(log: Any) -> str:
    """The collection label torchlens would use: the trace label, else the model class name."""
    return str(getattr(log, "trace_label", None) or getattr(log, "model_class_name", None) or "model")
