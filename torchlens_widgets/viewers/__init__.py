"""The viewers: what each needs from the kernel (its assets, its graph, name <-> node resolution), one
module per viewer, like js/model-explorer/ and js/netron/; ``make_source`` picks one by name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .._assets import AssetBundle
from .._errors import ViewerNotAvailableError
from .._protocol import ColoursResult, GraphResult, Reply
from .._trace import NodeLookup
from ..graph_model import TraceGraph
from .model_explorer import ModelExplorerSource
from .netron import DEFAULT_DEPTH, DEFAULT_SHOW_BUFFERS, NetronSource, ShowBuffers

if TYPE_CHECKING:
    from .._overlays import Overlay
    from ..diffing.baseline import BaselineFacts

VIEWERS = ("model-explorer", "netron")


class ViewerSource(Protocol):
    baseline: BaselineFacts | None
    # torchlens label -> the runs of a comparison that lack that op ("b, c"), set on its node as an
    # attribute the viewer's info panel shows ({} outside a comparison).
    node_marks: Mapping[str, str]

    @property
    def index(self) -> NodeLookup: ...

    @property
    def exported(self) -> bool: ...

    def assets(self) -> AssetBundle: ...

    def graph(self, overlay: Overlay | None, colour_rev: int) -> Reply[GraphResult]:
        """The graph with its colours (``colours`` with nothing shown). Highlights are not in it: the
        browser marks them on the graph drawn, from ``_highlight_nodes`` and ``_highlight_roles``."""
        ...

    def colours(self, overlay: Overlay | None, colour_rev: int, shown_facts: str) -> Reply[ColoursResult]:
        """What colours the graph drawn: ``overlay``, and the node facts unless their key is
        ``shown_facts`` (the view has them)."""
        ...

    def highlight_ids(self, labels: Iterable[str]) -> list[str]: ...

    def info(self) -> dict[str, Any]: ...

    def resolve(self, name: str) -> str: ...

    def record(self, label: str) -> Any: ...


def make_source(
    viewer: str,
    log: Any,
    granularity: str = "module",
    privacy_profile: str = "local",
    depth: int = DEFAULT_DEPTH,
    show_buffers: ShowBuffers = DEFAULT_SHOW_BUFFERS,
    graph: TraceGraph | None = None,
) -> ViewerSource:
    """The kernel side of ``viewer`` for ``log``; raises (typed, with a remedy) before anything is drawn.

    ``depth`` and ``show_buffers`` are Netron's options (tl.export.netron's); Model Explorer has none.
    ``graph`` is the trace's graph model when the caller holds one (Model Explorer draws it).
    """
    if viewer == "model-explorer":
        return ModelExplorerSource(log, graph or TraceGraph(log, privacy_profile))
    if viewer == "netron":
        return NetronSource(log, granularity, privacy_profile, depth, show_buffers, graph)
    raise ViewerNotAvailableError(
        f"Unknown viewer {viewer!r}. Remedy: use one of {', '.join(map(repr, VIEWERS))}."
    )
