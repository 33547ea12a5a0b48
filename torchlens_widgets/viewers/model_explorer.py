"""Model Explorer as a viewer: its web assets, a trace as torchlens' own payload (exporter and
validator, nothing re-derived), its node index, and the viewer source a widget asks."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

import torchlens as tl

from .._assets import AssetBundle, one_match, read_asset
from .._errors import PayloadValidationError, ViewerAssetsError
from .._gzip_json import gzip_json
from .._privacy import without_source_locations
from .._protocol import HIGHLIGHT_STYLE, ModelExplorerGraph, Reply, Role
from .._trace import drawn_id, node_attr, record_for_label, require_trace, resolve_name
from .._versions import checked_version

if TYPE_CHECKING:
    from .._overlays import Overlay
    from ..diffing.baseline import BaselineFacts

# ----- assets -------------------------------------------------------------------------------------

# Without any one of these the Model Explorer app never becomes ready.
_ME_ATLASES = tuple(
    f"static_files/{stem}.{ext}"
    for stem in ("FontRegular", "FontMedium", "FontBold", "icons_20240521")
    for ext in ("png", "json")
)
# Without it every Material icon renders as its ligature word.
_ME_ICON_FONT = "static_files/material_icon.woff2"
_FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
_STATIC_URL = re.compile(r"url\(/(static_files/[^)]+\.woff2)\)")


def _latin_and_icon_fonts(css: str) -> list[str]:
    """The woff2 files of the upright latin faces and the Material Icons face (the rest is cosmetic)."""
    wanted = []
    for rule in _FONT_FACE.findall(css):
        url = _STATIC_URL.search(rule)
        if not url:
            continue
        latin_upright = "font-style:normal" in rule and "unicode-range:U+0000-00FF" in rule
        if latin_upright or url.group(1) == _ME_ICON_FONT:
            wanted.append(url.group(1))
    return sorted(set(wanted))


@functools.cache
def model_explorer_assets() -> AssetBundle:
    """The minimal file set of the Model Explorer web app installed with ai-edge-model-explorer."""
    version = checked_version("model-explorer")
    try:
        root = resources.files("model_explorer").joinpath("web_app")
    except ModuleNotFoundError:  # metadata present but the package itself is gone
        raise ViewerAssetsError(
            "ai-edge-model-explorer's module 'model_explorer' cannot be imported. "
            "Remedy: pip install --force-reinstall 'ai-edge-model-explorer>=0.1.33,<0.2'"
        ) from None
    if not root.is_dir():
        raise ViewerAssetsError(
            f"ai-edge-model-explorer {version} has no web_app folder. "
            "Remedy: pip install --force-reinstall 'ai-edge-model-explorer>=0.1.33,<0.2'"
        )
    names = [item.name for item in root.iterdir()]
    index = read_asset(root, "index.html", "model-explorer")
    roles: dict[str, Role] = {"index.html": "page"}
    for script in re.findall(rb'src="([^"]+\.js)"', index):  # in the order the page loads them
        roles.setdefault(script.decode(), "entry")
    for style in re.findall(rb'href="(styles-[^"]+\.css)"', index):
        roles.setdefault(style.decode(), "style")
    roles[one_match(names, r"worker-[A-Z0-9]+\.js", "model-explorer")] = "worker"
    files = {"index.html": index}
    for name in list(roles)[1:]:
        files[name] = read_asset(root, name, "model-explorer")
    css = b"".join(data for name, data in files.items() if name.endswith((".css", ".html"))).decode()
    for name in _ME_ATLASES:
        files[name], roles[name] = read_asset(root, name, "model-explorer"), "data"
    for name in _latin_and_icon_fonts(css):
        files[name], roles[name] = read_asset(root, name, "model-explorer"), "font"
    if not any(name.startswith("main-") for name in files):
        raise ViewerAssetsError(
            f"ai-edge-model-explorer {version}: index.html names no main-*.js. "
            "Remedy: install a supported version (>=0.1.33,<0.2)."
        )
    return AssetBundle("model-explorer", version, files, roles)


# ----- payload ------------------------------------------------------------------------------------


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

    @functools.cached_property
    def wire(self) -> bytes:
        """The collection as gzip-compressed JSON (what the frontend receives; made once)."""
        return gzip_json(self.collection)


def model_explorer_payload(log: Any, **options: Any) -> ModelExplorerPayload:
    """Export ``log`` with ``tl.export.to_model_explorer_dict`` and validate it strictly.

    Raises PayloadValidationError (with torchlens' failure rows) instead of showing a broken graph.
    """
    require_trace(log)
    collection = tl.export.to_model_explorer_dict(log, **options)
    if options.get("privacy_profile") == "public":  # torchlens leaves the advisories' paths in
        collection = without_source_locations(collection)
    validate(collection)
    split = split_wide_layers(collection)
    if split is not collection:
        validate(split)  # still a payload torchlens accepts, with a group row for each sub-layer
        collection = split
    index = NodeIndex((str(graph["id"]), graph.get("nodes", ())) for graph in collection["graphs"])
    return ModelExplorerPayload(collection, index)


# Model Explorer's layout worker splits a layer with more than 1,000 direct children by a recursive
# walk along its edges, as deep as the chain is long: a flat chain of ~4,000 ops overflows the worker's
# stack ("Maximum call stack size exceeded") and the graph never draws (measured, 0.1.34; its own server
# fails the same way). Sub-layers of at most this many ops keep every walk short.
MAX_DIRECT_OPS = 1000


def split_wide_layers(collection: dict[str, Any], limit: int = MAX_DIRECT_OPS) -> dict[str, Any]:
    """``collection`` with the direct ops of any layer wider than ``limit`` grouped, in execution order,
    into sub-layers ``"ops 1-1000"``, ``"ops 1001-2000"``, ...

    Only namespaces change: node ids, labels, attributes and edges stay torchlens' own, so selection,
    overlays and the inspector are unaffected. Collections with no such layer are returned as they are.
    """
    graphs = []
    for graph in collection["graphs"]:
        nodes = graph.get("nodes", [])
        widths: dict[str, int] = {}
        for node in nodes:
            widths[node.get("namespace", "")] = widths.get(node.get("namespace", ""), 0) + 1
        wide = {namespace for namespace, width in widths.items() if width > limit}
        if not wide:
            graphs.append(graph)
            continue
        seen: dict[str, int] = {}
        regrouped = []
        groups = dict(graph.get("groupNodeAttributes") or {})
        for node in nodes:
            namespace = node.get("namespace", "")
            if namespace in wide:
                position = seen[namespace] = seen.get(namespace, 0) + 1
                first = (position - 1) // limit * limit + 1
                last = min(first + limit - 1, widths[namespace])
                chunk = f"ops {first}-{last}"
                child = f"{namespace}/{chunk}" if namespace else chunk
                # Every namespace needs its group row (torchlens' validator checks): what the sub-layer is.
                groups.setdefault(
                    child,
                    {
                        "ops": str(last - first + 1),
                        "split": f"ops {first}-{last} of {widths[namespace]} (for layout)",
                    },
                )
                node = {**node, "namespace": child}
            regrouped.append(node)
        graphs.append({**graph, "nodes": regrouped, "groupNodeAttributes": groups})
    if all(new is old for new, old in zip(graphs, collection["graphs"], strict=True)):
        return collection
    return {**collection, "graphs": graphs}


def validate(collection: dict[str, Any]) -> None:
    try:
        tl.export.validate_model_explorer_payload(collection, strict=True)
    except Exception as error:  # torchlens' typed refusal: report every failing row, not just the first
        rows = tl.export.validate_model_explorer_payload(collection, strict=False).failures
        raise PayloadValidationError(rows, error) from error


# ----- node index ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeEntry:
    node_id: str
    label: str  # torchlens label as the viewer shows it, e.g. "linear_1_1:1" or "encoder.layer.0"
    graph_id: str


def highlighted(collection: dict[str, Any], node_ids: Collection[str]) -> dict[str, Any]:
    """A copy of ``collection`` whose nodes ``node_ids`` carry HIGHLIGHT_STYLE (in every graph that
    draws them: a rolled node shares its first pass's id). The collection itself is never changed."""
    marked = set(node_ids)

    def mark(node: dict[str, Any]) -> dict[str, Any]:
        return {**node, "style": dict(HIGHLIGHT_STYLE)} if str(node.get("id")) in marked else node

    graphs = [
        {**graph, "nodes": [mark(node) for node in graph.get("nodes", ())]} for graph in collection["graphs"]
    ]
    return {**collection, "graphs": graphs}


class NodeIndex:
    """Maps between the ids a viewer reports and torchlens labels.

    ``graphs`` is an iterable of (graph id, nodes) where each node is a Model Explorer node dict.
    Graphs earlier in the order win when two graphs share a node id (the execution graph comes
    before the rolled one, so a click in the rolled view resolves to the first pass).
    """

    def __init__(self, graphs: Iterable[tuple[str, Iterable[Mapping[str, Any]]]]) -> None:
        self._by_id: dict[str, NodeEntry] = {}
        self._by_label: dict[str, str] = {}
        for graph_id, nodes in graphs:
            for node in nodes:
                label = node_attr(node, "torchlens_label")
                if not label:
                    continue
                node_id = str(node["id"])
                self._by_id.setdefault(node_id, NodeEntry(node_id, label, graph_id))
                self._by_label.setdefault(label, node_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def label_of(self, node_id: str) -> str:
        """The torchlens label of a viewer node id ("" for ids without one, e.g. a layer group)."""
        entry = self._by_id.get(node_id)
        return entry.label if entry else ""

    def id_of_label(self, label: str) -> str | None:
        return self._by_label.get(label)

    def has_id(self, node_id: str) -> bool:
        return node_id in self._by_id

    def suggestions(self, name: str, limit: int = 5) -> list[str]:
        return difflib.get_close_matches(name, list(self._by_label), n=limit, cutoff=0.5)

    def labels_by_id(self) -> dict[str, str]:
        """Every node id with a torchlens label, and that label."""
        return {node_id: entry.label for node_id, entry in self._by_id.items()}


# ----- viewer source ------------------------------------------------------------------------------


class ModelExplorerSource:
    """A trace as a Model Explorer graph collection."""

    def __init__(self, log: Any, privacy_profile: str = "local") -> None:
        self._log = log
        model_explorer_assets()  # missing or unsupported assets fail here, before anything is drawn
        self._privacy_profile = privacy_profile
        self.baseline: BaselineFacts | None = None
        self._annotated: tuple[BaselineFacts, bytes] | None = None

    # Exported on first use (the first view's graph request, or a Python call that needs a node id):
    # explore() returns at once, so the view's frame (on screen) boots while torchlens exports; the app
    # starts with the graph's ids when the graph lands.
    @functools.cached_property
    def payload(self) -> ModelExplorerPayload:
        return model_explorer_payload(self._log, privacy_profile=self._privacy_profile)

    @property
    def index(self) -> NodeIndex:
        return self.payload.index

    @property
    def exported(self) -> bool:
        """Whether torchlens' export has run (what the graph's size is known from)."""
        return "payload" in self.__dict__

    def assets(self) -> AssetBundle:
        return model_explorer_assets()

    def graph(self, overlay: Overlay | None, highlight: Collection[str] = ()) -> Reply[ModelExplorerGraph]:
        """The collection, with ``highlight`` (node ids) marked by HIGHLIGHT_STYLE, and its node data."""
        header = ModelExplorerGraph(label=self.payload.label, encoding="gzip")
        buffers = [gzip_json(highlighted(self._collection(), highlight)) if highlight else self._wire()]
        if overlay is not None:  # loaded as Model Explorer node data: its heatmap, legend and values
            header["nodeData"] = {"name": overlay.provider}
            buffers.append(overlay.wire())
        return header, buffers

    def _wire(self) -> bytes:
        """The collection as sent: with the baseline's diff attributes on its nodes when one is set."""
        if self.baseline is None:
            return self.payload.wire
        if self._annotated is None or self._annotated[0] is not self.baseline:
            collection = self.baseline.annotate(self.payload.collection)  # validated strict
            self._annotated = (self.baseline, gzip_json(collection))
        return self._annotated[1]

    def _collection(self) -> dict[str, Any]:
        if self.baseline is None:
            return self.payload.collection
        return self.baseline.annotate(self.payload.collection)

    def highlight_ids(self, labels: Iterable[str]) -> list[str]:
        """The node ids that mark ``labels``: each op's node (a module stands for the op it returned)."""
        drawn = (drawn_id(self._log, self.index, label) for label in labels)
        return list(dict.fromkeys(node_id for node_id in drawn if node_id is not None))

    def info(self) -> dict[str, Any]:
        return {"label": self.payload.label, "graphs": self.payload.graph_sizes}

    def resolve(self, name: str) -> str:
        return resolve_name(self._log, self.index, name)

    def record(self, label: str) -> Any:
        return record_for_label(self._log, label)
