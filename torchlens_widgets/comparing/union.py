"""The one graph of a comparison in Model Explorer: the reference run's export with every op that only
other runs have added, each from its own run's export, so that every run's ops are drawn.

torchlens merges runs' graphs itself (``Bundle.supergraph``) but refuses the runs of a model such as
GPT-2 ("cyclic"; tests/test_torchlens_contract.py pins it), so the union is made here from torchlens'
own exports, by the key runs align on everywhere in this package: the op label (as
``Bundle.shared_op_labels`` does). An op added keeps its own run's node (namespace, attributes,
metadata); its inputs are the nodes of the same labels in the graph drawn, and an op of the graph drawn
that an added op feeds in that run gains that edge too. Nothing of the reference's export is changed in
place: it is shared with the other widgets of the same trace.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from .._errors import PayloadValidationError
from ..graph_model import ModelExplorerPayload, TraceGraph, node_attr, payload_of
from .runs import Runs, not_on_graph


class RunsGraph(TraceGraph):
    """The graph model of a comparison: the reference run's trace, drawn with the ops only other runs
    have (``union_payload``); the reference's own export when every run's ops are its."""

    def __init__(self, runs: Runs, reference: str, privacy_profile: str = "local") -> None:
        super().__init__(runs.trace(reference), privacy_profile)
        self._others = {
            name: TraceGraph(runs.trace(name), privacy_profile) for name in not_on_graph(runs, reference)
        }

    # Why the union was not drawn (torchlens' validator refused it), or "": the reference's graph is.
    refused = ""

    @functools.cached_property
    def payload(self) -> ModelExplorerPayload:
        own = self._own_payload()
        if not self._others:
            return own
        try:
            return union_payload(own, {name: graph.payload for name, graph in self._others.items()})
        except PayloadValidationError as error:  # the reference's graph, its missing ops said instead
            rows = f"{len(error.rows)} failing row" + "s" * (len(error.rows) != 1)
            self.refused = f"torchlens' validator refused the graph with them ({rows})"
            return own


def union_payload(
    reference: ModelExplorerPayload, others: Mapping[str, ModelExplorerPayload]
) -> ModelExplorerPayload:
    """``reference``'s collection with, in each of its graphs, the nodes of ``others``' same graph whose
    op label it lacks (in the runs' order), validated by torchlens as every payload is."""
    graphs = []
    for graph in reference.collection.get("graphs", ()):
        merged = _Merged(graph)
        for run, payload in others.items():
            same = [g for g in payload.collection.get("graphs", ()) if g.get("id") == graph.get("id")]
            if same:
                merged.add(run, same[0])
        graphs.append(merged.graph())
    return payload_of({**reference.collection, "graphs": graphs})


class _Merged:
    """One graph of the reference's collection, as ops of other runs are added to it."""

    def __init__(self, graph: Mapping[str, Any]) -> None:
        self._graph = graph
        self._nodes: list[dict[str, Any]] = list(graph.get("nodes", ()))
        self._position = {str(node["id"]): position for position, node in enumerate(self._nodes)}
        self._by_label = {node_attr(node, "torchlens_label"): str(node["id"]) for node in self._nodes}
        self._by_label.pop("", None)
        self._groups: dict[str, Any] = dict(graph.get("groupNodeAttributes") or {})

    def add(self, run: str, theirs: Mapping[str, Any]) -> None:
        """Adds the ops of ``theirs`` (run ``run``'s graph of the same id) whose label is not drawn."""
        ours: dict[str, str] = {}  # their node id -> the id of the node drawn for the same op
        added: list[Mapping[str, Any]] = []
        for node in theirs.get("nodes", ()):
            label, node_id = node_attr(node, "torchlens_label"), str(node["id"])
            drawn = self._by_label.get(label) if label else (node_id if node_id in self._position else None)
            if drawn is not None:
                ours[node_id] = drawn
                continue
            new_id = node_id if node_id not in self._position else f"{node_id}@{run}"
            ours[node_id] = new_id
            self._position[new_id] = -1  # taken; placed below
            if label:
                self._by_label[label] = new_id
            added.append(node)
        added_ids = {ours[str(node["id"])] for node in added}
        for node in added:
            self._position[ours[str(node["id"])]] = len(self._nodes)
            edges = [_edge(e, ours) for e in node.get("incomingEdges", ()) if e.get("sourceNodeId") in ours]
            self._nodes.append({**node, "id": ours[str(node["id"])], "incomingEdges": edges})
        for node in theirs.get("nodes", ()):  # an op drawn that an added op feeds in this run
            target = ours[str(node["id"])]
            if target in added_ids:
                continue
            fed = [
                _edge(edge, ours)
                for edge in node.get("incomingEdges", ())
                if ours.get(str(edge.get("sourceNodeId"))) in added_ids
            ]
            if fed:
                position = self._position[target]
                drawn_node = self._nodes[position]
                edges = list(drawn_node.get("incomingEdges", ()))
                edges += [edge for edge in fed if edge not in edges]
                self._nodes[position] = {**drawn_node, "incomingEdges": edges}
        for namespace, attributes in (theirs.get("groupNodeAttributes") or {}).items():
            self._groups.setdefault(namespace, attributes)

    def graph(self) -> dict[str, Any]:
        graph = {**self._graph, "nodes": self._nodes}
        if self._groups:
            graph["groupNodeAttributes"] = self._groups
        return graph


def _edge(edge: Mapping[str, Any], ours: Mapping[str, str]) -> dict[str, Any]:
    return {**edge, "sourceNodeId": ours[str(edge["sourceNodeId"])]}
