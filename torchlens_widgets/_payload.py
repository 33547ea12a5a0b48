"""The Model Explorer payload of a trace: torchlens' own exporter and validator, nothing re-derived."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from typing import Any

import torchlens as tl

from ._errors import NotATraceError, PayloadValidationError
from ._node_index import NodeIndex


def require_trace(log: object, parameter: str = "log") -> Any:
    if not isinstance(log, tl.Trace):
        raise NotATraceError(log, parameter)
    return log


@dataclass(frozen=True)
class ModelExplorerPayload:
    """One validated graph collection, ready to be sent to the frontend."""

    collection: dict[str, Any]
    index: NodeIndex = field(repr=False)

    @property
    def label(self) -> str:
        return str(self.collection.get("label", ""))

    @property
    def graph_sizes(self) -> dict[str, int]:
        return {str(graph["id"]): len(graph.get("nodes", ())) for graph in self.collection["graphs"]}

    def wire(self) -> bytes:
        """The collection as gzip-compressed JSON (what the frontend receives)."""
        text = json.dumps(self.collection, separators=(",", ":"), allow_nan=False)
        return gzip.compress(text.encode(), compresslevel=6, mtime=0)


def model_explorer_payload(log: Any, **options: Any) -> ModelExplorerPayload:
    """Export ``log`` with ``tl.export.to_model_explorer_dict`` and validate it strictly.

    Raises PayloadValidationError (with torchlens' failure rows) instead of showing a broken graph.
    """
    require_trace(log)
    collection = tl.export.to_model_explorer_dict(log, **options)
    validate(collection)
    index = NodeIndex((str(graph["id"]), graph.get("nodes", ())) for graph in collection["graphs"])
    return ModelExplorerPayload(collection, index)


def validate(collection: dict[str, Any]) -> None:
    try:
        tl.export.validate_model_explorer_payload(collection, strict=True)
    except Exception as error:  # torchlens' typed refusal: report every failing row, not just the first
        rows = tl.export.validate_model_explorer_payload(collection, strict=False).failures
        raise PayloadValidationError(rows, error) from error
