"""Netron as a viewer: its web assets, and a trace as torchlens' own Netron artifact (ONNX JSON).

The artifact and its metrics companion come from torchlens' exporter (``tl.export.netron``), built
in memory from the same internals that function uses, so nothing is re-derived here and nothing is
left on disk. Node ids are Netron node names: the torchlens op label (pass-qualified only when the
op ran more than once) for ops, the module address (``:<call>`` only for repeated calls) for
module-call boxes.
"""

from __future__ import annotations

import functools
import json
import operator
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from torchlens.errors import TorchLensError

from .. import _export_cache
from .._assets import AssetBundle
from .._errors import NetronOptionError, NodeNotFoundError, ViewerAssetsError, ViewerNotAvailableError
from .._gzip_json import content_key, gzip_json, gzip_text
from .._overlays import ADDITIVE_OVERLAYS, PEAK_OVERLAYS, Overlay
from .._privacy import without_source_locations
from .._protocol import NetronColours, NetronGraph, NetronOverlay, Reply, Role

# tl.export.netron() only writes files or serves over HTTP, so the in-memory path calls the steps it
# is made of (private torchlens names, all in _torchlens.py with their contract tests).
from .._torchlens import (
    NETRON_DISCLAIMER,
    NetronProjection,
    build_netron_projection,
    emit_model_json,
    netron_metadata_props,
    node_doc,
    validate_netron_options,
    warn_netron_extent,
    write_attachment,
)
from .._trace import drawn_id, require_trace, resolve_name
from .._viewer_versions import SUPPORTED, checked_version
from ..diffing.facts_cache import MadeOncePerFacts
from ..graph_model import ROLLED_GRAPH, TraceGraph
from .netron_index import NetronNodeEntry, NetronNodeIndex, index_entries

if TYPE_CHECKING:
    from ..diffing.baseline import BaselineFacts

# The options of torchlens' Netron exporter a widget exposes (``depth``, ``show_buffers``), checked by it.
ShowBuffers = Literal["never", "meaningful", "always"]
SHOW_BUFFERS: tuple[ShowBuffers, ...] = ("never", "meaningful", "always")
# torchlens' defaults for tl.export.netron(depth=, show_buffers=).
DEFAULT_DEPTH = 1
DEFAULT_SHOW_BUFFERS: ShowBuffers = "meaningful"


def check_netron_options(depth: Any, show_buffers: Any) -> tuple[int, ShowBuffers]:
    """``(depth, show_buffers)`` when torchlens' Netron exporter accepts them, else NetronOptionError.

    ``depth`` is the module level shown in the root graph (module granularity); ``show_buffers`` is
    torchlens' buffer policy.
    """
    try:
        validate_netron_options("module", depth, show_buffers)
    except (TorchLensError, ValueError, TypeError) as error:
        raise NetronOptionError(
            f"Netron cannot show depth={depth!r}, show_buffers={show_buffers!r}. Remedy: depth is an "
            f"int >= 1 (the module level of the root graph; default {DEFAULT_DEPTH}), show_buffers one "
            f"of {', '.join(map(repr, SHOW_BUFFERS))}. torchlens says: {error}"
        ) from error
    return depth, show_buffers


GRANULARITIES = ("module", "op", "rolled")

# How a module-call box gets a value from the ops inside it, per overlay: the sum of additive facts,
# the largest of live bytes (the peak inside the call); the other overlays leave the box without one.
_MODULE_BOX_VALUE: dict[str, Callable[[float, float], float]] = {
    **dict.fromkeys(ADDITIVE_OVERLAYS, operator.add),
    **dict.fromkeys(PEAK_OVERLAYS, max),
}

