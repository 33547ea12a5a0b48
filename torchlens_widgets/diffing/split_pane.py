"""``tlw.diff(log_a, log_b)``: both captures as Model Explorer collections for a synced split pane,
each pane coloured by the per-node L2 delta that ``tl.export.model_explorer_diff`` computes (its private
``_pairwise_deltas`` / ``_delta_node_data``), per-node status, counts, the largest deltas, and
``pair(node_id)`` -> ``(record_a | None, record_b | None)``. Pure functions, no widget.

It follows torchlens' (subject, reference) order: the first capture is the subject, so "added" means
"only in the first capture" and "removed" means "only in the second", exactly as torchlens words it.
A node without a value on either side is never reported as a zero delta, and a delta torchlens
computed as NaN or Inf (a run that went non-finite) is counted as such, never drawn as a number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import NodeNotFoundError
from .._gzip_json import gzip_json
from .._torchlens import delta_node_data, pairwise_deltas
from .._trace import record_for_label, require_trace, resolve_name
from ..graph_model import ModelExplorerPayload, model_explorer_payload
from .labels import default_label, execution_labels

#: Per-node status of the split-pane diff, in display order ("nonfinite": torchlens' delta is NaN or
#: Inf, because a side holds a NaN or an Inf there).
DIFF_STATUSES = ("changed", "nonfinite", "zero", "added", "removed", "not_comparable")
_STATUS_TEXT = {"nonfinite": "non-finite", "not_comparable": "not comparable"}


def delta_text(value: float) -> str:
    """A delta as the summary shows it: 3 significant digits, or "NaN" / "inf" as such."""
    if math.isnan(value):
        return "NaN"
    return f"{value:.3g}"


@dataclass(frozen=True)
class TopDelta:
    """One of the largest deltas: the node to select and what to show for it."""

    node_id: str
    label: str  # torchlens label in the first capture, e.g. "linear_1_11:1"
    value: float  # torchlens' L2 delta; NaN or Inf for a node whose status is "nonfinite"

    def wire(self) -> dict[str, Any]:
        """The JSON form: a non-finite value is null, its text says which ("NaN", "inf")."""
        finite = math.isfinite(self.value)
        return {
            "node_id": self.node_id,
            "label": self.label,
            "value": self.value if finite else None,
            "text": delta_text(self.value),
        }


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
    deltas: dict[str, float]  # node id -> torchlens' L2 delta, for comparable nodes only (NaN/Inf kept)
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
            "top": [t.wire() for t in self.top],
        }

    def summary_line(self) -> str:
        """E.g. ``changed 11 · zero 58 · added 0 · removed 0 · not comparable 0``, then the largest deltas;
        ``non-finite 40`` after ``changed`` when torchlens' delta is NaN or Inf somewhere."""
        shown = (s for s in DIFF_STATUSES if s != "nonfinite" or self.counts[s])  # said when there are any
        counts = " · ".join(f"{_STATUS_TEXT.get(status, status)} {self.counts[status]}" for status in shown)
        if not self.top:
            return counts
        largest = ", ".join(f"{t.label} {delta_text(t.value)}" for t in self.top)
        return f"{counts}; largest: {largest}"

    def wire(self) -> dict[str, bytes]:
        """gzip JSON of each piece the frontend needs (two collections, two node-data files)."""
        return {
            "a": self.a.wire,
            "b": self.b.wire,
            "node_data_a": gzip_json(self.node_data_a),
            "node_data_b": gzip_json(self.node_data_b),
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
    a = model_explorer_payload(log_a, label=f"{default_label(log_a)} [{names[0]}]", **options)
    b = model_explorer_payload(log_b, label=f"{default_label(log_b)} [{names[1]}]", **options)
    deltas, coverage = pairwise_deltas(log_a, log_b, a.collection, b.collection)
    # torchlens' node data holds every delta, NaN included: JSON has no NaN, and Model Explorer would
    # colour it anyway. Only finite deltas are drawn; the others are counted as "nonfinite".
    finite = {node_id: value for node_id, value in deltas.items() if math.isfinite(value)}
    graph_id_a, node_data_a = _single_graph(delta_node_data(a.collection, finite))
    _, node_data_b = _single_graph(delta_node_data(b.collection, finite))
    labels_a, labels_b = execution_labels(a.collection), execution_labels(b.collection)
    status: dict[str, str] = {}
    for node_id in labels_a:
        if node_id not in labels_b:
            status[node_id] = "added"
        elif node_id in finite:
            status[node_id] = "changed" if deltas[node_id] != 0.0 else "zero"
        elif node_id in deltas:
            status[node_id] = "nonfinite"
        else:  # a value is missing on a side, or shape/dtype differ: never a zero
            status[node_id] = "not_comparable"
    for node_id in labels_b:
        status.setdefault(node_id, "removed")
    counts = {name: 0 for name in DIFF_STATUSES}
    for value in status.values():
        counts[value] += 1
    # A non-finite delta is the largest change there is: those come first, in graph order (the first is
    # where the run went non-finite), then the finite ones, largest first.
    nonfinite = [node_id for node_id, value in status.items() if value == "nonfinite"]
    changed = sorted(
        (node_id for node_id, value in status.items() if value == "changed"),
        key=lambda node_id: (-deltas[node_id], node_id),
    )
    largest = [*nonfinite, *changed][: max(top, 0)]
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


def _single_graph(node_data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """torchlens' graph-keyed delta node data -> (graph id, single-graph form); ("", {}) when empty."""
    for graph_id, graph_data in node_data.items():
        return str(graph_id), dict(graph_data)
    return "", {}
