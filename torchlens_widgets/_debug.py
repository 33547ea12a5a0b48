"""torchlens' debug answers as a widget shows them: a node (or a set of nodes) and one status line.

Every answer is torchlens' own (``torchlens.debug``, ``Trace.find_nan``, ``torchlens.partial``,
``torchlens.report.explain``); this module only picks the records it names and words the status line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl

from ._errors import NodeNotFoundError, PartialCaptureNotDrawableError
from ._trace import NodeLookup, _module_output_label, resolve_name

# The words the widget uses for a lineage direction, and torchlens' own.
LINEAGE_DIRECTIONS = {"upstream": "ancestors", "downstream": "descendants"}


@dataclass(frozen=True)
class Divergence:
    """torchlens' first divergence of two traces, as the records on each side and a status line."""

    label: str | None  # the pass-qualified label of the first diverging op; None when nothing diverged
    record_a: Any  # log_a[label], or None when A lacks the op (or nothing diverged)
    record_b: Any
    status: str
    row: dict[str, Any] | None = field(default=None, repr=False)  # torchlens' own comparison row

    @property
    def pair(self) -> tuple[Any, Any] | None:
        """``(record_a, record_b)`` (None on a side that lacks the op), or None when nothing diverged."""
        return None if self.label is None else (self.record_a, self.record_b)


def first_divergence(log_a: Any, log_b: Any, rtol: float = 1e-5, atol: float = 1e-8) -> Divergence:
    """The first op, in execution order, where the two traces separate (``tl.debug.first_divergence``)."""
    row = tl.debug.first_divergence(log_a, log_b, rtol=rtol, atol=atol)
    if row is None:
        return Divergence(None, None, None, _no_divergence_status(log_a, log_b, rtol, atol))
    label = str(row["op"])
    record_a = None if row["status"] == "only-b" else _record(log_a, label)
    record_b = None if row["status"] == "only-a" else _record(log_b, label)
    return Divergence(label, record_a, record_b, _divergence_status(row, record_a, record_b, rtol, atol), row)


def _record(log: Any, label: str) -> Any:
    try:
        return log[label]
    except (KeyError, ValueError, IndexError):  # torchlens named it, so only a torchlens bug lands here
        return None


def _divergence_status(row: dict[str, Any], record_a: Any, record_b: Any, rtol: float, atol: float) -> str:
    label = row["op"]
    where = _module_of(record_a if record_a is not None else record_b)
    head = f"First divergence at {label}{where}"
    if row["status"] == "only-a":
        return f"{head}: it ran in A only."
    if row["status"] == "only-b":
        return f"{head}: it ran in B only."
    if row["shape_match"] is False:
        shape_a, shape_b = getattr(record_a, "shape", None), getattr(record_b, "shape", None)
        return f"{head}: shape {_shape(shape_a)} in A vs {_shape(shape_b)} in B."
    return (
        f"{head}: max |a - b| = {row['max_abs']:.3g}, mean {row['mean_abs']:.3g} "
        f"(beyond rtol={rtol:g}, atol={atol:g})."
    )


def _no_divergence_status(log_a: Any, log_b: Any, rtol: float, atol: float) -> str:
    """Say that nothing diverged, and how much could not be compared (torchlens' own counts)."""
    rows, attrs = tl.debug.compare_rows(log_a, log_b, rtol=rtol, atol=atol)
    matched, unavailable = int(attrs["matched"]), int(attrs.get("activation_unavailable", 0))
    text = f"No op diverged beyond rtol={rtol:g}, atol={atol:g} ({matched} ops compared equal)"
    if not unavailable:
        return text + "."
    compared = (row for row in rows if row["status"] == "present-in-both")
    reasons = Counter(str(row["reason"]) for row in compared if row["reason"])
    listed = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common(3))
    rule = "torchlens compares saved floating-point outputs of equal dtype and shape"
    if not matched:
        return (
            f"Nothing to compare: none of the {unavailable} ops shared by both runs could be compared "
            f"({listed}); {rule}. Remedy: compare two runs of the same dtype."
        )
    excluded = "so a divergence there is not excluded"
    return f"{text}; {unavailable} ops could not be compared ({listed}), {excluded}; {rule}."


def _module_of(record: Any) -> str:
    module = getattr(record, "module", None)
    return f" ({module})" if isinstance(module, str) and module else ""


