"""What each viewer needs from the kernel: its assets, its graph, and name <-> node resolution."""

from __future__ import annotations

import gzip
import json
from typing import Any, Protocol

from ._assets import AssetBundle, model_explorer_assets
from ._channel import Reply
from ._diff import BaselineFacts
from ._errors import ViewerNotAvailableError
from ._netron import NetronSource
from ._node_index import NodeLookup
from ._overlays import Overlay
from ._payload import ModelExplorerPayload, model_explorer_payload
from ._resolve import record_for_label, resolve_name

VIEWERS = ("model-explorer", "netron")


class ViewerSource(Protocol):
    baseline: BaselineFacts | None

    @property
    def index(self) -> NodeLookup: ...

    def assets(self) -> AssetBundle: ...

    def graph(self, overlay: Overlay | None) -> Reply: ...

    def info(self) -> dict[str, Any]: ...

    def resolve(self, name: str) -> str: ...

    def record(self, label: str) -> Any: ...


PRIVACY_PROFILES = ("local", "public")


def check_privacy_profile(profile: object) -> str:
    if profile not in PRIVACY_PROFILES:
        raise ViewerNotAvailableError(
            f"Unknown privacy_profile {profile!r}. Remedy: use 'local' (everything torchlens measured) "
            "or 'public' (no source paths, code lines or value-derived facts)."
        )
    return str(profile)


class ModelExplorerSource:
    """A trace as a Model Explorer graph collection."""

    def __init__(self, log: Any, privacy_profile: str = "local") -> None:
        self._log = log
        model_explorer_assets()  # missing or unsupported assets fail here, before anything is drawn
        self.payload: ModelExplorerPayload = model_explorer_payload(log, privacy_profile=privacy_profile)
        self.index = self.payload.index
        self.baseline: BaselineFacts | None = None
        self._annotated: tuple[BaselineFacts, bytes] | None = None

    def assets(self) -> AssetBundle:
        return model_explorer_assets()

    def graph(self, overlay: Overlay | None) -> Reply:
        header: dict[str, Any] = {"label": self.payload.label, "encoding": "gzip"}
        buffers = [self._wire()]
        if overlay is not None:  # loaded as Model Explorer node data: its heatmap, legend and values
            header["nodeData"] = {"name": overlay.provider}
            buffers.append(overlay.wire())
        return header, buffers

    def _wire(self) -> bytes:
        """The collection as sent: with the baseline's diff attributes on its nodes when one is set."""
        if self.baseline is None:
            return self.payload.wire()
        if self._annotated is None or self._annotated[0] is not self.baseline:
            collection = self.baseline.annotate(self.payload.collection)  # validated strict
            text = json.dumps(collection, separators=(",", ":"), allow_nan=False)
            self._annotated = (self.baseline, gzip.compress(text.encode(), compresslevel=6, mtime=0))
        return self._annotated[1]

    def info(self) -> dict[str, Any]:
        return {"label": self.payload.label, "graphs": self.payload.graph_sizes}

    def resolve(self, name: str) -> str:
        return resolve_name(self._log, self.index, name)

    def record(self, label: str) -> Any:
        return record_for_label(self._log, label)


def make_source(
    viewer: str, log: Any, granularity: str = "module", privacy_profile: str = "local"
) -> ViewerSource:
    """The kernel side of ``viewer`` for ``log``; raises (typed, with a remedy) before anything is drawn."""
    if viewer == "model-explorer":
        return ModelExplorerSource(log, privacy_profile)
    if viewer == "netron":
        return NetronSource(log, granularity, privacy_profile)
    raise ViewerNotAvailableError(
        f"Unknown viewer {viewer!r}. Remedy: use one of {', '.join(map(repr, VIEWERS))}."
    )
