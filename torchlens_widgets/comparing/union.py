"""The one graph of a comparison: the reference run's export with every op that only other runs have
added, each from its own run's export, so that every run's ops are drawn, in both viewers.

torchlens merges runs' graphs itself (``Bundle.supergraph``) but refuses the runs of a model such as
GPT-2 ("cyclic"; tests/test_torchlens_contract.py pins it), so the union is made here from torchlens'
own exports, by the key runs align on everywhere in this package: the op label (as
``Bundle.shared_op_labels`` does). Model Explorer: an op added keeps its own run's node (namespace,
attributes, metadata); its inputs are the nodes of the same labels in the graph drawn, and an op of the
graph drawn that an added op feeds in that run gains that edge too. Netron: a node added keeps its own
run's node in the same graph (the root, or its module call's body), named as torchlens names it (op
label or module address), so its inputs are the values of the same names. Nothing of the reference's
exports is changed in place: they are shared with the other widgets of the same trace.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import PayloadValidationError
from .._protocol import NOT_IN_EVERY_RUN_BORDER
from ..graph_model import ModelExplorerPayload, TraceGraph, node_attr, payload_of
from ..viewers.netron import NetronArtifact
from ..viewers.netron_index import NetronNodeEntry, NetronNodeIndex
from .runs import Runs, missing_from, not_on_graph


class RunsGraph(TraceGraph):
    """The graph model of a comparison: the reference run's trace, drawn with the ops only other runs
    have (``union_payload``, ``netron_union``); the reference's own exports when every run's ops are its."""

    def __init__(self, runs: Runs, reference: str, privacy_profile: str = "local") -> None:
        super().__init__(runs.trace(reference), privacy_profile)
        self._runs = runs
        self._others = {
            name: TraceGraph(runs.trace(name), privacy_profile) for name in not_on_graph(runs, reference)
        }
        # The ops some runs lack -> those runs: marked in each viewer's node panel, bordered on the canvas.
        self.marks = missing_from(runs)

    # Why the union was not drawn (torchlens' validator refused it), or "": the reference's graph is.
    refused = ""

    @functools.cached_property
    def payload(self) -> ModelExplorerPayload:
        own = self._own_payload()
        if not self.marks:  # every run has every op: the reference's own export, shared
            return own
        try:
            others = {name: graph.payload for name, graph in self._others.items()}
            return union_payload(own, others, bordered=frozenset(self.marks))
        except PayloadValidationError as error:  # the reference's graph, its missing ops said instead
            rows = f"{len(error.rows)} failing row" + "s" * (len(error.rows) != 1)
            self.refused = f"torchlens' validator refused the graph with them ({rows})"
            return own

    def netron_artifact(self, own: NetronArtifact, export: Callable[[Any], NetronArtifact]) -> NetronArtifact:
        if not self._others:
            return own
        return netron_union(own, {name: export(self._runs.trace(name)) for name in self._others})


# How Model Explorer draws an op that some runs lack: a thick dark border (the app's own style of an op
# node), apart from the highlight's pink and the selection's blue; an overlay still fills it.
NOT_IN_EVERY_RUN_STYLE: dict[str, str | int] = {"borderColor": NOT_IN_EVERY_RUN_BORDER, "borderWidth": 3}


def union_payload(
    reference: ModelExplorerPayload,
    others: Mapping[str, ModelExplorerPayload],
    bordered: frozenset[str] = frozenset(),
) -> ModelExplorerPayload:
    """``reference``'s collection with, in each of its graphs, the nodes of ``others``' same graph whose
    op label it lacks (in the runs' order), the ops of labels ``bordered`` drawn with
    ``NOT_IN_EVERY_RUN_STYLE``; validated by torchlens as every payload is."""
    graphs = []
    for graph in reference.collection.get("graphs", ()):
        merged = _Merged(graph)
        for run, payload in others.items():
            same = [g for g in payload.collection.get("graphs", ()) if g.get("id") == graph.get("id")]
            if same:
                merged.add(run, same[0])
        graphs.append(merged.graph(bordered))
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

    def graph(self, bordered: frozenset[str]) -> dict[str, Any]:
        """The graph merged, the op nodes of labels ``bordered`` (copies) styled as not in every run."""

        def styled(node: dict[str, Any]) -> dict[str, Any]:
            return {**node, "style": dict(NOT_IN_EVERY_RUN_STYLE)}

        nodes = [styled(n) if node_attr(n, "torchlens_label") in bordered else n for n in self._nodes]
        graph = {**self._graph, "nodes": nodes}
        if self._groups:
            graph["groupNodeAttributes"] = self._groups
        return graph


def _edge(edge: Mapping[str, Any], ours: Mapping[str, str]) -> dict[str, Any]:
    return {**edge, "sourceNodeId": ours[str(edge["sourceNodeId"])]}


# ----- Netron -------------------------------------------------------------------------------------


def netron_union(own: NetronArtifact, others: Mapping[str, NetronArtifact]) -> NetronArtifact:
    """``own`` (torchlens' Netron artifact of the run drawn) with, in its root graph and each module
    call's body, the nodes of ``others``' same graph that it lacks by Netron name (torchlens names a
    Netron node by its op label or module address), a module call only another run makes with its body;
    their value types, their sidebar rows and their entries of the node index come with them."""
    model = json.loads(own.model_json)
    companion = json.loads(own.attachment_json)
    bodies = _netron_bodies(model)
    entries: list[tuple[NetronNodeEntry, list[str]]] = [(entry, []) for entry in own.index]
    for artifact in others.values():
        theirs = json.loads(artifact.model_json)
        added: set[str] = set()
        for key, body in _netron_bodies(theirs).items():
            if key not in bodies:  # a module call only this run makes: its whole body
                model.setdefault("functions", []).append(body)
                bodies[key] = body
                added |= {str(node["name"]) for node in body.get("node", ())}
                continue
            added |= _add_netron_nodes(bodies[key], body)
        rows = json.loads(artifact.attachment_json).get("metadata", [])
        companion["metadata"] += [r for r in rows if r.get("kind") == "node" and r.get("target") in added]
        entries += [(entry, []) for entry in artifact.index if entry.node_id in added]
    return dataclasses.replace(
        own,
        model_json=json.dumps(model),
        attachment_json=json.dumps(companion),
        index=NetronNodeIndex(entries),
        root_node_count=len(model["graph"].get("node", ())),
    )


def _netron_bodies(model: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The model's graphs by key: the root graph, then each function (a module call's body)."""
    bodies = {("", ""): model["graph"]}
    for function in model.get("functions", ()):
        bodies[(str(function.get("domain", "")), str(function["name"]))] = function
    return bodies


def _add_netron_nodes(ours: dict[str, Any], theirs: Mapping[str, Any]) -> set[str]:
    """Adds to ``ours`` the nodes of ``theirs`` (the same graph of another run) it lacks by name, with
    the value types and graph outputs they produce; their names."""
    names = {str(node["name"]) for node in ours.get("node", ())}
    new = [node for node in theirs.get("node", ()) if str(node["name"]) not in names]
    if not new:
        return set()
    ours["node"] = [*ours.get("node", ()), *new]
    produced = {str(output) for node in new for output in node.get("output", ())}
    known = {str(info.get("name")) for info in ours.get("valueInfo", ())}
    types = [info for info in theirs.get("valueInfo", ()) if info.get("name") in produced - known]
    if types:
        ours["valueInfo"] = [*ours.get("valueInfo", ()), *types]
    outputs = {_value_name(output) for output in ours.get("output", ())}
    more = [o for o in theirs.get("output", ()) if _value_name(o) in produced - outputs]
    if more:
        ours["output"] = [*ours.get("output", ()), *more]
    return {str(node["name"]) for node in new}


def _value_name(value: Any) -> str:
    """A graph output's name: a value-info object's in the root graph, the name itself in a function."""
    return str(value.get("name")) if isinstance(value, Mapping) else str(value)
