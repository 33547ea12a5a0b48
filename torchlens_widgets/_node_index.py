"""Viewer node id <-> torchlens label, and resolving a user's name for a node to a viewer node id."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class NodeLookup(Protocol):
    """What the widget needs from a viewer's node index (NodeIndex here, NetronNodeIndex)."""

    def __len__(self) -> int: ...
    def has_id(self, node_id: str) -> bool: ...
    def label_of(self, node_id: str) -> str: ...
    def id_of_label(self, label: str) -> str | None: ...
    def suggestions(self, name: str, limit: int = 5) -> list[str]: ...
    def labels_by_id(self) -> dict[str, str]: ...


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


def node_attr(node: Mapping[str, Any], key: str) -> str:
    """The value of attribute ``key`` of a Model Explorer node ("" when it has none)."""
    for attr in node.get("attrs", ()):
        if attr.get("key") == key:
            return str(attr.get("value", ""))
    return ""
