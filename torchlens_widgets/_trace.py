"""The trace and its names: checking an argument is a Trace, what a viewer's node index offers, and
resolving the names a user types (labels, module addresses, node ids) with torchlens' own lookup."""

from __future__ import annotations

from typing import Any, Protocol

import torchlens as tl

from ._errors import NodeNotFoundError, NotATraceError


def require_trace(log: object, parameter: str = "log") -> Any:
    if not isinstance(log, tl.Trace):
        raise NotATraceError(log, parameter)
    return log


class NodeLookup(Protocol):
    """What the widgets need from a viewer's node index (Model Explorer's and Netron's)."""

    def __len__(self) -> int: ...
    def has_id(self, node_id: str) -> bool: ...
    def label_of(self, node_id: str) -> str: ...
    def id_of_label(self, label: str) -> str | None: ...
    def suggestions(self, name: str, limit: int = 5) -> list[str]: ...
    def labels_by_id(self) -> dict[str, str]: ...


def op_label(record: Any, *, single_pass: bool = False) -> str | None:
    """The pass-qualified label of an op record, or of a layer's first pass (with ``single_pass``:
    None for a layer of several passes, where no one pass stands for the others)."""
    op_labels = getattr(record, "op_labels", None)
    if op_labels:  # a Layer: all passes of one op; the first pass stands for it
        if single_pass and len(op_labels) > 1:
            return None
        return str(op_labels[0])
    label = getattr(record, "label", None)
    return str(label) if label else None


def _module_output_label(log: Any, name: str) -> str | None:
    """For a module address ("encoder.0") or module call ("encoder.0:2"): the op its call returns.

    A module box is drawn as its ops, so the module stands for the op that produced its output.
    """
    try:
        owner = log.modules[name] if name in log.modules else log.module_calls[name]
        outputs = owner.output_ops
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return None
    return str(outputs[0]) if outputs else None


def resolve_name(log: Any, index: NodeLookup, name: str) -> str:
    """The viewer node id for ``name``: a viewer node id, a torchlens label or a module address."""
    if not isinstance(name, str) or not name:
        raise NodeNotFoundError(f"select() needs a non-empty name, got {name!r}.")
    if index.has_id(name):
        return name
    node_id = index.id_of_label(name)
    if node_id is not None:
        return node_id
    module_output = _module_output_label(log, name)
    if module_output is not None:
        node_id = index.id_of_label(module_output)
        if node_id is not None:
            return node_id
    try:
        record = log[name]  # torchlens resolves pass-less labels and other spellings to an op
    except (KeyError, ValueError, IndexError, TypeError) as error:
        nearby = index.suggestions(name)
        hint = f" Nodes with similar labels: {', '.join(nearby)}." if nearby else ""
        raise NodeNotFoundError(
            f"No node named {name!r} in this graph. torchlens says: {error}{hint}"
        ) from None
    label = op_label(record)
    node_id = index.id_of_label(label) if label else None
    if node_id is None:
        raise NodeNotFoundError(
            f"{name!r} resolves to {label!r} in the trace, but that op is not drawn in this graph "
            "(torchlens leaves some ops out of the viewer payload, e.g. hidden buffers). "
            "Remedy: select one of its neighbours, e.g. via w.log[...].parents."
        )
    return node_id


def drawn_id(log: Any, index: NodeLookup, label: str) -> str | None:
    """The node that draws torchlens label ``label`` (a module: the op its call returned), or None
    when the view leaves it out (e.g. a hidden buffer): what a highlight marks."""
    node_id = index.id_of_label(label)
    if node_id is not None:
        return str(node_id)
    try:
        return resolve_name(log, index, label)
    except NodeNotFoundError:
        return None


def record_for_label(log: Any, label: str) -> Any:
    """The live record for a label shown by a viewer: ``log[label]``, or the module at an address."""
    try:
        return log[label]
    except (KeyError, ValueError, IndexError):
        if label in log.modules:
            return log.modules[label]
        raise