# The Netron files the app loads to open torchlens' ONNX JSON. flatbuffers.js is required even
# for JSON: onnx.js imports it, and a failed import silently stops ONNX JSON from matching.
# browser.js and index.js are deliberately absent: they phone home (see js/netron/frame/frame-entry.ts).
NETRON_MODULES = (
    "view.js",
    "base.js",
    "grapher.js",
    "zip.js",
    "json.js",
    "text.js",
    "onnx.js",
    "protobuf.js",
    "onnx-proto.js",
    "dagre.js",
    "flatbuffers.js",
)
# index.html is sent for its <style> and <body> (the frame document is built from them, not its scripts).
NETRON_FILES: dict[str, Role] = {
    **dict.fromkeys(NETRON_MODULES, "module"),
    "worker.js": "worker",
    "grapher.css": "style",
    "index.html": "page",
}

# Keeps the name one path segment (Netron splits identifiers at / and \) and clear of the
# "*model.json" suffix that Netron tries as PyTorch before ONNX.
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@functools.cache
def netron_assets() -> AssetBundle:
    """The minimal file set of the Netron web app installed with the ``netron`` package."""
    version = checked_version("netron")
    distribution, specifier = SUPPORTED["netron"]
    remedy = f"Remedy: pip install --force-reinstall '{distribution}{specifier}'"
    try:
        root = resources.files("netron")
    except ModuleNotFoundError:  # metadata present but the package itself is gone
        raise ViewerAssetsError(
            f"{distribution} {version} is installed but its module 'netron' cannot be imported "
            f"(torchlens-widgets supports {distribution}{specifier}). {remedy}"
        ) from None
    files: dict[str, bytes] = {}
    for name in NETRON_FILES:
        item = root.joinpath(name)
        if not item.is_file():
            raise ViewerAssetsError(
                f"{distribution} {version} is installed but lacks its web asset {name!r}, so the Netron "
                f"viewer cannot start (torchlens-widgets supports {distribution}{specifier}). {remedy}"
            )
        files[name] = item.read_bytes()
    return AssetBundle("netron", version, files, dict(NETRON_FILES))


# ----- artifact -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NetronArtifact:
    """torchlens' Netron export of one trace at one granularity, in memory."""

    granularity: str
    label: str  # the traced model's class name, as torchlens names the root graph
    identifier: str  # file name Netron sees: "<label>.onnx.json" (matched as ONNX JSON)
    attachment_identifier: str  # "<label>.onnx.attachment.json", torchlens' companion name
    model_json: str
    attachment_json: str
    index: NetronNodeIndex = field(repr=False)
    root_node_count: int = 0
    warnings: tuple[str, ...] = ()

    @functools.cached_property
    def wire(self) -> tuple[bytes, bytes]:
        """(model, attachment) as gzip bytes: what the frontend receives."""
        return gzip_text(self.model_json), gzip_text(self.attachment_json)


def netron_artifact(
    log: Any,
    granularity: str = "module",
    privacy_profile: str = "local",
    depth: int = DEFAULT_DEPTH,
    show_buffers: ShowBuffers = DEFAULT_SHOW_BUFFERS,
) -> NetronArtifact:
    """Export ``log`` for Netron the way ``tl.export.netron(log, path, attachment=True)`` does.

    torchlens' warnings (e.g. a root graph too tall to stay legible) are captured and returned in
    ``warnings`` so the widget can show them next to the graph instead of in the kernel log.
    ``privacy_profile="public"`` drops the call sites from the node descriptions (see _public_docs).
    ``depth`` and ``show_buffers`` are tl.export.netron's (checked by it: see check_netron_options).
    """
    require_trace(log)
    check_granularity(granularity)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        validate_netron_options(granularity, depth, show_buffers)
        projection = build_netron_projection(log, granularity, depth, show_buffers)
        warn_netron_extent(projection)
    if privacy_profile == "public":
        _public_docs(projection)
    graph_name = str(getattr(log, "model_class_name", "TorchLens graph"))
    metadata_props = netron_metadata_props(log, projection, show_buffers, None)
    if privacy_profile == "public":  # the capture advisories name the user's source line
        metadata_props = without_source_locations(metadata_props)
    model_json = emit_model_json(
        projection,
        graph_name=graph_name,
        disclaimer=NETRON_DISCLAIMER,
        metadata_props=metadata_props,
    )
    stem = _UNSAFE_NAME.sub("_", graph_name).strip("._") or "torchlens"
    identifier = f"{stem}.onnx.json"
    attachment_identifier, attachment_json = _attachment(projection, identifier)
    return NetronArtifact(
        granularity=granularity,
        label=graph_name,
        identifier=identifier,
        attachment_identifier=attachment_identifier,
        model_json=model_json,
        attachment_json=attachment_json,
        index=NetronNodeIndex(index_entries(log, projection)),
        root_node_count=len(projection.nodes),
        warnings=tuple(str(warning.message) for warning in caught),
    )


