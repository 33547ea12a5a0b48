"""Model Explorer as a viewer: its web assets, the graph model (graph_model.py) as it draws it, and the
viewer source a widget asks. Highlights are marked and a baseline's facts set on the nodes by the
browser, on the collection as exported."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

from .._assets import AssetBundle, one_match, read_asset
from .._errors import ViewerAssetsError
from .._gzip_json import content_key, gzip_json
from .._protocol import ModelExplorerColours, ModelExplorerGraph, NodeAttributesRef, Reply, Role
from .._trace import drawn_id, record_for_label, resolve_name
from .._viewer_versions import SUPPORTED, checked_version
from ..diffing.baseline import BASELINE_ATTR_KEYS, BaselineFacts
from ..diffing.facts_cache import MadeOncePerFacts
from ..diffing.labels import EXECUTION_GRAPH_INDEX, execution_labels
from ..graph_model import ModelExplorerPayload, NodeIndex, TraceGraph

if TYPE_CHECKING:
    from .._overlays import Overlay

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


_REQUIREMENT = "".join(SUPPORTED["model-explorer"])  # "ai-edge-model-explorer>=0.1.33,<0.2"


@functools.cache
def model_explorer_assets() -> AssetBundle:
    """The minimal file set of the Model Explorer web app installed with ai-edge-model-explorer."""
    version = checked_version("model-explorer")
    try:
        root = resources.files("model_explorer").joinpath("web_app")
    except ModuleNotFoundError:  # metadata present but the package itself is gone
        raise ViewerAssetsError(
            "ai-edge-model-explorer's module 'model_explorer' cannot be imported. "
            f"Remedy: pip install --force-reinstall '{_REQUIREMENT}'"
        ) from None
    if not root.is_dir():
        raise ViewerAssetsError(
            f"ai-edge-model-explorer {version} has no web_app folder. "
            f"Remedy: pip install --force-reinstall '{_REQUIREMENT}'"
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
            f"Remedy: install a supported version ({_REQUIREMENT})."
        )
    return AssetBundle("model-explorer", version, files, roles)


# ----- baseline ---------------------------------------------------------------------------------


def baseline_attributes(collection: Mapping[str, Any], facts: BaselineFacts) -> dict[str, Any]:
    """The baseline's diff attributes of every node of ``collection`` that has a row, as the frame sets
    them: graph id -> node id -> key -> value (only the facts a row carries, never a made-up zero)."""
    attributes: dict[str, dict[str, dict[str, str]]] = {}
    for graph in collection.get("graphs", ()):
        graph_id = str(graph.get("id"))
        for node in graph.get("nodes", ()):
            node_id = str(node.get("id"))
            attrs = {attr["key"]: attr["value"] for attr in facts.attrs(graph_id, node_id)}
            if attrs:
                attributes.setdefault(graph_id, {})[node_id] = attrs
    return attributes


# The node attribute of an op that some runs of a comparison lack: those runs' names.
NOT_IN_RUNS_KEY = "not_in_runs"


def marks_attributes(collection: Mapping[str, Any], marks: Mapping[str, str]) -> dict[str, Any]:
    """graph id -> node id -> {NOT_IN_RUNS_KEY: runs} for the execution graph's nodes of ``marks``'
    labels (the graph the runs' deltas cover)."""
    graphs = collection.get("graphs") or []
    if not graphs:
        return {}
    graph_id = str(graphs[EXECUTION_GRAPH_INDEX].get("id"))
    nodes = {
        node_id: {NOT_IN_RUNS_KEY: marks[label]}
        for node_id, label in execution_labels(collection).items()
        if label in marks
    }
    return {graph_id: nodes} if nodes else {}


# ----- viewer source ------------------------------------------------------------------------------


class ModelExplorerSource:
    """A trace as a Model Explorer graph collection."""

    def __init__(self, log: Any, graph: TraceGraph) -> None:
        self._log = log
        model_explorer_assets()  # missing or unsupported assets fail here, before anything is drawn
        # Exported on first use: explore() returns at once, so the view's frame (on screen) boots while
        # torchlens exports; the app starts with the graph's ids when the graph lands.
        self._graph = graph
        self.baseline: BaselineFacts | None = None
        self._baseline_wires: MadeOncePerFacts[bytes] = MadeOncePerFacts()
        self.node_marks: Mapping[str, str] = {}
        self._marks_wire: tuple[Mapping[str, str], bytes] | None = None

    @property
    def payload(self) -> ModelExplorerPayload:
        return self._graph.payload

    @property
    def index(self) -> NodeIndex:
        return self.payload.index

    @property
    def exported(self) -> bool:
        """Whether torchlens' export has run (what the graph's size is known from)."""
        return self._graph.exported

    def assets(self) -> AssetBundle:
        return model_explorer_assets()

    def graph(self, overlay: Overlay | None, colour_rev: int) -> Reply[ModelExplorerGraph]:
        """The collection (the same bytes whatever is highlighted or compared: the browser marks
        highlights and sets a baseline's facts on the graph drawn, so neither lays it out again), then
        its colours."""
        colours, colour_buffers = self.colours(overlay, colour_rev, shown_facts="")
        header = ModelExplorerGraph(label=self.payload.label, encoding="gzip", **colours)
        return header, [self.payload.wire, *colour_buffers]

    def colours(
        self, overlay: Overlay | None, colour_rev: int, shown_facts: str
    ) -> Reply[ModelExplorerColours]:
        """The overlay as Model Explorer node data (its heatmap, legend and values), and the node
        attributes (a baseline's facts, or the runs each op of a comparison is missing from) unless
        the view shows them already (``shown_facts``)."""
        attributes = self._attributes()
        facts = content_key(attributes[1]) if attributes else ""
        header = ModelExplorerColours(colourRev=colour_rev, facts=facts)
        buffers: list[bytes] = []
        if overlay is not None:
            header["nodeData"] = {"name": overlay.provider, "key": overlay.wire_key}
            buffers.append(overlay.wire)
        if attributes and facts != shown_facts:
            header["nodeAttributes"] = attributes[0]
            buffers.append(attributes[1])
        return header, buffers

    def _attributes(self) -> tuple[NodeAttributesRef, bytes] | None:
        """The node attributes set on the graph now, with their wire bytes (None for none)."""
        if self.baseline is not None:
            return {"keys": list(BASELINE_ATTR_KEYS)}, self._baseline_attributes_wire(self.baseline)
        if self.node_marks:  # a comparison (which has no baseline): the runs each op is missing from
            return {"keys": [NOT_IN_RUNS_KEY]}, self._marks_attributes_wire(self.node_marks)
        return None

    def _marks_attributes_wire(self, marks: Mapping[str, str]) -> bytes:
        if self._marks_wire is None or self._marks_wire[0] is not marks:
            self._marks_wire = (marks, gzip_json(marks_attributes(self.payload.collection, marks)))
        return self._marks_wire[1]

    def _baseline_attributes_wire(self, facts: BaselineFacts) -> bytes:
        return self._baseline_wires.get(
            facts, lambda: gzip_json(baseline_attributes(self.payload.collection, facts))
        )

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
