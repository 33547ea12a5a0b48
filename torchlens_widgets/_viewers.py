"""What each viewer needs from the kernel: its assets, its graph, and name <-> node resolution."""

from __future__ import annotations

from typing import Any, Protocol

from ._assets import AssetBundle, model_explorer_assets
from ._channel import Reply
from ._errors import ViewerNotAvailableError
from ._netron import NetronSource
from ._node_index import NodeLookup
from ._payload import ModelExplorerPayload, model_explorer_payload
from ._resolve import record_for_label, resolve_name

VIEWERS = ("model-explorer", "netron")


class ViewerSource(Protocol):
    @property
    def index(self) -> NodeLookup: ...

    def assets(self) -> AssetBundle: ...

    def graph(self) -> Reply: ...

    def info(self) -> dict[str, Any]: ...

    def resolve(self, name: str) -> str: ...

    def record(self, label: str) -> Any: ...


class ModelExplorerSource:
    """A trace as a Model Explorer graph collection."""

    def __init__(self, log: Any) -> None:
        self._log = log
        model_explorer_assets()  # missing or unsupported assets fail here, before anything is drawn
        self.payload: ModelExplorerPayload = model_explorer_payload(log)
        self.index = self.payload.index

    def assets(self) -> AssetBundle:
        return model_explorer_assets()

    def graph(self) -> Reply:
        return {"label": self.payload.label, "encoding": "gzip"}, [self.payload.wire()]

    def info(self) -> dict[str, Any]:
        return {"label": self.payload.label, "graphs": self.payload.graph_sizes}

    def resolve(self, name: str) -> str:
        return resolve_name(self._log, self.index, name)

    def record(self, label: str) -> Any:
        return record_for_label(self._log, label)


def make_source(viewer: str, log: Any, granularity: str = "module") -> ViewerSource:
    """The kernel side of ``viewer`` for ``log``; raises (typed, with a remedy) before anything is drawn."""
    if viewer == "model-explorer":
        return ModelExplorerSource(log)
    if viewer == "netron":
        return NetronSource(log, granularity)
    raise ViewerNotAvailableError(
        f"Unknown viewer {viewer!r}. Remedy: use one of {', '.join(map(repr, VIEWERS))}."
    )