class _WithoutCallSite:
    """A record as torchlens' docString writer sees it under the public profile: no recorded call site."""

    def __init__(self, record: Any) -> None:
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return None if name == "code_context" else getattr(self._record, name)


def _public_docs(projection: NetronProjection) -> None:
    """Node descriptions without source locations, as torchlens' public profile has for Model Explorer.

    tl.export.netron has no privacy profile: every node's docString is torchlens' ``node_doc``,
    "<function> called at <file>:<line>". Here each is rewritten by that same function from a view of
    its record without the call site, so it names the function only. The curated attributes and the
    metrics companion hold measured costs and structure, no values (pinned by the tests).
    """
    for node in [*projection.nodes, *(node for function in projection.functions for node in function.nodes)]:
        source = projection.node_sources.get(node.name)
        node.doc = node_doc(_WithoutCallSite(source)) if source is not None else ""


def _attachment(projection: NetronProjection, identifier: str) -> tuple[str, str]:
    """torchlens' metrics companion (name, JSON text) for ``projection``.

    write_attachment() only writes a file (it validates every row against Netron's silent drop
    rules on the way), so it writes into a private temporary directory that is removed at once.
    """
    with tempfile.TemporaryDirectory(prefix="tlw-netron-") as folder:
        companion = write_attachment(projection, Path(folder) / identifier)
        return companion.name, companion.read_text(encoding="utf-8")


def check_granularity(granularity: object) -> str:
    if granularity not in GRANULARITIES:
        raise ViewerNotAvailableError(
            f"Unknown Netron granularity {granularity!r}. Remedy: use one of "
            f"{', '.join(map(repr, GRANULARITIES))} ('module': the module hierarchy with drill-down, "
            "'op': every op flat, 'rolled': repeated passes merged)."
        )
    return str(granularity)


# ----- viewer source ------------------------------------------------------------------------------