def _shape(shape: Any) -> str:
    return "x".join(map(str, shape)) if isinstance(shape, tuple) else str(shape)


@dataclass(frozen=True)
class NonFinite:
    """torchlens' first non-finite op of a capture (``Trace.find_nan``) and its status line."""

    label: str | None  # pass-qualified; None when every saved output is finite
    record: Any
    status: str


def first_nonfinite(log: Any) -> NonFinite:
    """The first op, in execution order, whose saved output holds a NaN or an Inf."""
    result = log.find_nan()
    if not result.found or result.op is None:
        return NonFinite(None, None, str(result.message) or "No non-finite values in the saved outputs.")
    return NonFinite(str(result.op.label), result.op, str(result.message))


def lineage(log: Any, index: NodeLookup, name: str, direction: str = "upstream") -> list[str]:
    """torchlens' lineage of a node (``tl.debug.lineage``): the labels it walks, the node's own first.

    ``name`` is anything ``select()`` takes; a module stands for the op its call returned.
    """
    if direction not in LINEAGE_DIRECTIONS:
        raise ValueError(
            f"Unknown lineage direction {direction!r}. Remedy: use one of "
            f"{', '.join(map(repr, LINEAGE_DIRECTIONS))}."
        )
    label = index.label_of(resolve_name(log, index, name))
    start = _module_output_label(log, label) or label
    result = tl.debug.lineage(log, start, direction=LINEAGE_DIRECTIONS[direction])
    if result.message.startswith("unavailable"):
        raise NodeNotFoundError(f"torchlens has no lineage for {name!r}: {result.message}")
    return [node[0] for node in result.nodes]


def highlight_labels(log: Any, index: NodeLookup, names: str | Iterable[str] | None) -> list[str]:
    """The labels (as the viewer's index shows them) of the nodes ``names`` name; None clears.

    Each name is a torchlens label, a module address or a node id, resolved like ``select()``; an
    unknown name raises ``NodeNotFoundError``. Duplicates collapse, order is kept.
    """
    if names is None:
        return []
    listed = [names] if isinstance(names, str) else list(names)
    labels = (index.label_of(resolve_name(log, index, name)) for name in listed)
    return list(dict.fromkeys(labels))


def drawn_labels(index: NodeLookup, labels: Iterable[str]) -> list[str]:
    """The labels among ``labels`` that the viewer draws (a lineage may walk through hidden ops)."""
    return [label for label in labels if index.id_of_label(label) is not None]


@dataclass(frozen=True)
class PartialCapture:
    """What a crashed forward pass leaves to show: the trace to draw, where it failed, and why."""

    trace: Any  # a finalized torchlens Trace of the ops that ran
    failing_label: str | None  # the op it failed at, when torchlens recorded it
    exception_text: str  # "RuntimeError: mat1 and mat2 shapes cannot be multiplied ..."
    exception_type: str = ""  # "RuntimeError"


def is_partial_capture(obj: object) -> bool:
    return isinstance(obj, tl.partial.PartialTrace)


def partial_capture(partial: Any) -> PartialCapture:
    """The drawable part of ``torchlens.partial.from_failed_capture(exc)``.

    torchlens finalizes the ops that ran (final labels, a Trace its exporters draw) only when the
    capture stopped itself at a non-finite output (``raise_on_nan``); the failing op is then the
    trace's first non-finite op. Any other exception leaves raw, unlabelled records that
    torchlens' exporters draw as an empty graph, and the op that raised is absent from them.
    """
    facts = tl.report.explain(partial, format="json")
    exception_text = f"{facts['exception_type']}: {facts['exception_message']}"
    trace = partial.trace
    if not list(getattr(trace, "layer_list", None) or ()):
        raise PartialCaptureNotDrawableError(
            "This partial capture cannot be drawn: the forward pass raised before torchlens could "
            "finalize the ops that ran (they have raw labels only, and torchlens' exporters draw no "
            f"nodes for them). It failed with {exception_text} at {facts['failing_boundary']}, after "
            f"{facts['last_completed_op_label']}. Remedy: read `print(partial)`, "
            "`torchlens.report.explain(partial)` or `partial.draw()` (DOT text); to see the ops that "
            "ran drawn, trace the part of the model that ran (e.g. the submodule before the failure)."
        )
    nonfinite = first_nonfinite(trace)
    return PartialCapture(trace, nonfinite.label, exception_text, str(facts["exception_type"]))
