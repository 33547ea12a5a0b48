"""``tlw.explore(log, baseline=ref)``: torchlens' guarded differential
``torchlens.differential.diff_report(log, ref)`` mapped onto the node ids of ``log``'s Model Explorer
payload: node attributes, a "delta" overlay, counts per status and how many positions could not be
paired. Pure functions, no widget; nothing here re-derives a delta, and a node without a value is
never a zero. (viewers/netron.py shows the same facts in Netron's sidebar.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl
from torchlens.differential import DifferentialReport, DiffRow, diff_report

from .._errors import SelfComparisonError
from .._overlays import Overlay, overlay_over
from .._trace import require_trace
from ..graph_model import ModelExplorerPayload, model_explorer_payload, node_attr
from .labels import EXECUTION_GRAPH_INDEX, default_label

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

_SELF_COMPARISON_CODE = "differential_subject_is_reference"  # torchlens' refusal of log is ref
_DELTA_GRADIENT = ({"stop": 0, "bgColor": "#FFFFFF"}, {"stop": 1, "bgColor": "#D55E00"})
BASELINE_OVERLAY_NAME = "baseline delta (max abs difference per op)"


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

    def row_for(self, label: str) -> NodeFacts | None:
        """The row of a node as both viewers name it: an op label, or a layer's that ran once."""
        return self.netron.get(label)

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


def delta_overlay(collection: dict[str, Any], facts: BaselineFacts, note: str = "") -> Overlay:
    """The "delta" overlay: torchlens' max-abs delta per node of ``facts`` (no value where no row settled),
    over ``collection``, the Model Explorer collection whose node ids ``facts`` are keyed by."""
    return overlay_over(
        collection, "delta", BASELINE_OVERLAY_NAME, facts.overlay, facts.overlay_coverage, note=note
    )


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
        raise SelfComparisonError(
            str(error), code=_SELF_COMPARISON_CODE, remedy=str(fields.get("remedy", ""))
        ) from error
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
            if position == EXECUTION_GRAPH_INDEX:
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
        reference=default_label(ref),
        nodes=nodes,
        by_label=by_label,
        netron=netron,
        counts=counts,
        unpaired=sum(counts[status] for status in UNPAIRED_STATUSES),
        nodes_without_row=nodes_without_row,
        rows_not_drawn=sum(1 for label in by_label if label not in drawn),
    )


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