class NetronSource:
    """A trace as torchlens' Netron artifact plus its metrics companion (ViewerSource protocol)."""

    def __init__(
        self,
        log: Any,
        granularity: str = "module",
        privacy_profile: str = "local",
        depth: int = DEFAULT_DEPTH,
        show_buffers: ShowBuffers = DEFAULT_SHOW_BUFFERS,
        graph: TraceGraph | None = None,
    ) -> None:
        self.granularity = check_granularity(granularity)
        self._log = require_trace(log)
        self._graph = graph  # the graph model: a comparison's adds its other runs' ops to the artifact
        netron_assets()  # missing or unsupported assets fail here, before anything is drawn
        self._options = (privacy_profile, depth, show_buffers)
        self.baseline: BaselineFacts | None = None
        # The companion with the baseline's rows as sent (gzip), and the facts it was made of.
        self._baseline_wires: MadeOncePerFacts[bytes] = MadeOncePerFacts()
        self.node_marks: Mapping[str, str] = {}
        self._marks_wire: tuple[Mapping[str, str], bytes] | None = None
        # id -> (the overlay, its values by node name): the overlay is held, so its id is not reused.
        self._overlay_values: dict[int, tuple[Overlay, NetronOverlay]] = {}

    # Exported on first use (the first view's graph request, or a Python call that needs a node
    # name): explore() returns at once, so Netron's frame boots while torchlens exports.
    @functools.cached_property
    def artifact(self) -> NetronArtifact:
        own = self._export(self._log)
        return self._graph.netron_artifact(own, self._export) if self._graph is not None else own

    def _export(self, log: Any) -> NetronArtifact:
        """torchlens' Netron artifact of ``log`` with this source's options (kept for its other widgets)."""

        def export() -> NetronArtifact:
            return netron_artifact(log, self.granularity, *self._options)

        what = ("netron", self.granularity, *self._options)
        return _export_cache.cached(log, what, export, lambda artifact: sum(map(len, artifact.wire)))

    @property
    def index(self) -> NetronNodeIndex:
        return self.artifact.index

    @property
    def exported(self) -> bool:
        """Whether torchlens' export has run (what the graph's size is known from)."""
        return "artifact" in self.__dict__

    def assets(self) -> AssetBundle:
        return netron_assets()

    def graph(self, overlay: Overlay | None, colour_rev: int) -> Reply[NetronGraph]:
        """torchlens' model, then its colours (the companion always: Netron opens the two together)."""
        artifact = self.artifact
        colours, colour_buffers = self.colours(overlay, colour_rev, shown_facts="")
        header = NetronGraph(identifier=artifact.identifier, encoding="gzip", **colours)
        if self.node_marks:  # a comparison: the frame borders the ops some runs lack
            header["marked"] = [entry.node_id for entry in self._marked_entries()]
        return header, [artifact.wire[0], *colour_buffers]

    def colours(self, overlay: Overlay | None, colour_rev: int, shown_facts: str) -> Reply[NetronColours]:
        """The overlay keyed by Netron node name, and the metrics companion (with a baseline's or the
        runs' rows) unless the view shows it already (``shown_facts``)."""
        attachment = self._companion()
        facts = content_key(attachment)
        header = NetronColours(colourRev=colour_rev, facts=facts)
        if overlay is not None:
            header["overlay"] = self.overlay_values(overlay)
        if facts == shown_facts:
            return header, []
        header["attachment"] = self.artifact.attachment_identifier
        return header, [attachment]

    def _companion(self) -> bytes:
        """The metrics companion now: torchlens' own, or with a baseline's or the runs' rows."""
        if self.baseline is not None:  # diff facts in the sidebar's METADATA, next to torchlens' rows
            return self._baseline_attachment(self.baseline)
        if self.node_marks:  # a comparison (which has no baseline): the runs each op is missing from
            return self._marks_attachment(self.node_marks)
        return self.artifact.wire[1]

    def _baseline_attachment(self, facts: BaselineFacts) -> bytes:
        """torchlens' companion with the baseline's rows added, made once per baseline: every graph
        reply (an overlay switch too) sends it while the baseline is set."""

        def made() -> bytes:
            companion = json.loads(self.artifact.attachment_json)
            companion["metadata"] += baseline_metadata(facts, (entry.node_id for entry in self.index))
            return gzip_json(companion)

        return self._baseline_wires.get(facts, made)

    def _marks_attachment(self, marks: Mapping[str, str]) -> bytes:
        """torchlens' companion with a "not in runs" row on each node of an op some runs lack."""
        if self._marks_wire is None or self._marks_wire[0] is not marks:
            companion = json.loads(self.artifact.attachment_json)
            companion["metadata"] += [
                {"kind": "node", "target": entry.node_id, "name": "not in runs", "value": marks[entry.label]}
                for entry in self._marked_entries()
            ]
            self._marks_wire = (marks, gzip_json(companion))
        return self._marks_wire[1]

    def _marked_entries(self) -> list[NetronNodeEntry]:
        """The index's entries of the ops some of a comparison's runs lack (``node_marks``)."""
        return [entry for entry in self.index if entry.label in self.node_marks]

    def overlay_values(self, overlay: Overlay) -> NetronOverlay:
        """The overlay keyed by Netron node name (Netron has no node data: our host colours boxes),
        made once per overlay: a switch back to one shown before costs the kernel nothing."""
        if id(overlay) not in self._overlay_values:
            self._overlay_values[id(overlay)] = (overlay, self._keyed_by_node_name(overlay))
        return self._overlay_values[id(overlay)][1]

    def _keyed_by_node_name(self, overlay: Overlay) -> NetronOverlay:
        """``overlay_values``, made.

        Module-call boxes get the sum of the ops inside them for additive facts (time, FLOPs,
        bytes), the largest for live memory (the peak inside the call); for the others they carry no
        value and are drawn as "no value", never as zero.
        """
        rolled = self.granularity == "rolled" and ROLLED_GRAPH in overlay.node_data
        graph = ROLLED_GRAPH if rolled else None
        by_label = overlay.values_by_label(graph) if graph else overlay.values_by_label()
        values: dict[str, float] = {}
        for label, value in by_label.items():
            name = self.index.id_of_label(label)
            if name is not None:
                values.setdefault(name, value)
        combine = _MODULE_BOX_VALUE.get(overlay.name) if self.granularity == "module" else None
        if combine is not None:
            parent = {entry.node_id: entry.graph for entry in self.index}
            boxes: dict[str, float] = {}
            for name, value in values.items():
                call = parent.get(name, "")
                while call:
                    boxes[call] = combine(boxes[call], value) if call in boxes else value
                    call = parent.get(call, "")
            values.update(boxes)
        numbers = sorted(values.values())
        return NetronOverlay(
            title=overlay.provider,
            unit=overlay.unit.removesuffix(" per op"),
            values=values,
            min=numbers[0] if numbers else 0.0,
            max=numbers[-1] if numbers else 0.0,
            coverage=overlay.summary,
        )

    def info(self) -> dict[str, Any]:
        return {
            "label": self.artifact.label,
            "graphs": {self.granularity: len(self.index)},
            "warnings": list(self.artifact.warnings),
        }

    def resolve(self, name: str) -> str:
        """The Netron node name for a node name, torchlens label or module address."""
        return resolve_name(self._log, self.index, name)

    def highlight_ids(self, labels: Iterable[str]) -> list[str]:
        """The Netron node names that mark ``labels``: each node, and every module-call box around it
        (drilled out, the innermost box shown stands for the ops inside it)."""
        marked: dict[str, None] = {}
        for label in labels:
            node_id = drawn_id(self._log, self.index, label)
            while node_id:
                marked.setdefault(node_id)
                entry = self.index.entry(node_id)
                node_id = entry.graph if entry is not None else ""
        return list(marked)

    def record(self, label: str) -> Any:
        """The live record behind a label: the module for a module-call box, else ``log[label]``."""
        node_id = self.index.id_of_label(label)
        entry = self.index.entry(node_id) if node_id is not None else None
        if entry is not None and entry.module_address is not None:
            return self._log.modules[entry.module_address]
        try:
            return self._log[label]
        except (KeyError, ValueError, IndexError) as error:
            if label in self._log.modules:
                return self._log.modules[label]
            raise NodeNotFoundError(f"No record for {label!r} in this trace: {error}") from None


def baseline_metadata(facts: BaselineFacts, node_names: Iterable[str]) -> list[dict[str, str]]:
    """Netron attachment ``metadata`` rows (``kind: node``) of the baseline facts of the named nodes."""
    rows: list[dict[str, str]] = []
    for name in node_names:
        fact = facts.netron.get(name)
        if fact is None:
            continue
        for attr in fact.attrs():
            display = attr["key"].removeprefix("diff_").replace("_", " ")
            rows.append({"kind": "node", "target": name, "name": f"diff {display}", "value": attr["value"]})
    return rows
