"""Diff facts for two captures, shaped for Model Explorer and Netron: pure functions, no widget.

Two products, both over torchlens' own delta computations (nothing here re-derives a delta):

- :func:`diff_payload` (``tlw.diff(log_a, log_b)``): both captures as Model Explorer collections for a
  synced split pane, each pane coloured by the per-node L2 delta that ``tl.export.model_explorer_diff``
  computes (its private ``_pairwise_deltas`` / ``_delta_node_data``), per-node status, counts, the largest
  deltas, and ``pair(node_id)`` -> ``(record_a | None, record_b | None)``.
- :func:`baseline_facts` (``tlw.explore(log, baseline=ref)``): torchlens' guarded differential
  ``torchlens.differential.diff_report(log, ref)`` mapped onto the node ids of ``log``'s payload: node
  attributes, a "delta" overlay, counts per status and how many positions could not be paired.

Both follow torchlens' (subject, reference) order: the first capture is the subject, so "added" means
"only in the first capture" and "removed" means "only in the second", exactly as torchlens words it.
A node without a value on either side is never reported as a zero delta.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl
from torchlens.differential import DifferentialReport, DiffRow, diff_report
from torchlens.export._model_explorer._diff import _delta_node_data, _pairwise_deltas

from ._errors import NodeNotFoundError, TorchlensWidgetsError
from ._node_index import node_attr
from ._payload import ModelExplorerPayload, model_explorer_payload, require_trace, validate
from ._resolve import record_for_label, resolve_name

__all__ = [
    "BASELINE_ATTR_KEYS",
    "BASELINE_STATUSES",
    "DIFF_STATUSES",
    "BaselineFacts",
    "DiffPayload",
    "NodeFacts",
    "SelfComparisonError",
    "TopDelta",
    "baseline_facts",
    "diff_payload",
]

#: Per-node status of the split-pane diff, in display order.
DIFF_STATUSES = ("changed", "zero", "added", "removed", "not_comparable")

#: torchlens' closed row vocabulary of ``diff_report`` (a contract test pins it to torchlens' own).
BASELINE_STATUSES = (
    "added",
    "removed",
    "unresolved",
    "excluded_machinery",
    "unreachable",
    "zero",
    "changed",
)

#: Statuses of rows that pair no subject position with a reference position.
UNPAIRED_STATUSES = ("added", "removed", "unresolved")

#: Node attributes the baseline adds to a Model Explorer node (only those with a value).
BASELINE_ATTR_KEYS = ("diff_status", "diff_max_abs_delta", "diff_reference", "diff_verdict")

_EXECUTION_GRAPH = 0  # torchlens puts the execution graph first; its delta node data covers it only
_SELF_COMPARISON_CODE = "differential_subject_is_reference"
_DELTA_GRADIENT = ({"stop": 0, "bgColor": "#FFFFFF"}, {"stop": 1, "bgColor": "#D55E00"})
BASELINE_OVERLAY_NAME = "baseline delta (max abs difference per op)"


class SelfComparisonError(TorchlensWidgetsError, ValueError):
    """A capture was compared with itself; torchlens refuses, since every row would be vacuous."""

    def __init__(self, message: str, *, code: str = _SELF_COMPARISON_CODE, remedy: str = "") -> None:
        self.code = code
        self.remedy = remedy
        super().__init__(message)


# ----- split-pane diff ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TopDelta:
    """One of the largest deltas: the node to select and what to show for it."""

    node_id: str
    label: str  # torchlens label in the first capture, e.g. "linear_1_11:1"
    value: float


@dataclass(frozen=True)
class DiffPayload:
    """Everything the kernel sends for ``tlw.diff(log_a, log_b)``, plus the id -> record pairing.

    ``a`` / ``b`` are the two validated collections (left and right pane). ``node_data_a`` is torchlens'
    delta node data in the graph-keyed form (``{"00-execution": {name, results, gradient}}``);
    ``node_data_b`` is the same data in the single-graph form (``{name, results, gradient}``), because
    Model Explorer renames the second collection's repeated graph ids ("00-execution (2)"), so a
    graph-keyed file would match nothing there. ``node_data_targets`` are the collection labels Model
    Explorer matches each node-data file against (its ``nodeDataTargets``).
    """

    a: ModelExplorerPayload
    b: ModelExplorerPayload
    node_data_a: dict[str, Any]
    node_data_b: dict[str, Any]
    status: dict[str, str]  # execution-graph node id (either side) -> one of DIFF_STATUSES
    deltas: dict[str, float]  # node id -> torchlens' L2 delta, for comparable nodes only
    counts: dict[str, int]  # DIFF_STATUSES -> number of nodes
    coverage: dict[str, int]  # torchlens' own coverage of the delta computation
    top: tuple[TopDelta, ...]
    log_a: Any = field(repr=False)
    log_b: Any = field(repr=False)
    _labels_a: dict[str, str] = field(repr=False, default_factory=dict)
    _labels_b: dict[str, str] = field(repr=False, default_factory=dict)

    @property
    def node_data_targets(self) -> tuple[str, str]:
        return (self.a.label, self.b.label)

    def pair(self, node_id: str) -> tuple[Any, Any]:
        """``(log_a[label], log_b[label])`` for a node id; None on the side that lacks the node.

        Raises NodeNotFoundError for an id that neither capture draws.
        """
        label_a = self._labels_a.get(node_id) or self.a.index.label_of(node_id)
        label_b = self._labels_b.get(node_id) or self.b.index.label_of(node_id)
        if not label_a and not label_b:
            raise NodeNotFoundError(
                f"No node with viewer id {node_id!r} in either capture. "
                "Remedy: pass an id from d.status, or resolve a label with d.resolve(name)."
            )
        return (
            record_for_label(self.log_a, label_a) if label_a else None,
            record_for_label(self.log_b, label_b) if label_b else None,
        )

    def resolve(self, name: str) -> str:
        """The node id for a torchlens label, module address or node id; the first capture is asked first."""
        try:
            return resolve_name(self.log_a, self.a.index, name)
        except KeyError:
            return resolve_name(self.log_b, self.b.index, name)

    def summary(self) -> dict[str, Any]:
        """The small, JSON-safe part a widget syncs: counts and the largest deltas."""
        return {
            "labels": list(self.node_data_targets),
            "line": self.summary_line(),
            "counts": dict(self.counts),
            "top": [{"node_id": t.node_id, "label": t.label, "value": t.value} for t in self.top],
        }

    def summary_line(self) -> str:
        """E.g. ``changed 11 · zero 58 · added 0 · removed 0 · not comparable 0``, then the largest deltas."""
        counts = " · ".join(f"{status.replace('_', ' ')} {self.counts[status]}" for status in DIFF_STATUSES)
        if not self.top:
            return counts
        largest = ", ".join(f"{t.label} {t.value:.3g}" for t in self.top)
        return f"{counts}; largest: {largest}"

    def wire(self) -> dict[str, bytes]:
        """gzip JSON of each piece the frontend needs (two collections, two node-data files)."""
        return {
            "a": self.a.wire(),
            "b": self.b.wire(),
            "node_data_a": _gzip_json(self.node_data_a),
            "node_data_b": _gzip_json(self.node_data_b),
        }


def diff_payload(
    log_a: Any,
    log_b: Any,
    *,
    names: tuple[str, str] = ("a", "b"),
    top: int = 10,
    privacy_profile: str = "local",
) -> DiffPayload:
    """Both captures for Model Explorer's synced split pane, coloured by torchlens' per-node delta.

    The delta is the L2 norm of the saved-output difference over the id-aligned intersection, exactly as
    ``tl.export.model_explorer_diff([log_a, log_b], ...)`` writes it. Node ids are Model Explorer's (the
    payloads'), so a selection in either pane maps directly onto ``status``, ``deltas`` and ``pair()``.
    """
    require_trace(log_a, "log_a")
    require_trace(log_b, "log_b")
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ValueError(
            f"names must be two different non-empty strings, got {names!r}. Remedy: e.g. names=('a', 'b')."
        )
    options = {"privacy_profile": privacy_profile}
    a = model_explorer_payload(log_a, label=f"{_default_label(log_a)} [{names[0]}]", **options)
    b = model_explorer_payload(log_b, label=f"{_default_label(log_b)} [{names[1]}]", **options)
    deltas, coverage = _pairwise_deltas(log_a, log_b, a.collection, b.collection)
    graph_id_a, node_data_a = _single_graph(_delta_node_data(a.collection, deltas))
    _, node_data_b = _single_graph(_delta_node_data(b.collection, deltas))
    labels_a, labels_b = execution_labels(a.collection), execution_labels(b.collection)
    status: dict[str, str] = {}
    for node_id in labels_a:
        if node_id not in labels_b:
            status[node_id] = "added"
        elif node_id in deltas:
            status[node_id] = "changed" if deltas[node_id] != 0.0 else "zero"
        else:  # a value is missing on a side, or shape/dtype differ: never a zero
            status[node_id] = "not_comparable"
    for node_id in labels_b:
        status.setdefault(node_id, "removed")
    counts = {name: 0 for name in DIFF_STATUSES}
    for value in status.values():
        counts[value] += 1
    largest = sorted(
        (node_id for node_id, value in status.items() if value == "changed"),
        key=lambda node_id: (-deltas[node_id], node_id),
    )[: max(top, 0)]
    return DiffPayload(
        a=a,
        b=b,
        node_data_a={graph_id_a: node_data_a} if node_data_a else {},
        node_data_b=node_data_b,
        status=status,
        deltas=dict(deltas),
        counts=counts,
        coverage=dict(coverage),
        top=tuple(TopDelta(node_id, labels_a[node_id], deltas[node_id]) for node_id in largest),
        log_a=log_a,
        log_b=log_b,
        _labels_a=labels_a,
        _labels_b=labels_b,
    )


# ----- baseline on explore() ----------------------------------------------------------------------


@dataclass(frozen=True)
class NodeFacts:
    """One ``diff_report`` row as facts of a drawn node (of the subject capture)."""

    status: str
    subject_label: str
    reference_label: str | None
    verdict: str | None
    max_abs_delta: float | None
    detail: str | None
    site_key: str

    @classmethod
    def of(cls, row: DiffRow) -> NodeFacts:
        return cls(
            status=row.status,
            subject_label=str(row.subject_label),
            reference_label=row.reference_label,
            verdict=row.verdict,
            max_abs_delta=row.max_abs_delta,
            detail=row.detail,
            site_key=row.site_key,
        )

    @property
    def numeric_delta(self) -> float | None:
        """The delta to colour by: only on value rows (zero / changed) with a finite number."""
        value = self.max_abs_delta
        if self.status in ("zero", "changed") and value is not None and math.isfinite(value):
            return float(value)
        return None

    def attrs(self) -> list[dict[str, str]]:
        """Model Explorer node attributes: only the facts this row carries, never a made-up zero."""
        values = {
            "diff_status": self.status,
            "diff_max_abs_delta": _format_delta(self.numeric_delta),
            "diff_reference": self.reference_label,
            "diff_verdict": self.verdict,
        }
        return [{"key": key, "value": value} for key, value in values.items() if value]


@dataclass(frozen=True)
class BaselineFacts:
    """``diff_report(log, ref)`` mapped onto the node ids of ``log``'s Model Explorer payload."""

    report: DifferentialReport = field(repr=False)
    reference: str  # the reference capture's label, for display
    nodes: dict[str, dict[str, NodeFacts]]  # graph id -> node id -> facts (nodes with a row only)
    by_label: dict[str, NodeFacts]  # subject op label ("linear_1_11:1") -> facts, every subject row
    netron: dict[str, NodeFacts]  # Netron node name -> facts (op label, and layer label if one pass)
    counts: dict[str, int]  # BASELINE_STATUSES -> rows
    unpaired: int  # rows torchlens could not pair: added + removed + unresolved
    nodes_without_row: int  # drawn execution nodes no row settles (shown without diff facts)
    rows_not_drawn: int  # subject rows whose op the payload does not draw

    @property
    def overlay(self) -> dict[str, Any]:
        """Delta node data (graph-keyed): values only for zero/changed rows; every other node absent."""
        data: dict[str, Any] = {}
        for graph_id, facts in self.nodes.items():
            results = {
                node_id: {"value": fact.numeric_delta}
                for node_id, fact in facts.items()
                if fact.numeric_delta is not None
            }
            if results:
                data[graph_id] = {
                    "name": BASELINE_OVERLAY_NAME,
                    "results": results,
                    "gradient": [dict(stop) for stop in _DELTA_GRADIENT],
                }
        return data

    @property
    def overlay_coverage(self) -> dict[str, Any]:
        """Coverage of the overlay in the shape of torchlens' node-data coverage (summed over graphs)."""
        with_row = sum(len(facts) for facts in self.nodes.values())
        resolved = sum(len(graph["results"]) for graph in self.overlay.values())
        return {
            "provider": BASELINE_OVERLAY_NAME,
            "resolved": resolved,
            "omitted_missing": with_row - resolved,  # rows without a value claim (unreachable, added, ...)
            "omitted_no_row": self.nodes_without_row,
        }

    def attrs(self, graph_id: str, node_id: str) -> list[dict[str, str]]:
        fact = self.nodes.get(graph_id, {}).get(node_id)
        return fact.attrs() if fact else []

    def annotate(self, collection: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of ``collection`` with the diff attributes on every node that has a row, validated.

        Existing ``diff_*`` attributes are replaced, so annotating twice (or after a baseline change)
        never doubles them. Raises PayloadValidationError if torchlens' strict validation fails.
        """
        annotated = copy.deepcopy(dict(collection))
        for graph in annotated.get("graphs", ()):
            facts = self.nodes.get(str(graph.get("id")), {})
            for node in graph.get("nodes", ()):
                attrs = [a for a in node.get("attrs", ()) if a.get("key") not in BASELINE_ATTR_KEYS]
                fact = facts.get(str(node.get("id")))
                node["attrs"] = attrs + (fact.attrs() if fact else [])
        validate(annotated)
        return annotated

    def netron_metadata(self, node_names: Iterable[str]) -> list[dict[str, str]]:
        """Netron attachment ``metadata`` rows (``kind: node``) for the names that have facts."""
        rows: list[dict[str, str]] = []
        for name in node_names:
            fact = self.netron.get(name)
            if fact is None:
                continue
            for attr in fact.attrs():
                display = attr["key"].removeprefix("diff_").replace("_", " ")
                rows.append(
                    {"kind": "node", "target": name, "name": f"diff {display}", "value": attr["value"]}
                )
        return rows

    def summary(self) -> dict[str, Any]:
        """The small, JSON-safe part a widget syncs."""
        return {
            "reference": self.reference,
            "line": self.summary_line(),
            "rows": len(self.report.rows),
            "counts": dict(self.counts),
            "unpaired": self.unpaired,
            "nodes_without_row": self.nodes_without_row,
            "rows_not_drawn": self.rows_not_drawn,
        }

    def summary_line(self) -> str:
        shown = [s for s in BASELINE_STATUSES if self.counts[s]]
        counts = " · ".join(f"{status.replace('_', ' ')} {self.counts[status]}" for status in shown)
        text = f"vs {self.reference}: {counts or 'no rows'}"
        if self.unpaired:
            text += f"; {self.unpaired} could not be paired"
        return text


def baseline_facts(log: Any, ref: Any, *, payload: ModelExplorerPayload | None = None) -> BaselineFacts:
    """torchlens' guarded differential of ``log`` against ``ref``, keyed by ``log``'s Model Explorer ids.

    ``payload`` is ``log``'s payload as the widget shows it (exported here when not given). Rows map to
    nodes through the payload's own ``torchlens_label`` -> node id map of the execution graph (site key
    plus pass is not the node id in general: passes of one module call share a site key). A rolled-graph
    node carries the facts of its op when its layer ran once; a multi-pass rolled node has no single row.

    Raises SelfComparisonError (torchlens' reason and remedy) when ``log is ref``.
    """
    require_trace(log)
    require_trace(ref, "ref")
    try:
        report = diff_report(log, ref)
    except tl.errors.TorchLensError as error:
        fields = getattr(error, "fields", None) or {}
        if fields.get("code") != _SELF_COMPARISON_CODE:
            raise
        raise SelfComparisonError(str(error), remedy=str(fields.get("remedy", ""))) from error
    if payload is None:
        payload = model_explorer_payload(log)

    by_label = {str(row.subject_label): NodeFacts.of(row) for row in report.rows if row.subject_label}
    graphs = payload.collection.get("graphs", [])
    nodes: dict[str, dict[str, NodeFacts]] = {}
    nodes_without_row = 0
    drawn: set[str] = set()
    for position, graph in enumerate(graphs):
        graph_id = str(graph["id"])
        for node in graph.get("nodes", ()):
            label = node_attr(node, "torchlens_label")
            if not label:
                continue
            if position == _EXECUTION_GRAPH:
                drawn.add(label)
                fact = by_label.get(label)
                if fact is None:
                    nodes_without_row += 1
            else:  # rolled: a layer label; one row only when the layer ran once
                op_label = _single_op_label(log, label)
                fact = by_label.get(op_label) if op_label else None
            if fact is not None:
                nodes.setdefault(graph_id, {})[str(node["id"])] = fact

    netron: dict[str, NodeFacts] = dict(by_label)
    for label, fact in by_label.items():
        layer = _layer_of_single_pass_op(log, label)
        if layer:
            netron.setdefault(layer, fact)
    counts = {status: report.counts.get(status, 0) for status in BASELINE_STATUSES}
    return BaselineFacts(
        report=report,
        reference=_default_label(ref),
        nodes=nodes,
        by_label=by_label,
        netron=netron,
        counts=counts,
        unpaired=sum(counts[status] for status in UNPAIRED_STATUSES),
        nodes_without_row=nodes_without_row,
        rows_not_drawn=sum(1 for label in by_label if label not in drawn),
    )


# ----- helpers ------------------------------------------------------------------------------------


def execution_labels(collection: Mapping[str, Any]) -> dict[str, str]:
    """Node id -> torchlens label of the execution graph (the graph torchlens' deltas cover)."""
    graphs = collection.get("graphs") or []
    if not graphs:
        return {}
    labels: dict[str, str] = {}
    for node in graphs[_EXECUTION_GRAPH].get("nodes", ()):
        label = node_attr(node, "torchlens_label")
        if label:
            labels[str(node["id"])] = label
    return labels


def _single_graph(node_data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """torchlens' graph-keyed delta node data -> (graph id, single-graph form); ("", {}) when empty."""
    for graph_id, graph_data in node_data.items():
        return str(graph_id), dict(graph_data)
    return "", {}


def _default_label(log: Any) -> str:
    """The collection label torchlens would use: the trace label, else the model class name."""
    return str(getattr(log, "trace_label", None) or getattr(log, "model_class_name", None) or "model")


def _single_op_label(log: Any, layer_label: str) -> str | None:
    """The op label of a layer that ran once ("linear_1_11" -> "linear_1_11:1"); None otherwise."""
    try:
        record = log[layer_label]
    except (KeyError, ValueError, IndexError, TypeError):
        return None
    op_labels = getattr(record, "op_labels", None)
    if op_labels is not None:
        return str(op_labels[0]) if len(op_labels) == 1 else None
    label = getattr(record, "label", None)  # an Op (the name already was pass-qualified)
    return str(label) if label else None


def _layer_of_single_pass_op(log: Any, op_label: str) -> str | None:
    """The layer label of an op whose layer ran once: the name Netron gives that op's node."""
    try:
        op = log[op_label]
        passes = int(getattr(op, "num_passes", 0) or 0)
        layer = getattr(op, "layer_label", None)
    except (KeyError, ValueError, IndexError, TypeError):
        return None
    return str(layer) if passes == 1 and layer else None


def _format_delta(value: float | None) -> str | None:
    return None if value is None else f"{value:.6g}"


def _gzip_json(value: Any) -> bytes:
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return gzip.compress(text.encode(), compresslevel=6, mtime=0)
