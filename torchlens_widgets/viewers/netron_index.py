"""Netron's node names <-> torchlens labels for one artifact: every node Netron draws (root ops, module
call boxes and their bodies, rolled layers), and the other names select() accepts for each."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .._torchlens import NETRON_MODULE_DOMAIN, NetronNode, NetronProjection


@dataclass(frozen=True)
class NetronNodeEntry:
    node_id: str  # the Netron node name
    label: str  # torchlens label (op), layer label (rolled) or module address (module-call box)
    graph: str  # "" for the root graph, else the module-call box whose body holds it
    module_address: str | None = None  # set for module-call boxes


class NetronNodeIndex:
    """Netron node names <-> torchlens labels, for one artifact (NodeIndex-compatible).

    ``aliases`` are other names of the same node that select() should accept without asking the
    trace: every pass of a rolled node, a module call's ``address:n`` spelling.
    """

    def __init__(self, entries: Iterable[tuple[NetronNodeEntry, Iterable[str]]]) -> None:
        self._by_id: dict[str, NetronNodeEntry] = {}
        self._by_label: dict[str, str] = {}
        self._aliases: dict[str, str] = {}
        for entry, aliases in entries:
            if entry.node_id in self._by_id:
                continue  # first occurrence wins (execution order)
            self._by_id[entry.node_id] = entry
            self._by_label.setdefault(entry.label, entry.node_id)
            for alias in aliases:
                self._aliases.setdefault(alias, entry.node_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[NetronNodeEntry]:
        return iter(self._by_id.values())

    def has_id(self, node_id: str) -> bool:
        return node_id in self._by_id

    def entry(self, node_id: str) -> NetronNodeEntry | None:
        return self._by_id.get(node_id)

    def label_of(self, node_id: str) -> str:
        entry = self._by_id.get(node_id)
        return entry.label if entry else ""

    def id_of_label(self, label: str) -> str | None:
        node_id = self._by_label.get(label)
        return node_id if node_id is not None else self._aliases.get(label)

    def is_module(self, node_id: str) -> bool:
        entry = self._by_id.get(node_id)
        return bool(entry and entry.module_address is not None)

    def suggestions(self, name: str, limit: int = 5) -> list[str]:
        return difflib.get_close_matches(name, list(self._by_label), n=limit, cutoff=0.5)

    def labels_by_id(self) -> dict[str, str]:
        """Every Netron node name and its torchlens label (module address for module-call boxes)."""
        return {node_id: entry.label for node_id, entry in self._by_id.items()}


def index_entries(log: Any, projection: NetronProjection) -> Iterator[tuple[NetronNodeEntry, list[str]]]:
    """Entries for every node Netron draws: root nodes, then each module call's body."""
    bodies: list[tuple[str, list[NetronNode]]] = [("", projection.nodes)]
    bodies += [(function.name, function.nodes) for function in projection.functions]
    for graph, nodes in bodies:
        for node in nodes:
            source = projection.node_sources.get(node.name)
            if node.domain == NETRON_MODULE_DOMAIN:
                address = str(getattr(source, "address", "") or node.name.rsplit(":", 1)[0])
                call_label = str(getattr(source, "call_label", "") or node.name)
                # The box name is the address, ":n" only when the module ran more than once.
                yield NetronNodeEntry(node.name, node.name, graph, address), [call_label, address]
            elif projection.granularity == "rolled":
                # A rolled node is a layer: all passes of one op (log[layer_label] is that Layer),
                # so every pass label selects it too.
                layer_label = str(getattr(source, "layer_label", "") or node.name)
                passes = getattr(_layer(log, layer_label), "op_labels", None) or ()
                yield NetronNodeEntry(node.name, layer_label, graph), [str(label) for label in passes]
            else:
                label = str(getattr(source, "label", "") or node.name)
                yield NetronNodeEntry(node.name, label, graph), []


def _layer(log: Any, layer_label: str) -> Any:
    try:
        return log[layer_label]
    except (KeyError, ValueError, IndexError, TypeError):  # not a layer torchlens can look up
        return None
