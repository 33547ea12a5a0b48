"""Overlays: a measured fact per node, from torchlens' own node-data builder (never recomputed here).

Missing, non-finite and rolled-varying values are omitted by torchlens and counted; the widget
discloses the coverage ("time on 561 of 579 nodes; 18 not measured") and never draws a gap as zero.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from ._ahead import Ahead
from ._errors import OverlayNameError, OverlayUnavailableError
from ._gzip_json import content_key, gzip_json

# tl.export.model_explorer(..., overlays=...) only writes files: this is the builder it calls.
from ._torchlens import build_node_data
from .graph_model import EXECUTION_GRAPH, TraceGraph, node_attr
from .memory.summary import CAPTION, size
from .memory.timeline import memory_timeline

# torchlens' overlay vocabulary that makes sense per node, in the order the toolbar lists it.
OVERLAYS = ("time", "flops", "bytes", "nan", "magnitude", "grad_norm")
# torchlens' overlay of intervention fire counts per op: offered only when the capture has interventions
# (on any other capture torchlens' builder resolves it to 0 on every node).
INTERVENTION_OVERLAY = "intervention"
# torchlens' memory picture as an overlay: each op's estimated live bytes while it ran, above the
# persistent baseline (torchlens' liveness estimate over its memory timeline; not its builder's vocabulary,
# so this package names it, and reads it through the same builder with a per-op lookup).
MEMORY_OVERLAY = "memory"
MEMORY_PROVIDER = "memory (live B above baseline per op)"
# Facts that add up over the ops of a module call (a module box can show their sum).
ADDITIVE_OVERLAYS = frozenset({"time", "flops", "bytes"})
# The overlays a drawn graph's widget builds ahead, on the background worker (``_ahead``), in toolbar
# order: torchlens reads them from the trace's metadata in tens of ms (about 0.1 s on a 10,000-op trace),
# where the value overlays read saved tensors and the memory overlay torchlens' liveness estimate (up to
# seconds): those are built when first shown.
AHEAD_OVERLAYS = ("time", "flops", "bytes")
# Built ahead too once the reader nears the overlay menu or the memory switch (the pointer resting on
# one, or the focus in it): a pick then finds torchlens' liveness estimate (0.5 s on GPT-2-48, 3-5 s on a
# 10,000-op trace) computed, or under way.
MENU_AHEAD_OVERLAYS = (MEMORY_OVERLAY,)
# Facts a module box shows the largest of (the peak of the ops inside it): live bytes do not add up.
PEAK_OVERLAYS = frozenset({MEMORY_OVERLAY})
# The presets torchlens' builder refuses under privacy_profile="public": they derive from activation or
# gradient values (a contract test pins this to the builder's own refusals).
VALUE_OVERLAYS = ("nan", "magnitude", "grad_norm")
# What a "field:<name>" overlay may read under privacy_profile="public". torchlens' builder checks the
# public profile for its presets only and reads any record field for "field:", values included (out,
# grad, bool_value, ...). So public allows only the measured costs and structure that torchlens' public
# Model Explorer export itself shows on every node (time, flops, act_bytes, params, pass) and their
# kin; each name is a field of torchlens' op records (pinned by the contract tests).
PUBLIC_FIELDS = (
    "func_duration",
    "flops_forward",
    "flops_backward",
    "activation_memory",
    "param_memory",
    "num_params",
    "num_params_trainable",
    "num_params_frozen",
    "pass_index",
    "num_passes",
    "num_inputs",
    "min_distance_from_input",
    "max_distance_from_input",
    "min_distance_to_output",
    "max_distance_to_output",
)


# Names a custom overlay may not take: this package's overlays, torchlens' whole overlay vocabulary
# (what its builder would read the name as) and the baseline's delta.
RESERVED_OVERLAY_NAMES = frozenset(
    {*OVERLAYS, MEMORY_OVERLAY, "delta", INTERVENTION_OVERLAY, "bundle_delta", "grad-norm"}
)

# A custom overlay: fn(record) -> a number or None, per op record.
OverlayFunction = Callable[[Any], Any]


@dataclass(frozen=True)
class Overlay:
    """One overlay's values, as torchlens' Model Explorer node data, plus its coverage."""

    name: str
    provider: str  # torchlens' display name with unit, e.g. "time (ms per op)"
    node_data: dict[str, Any] = field(repr=False)  # graph id -> {name, results, gradient}
    coverage: dict[str, Any] = field(repr=False)  # torchlens' per-reason omission counts
    graph_sizes: dict[str, int] = field(repr=False)
    labels: dict[str, dict[str, str]] = field(repr=False)  # graph id -> node id -> torchlens label
    note: str = ""  # what kind of figure the values are, said after the coverage (the memory overlay's)

    def values(self, graph_id: str = EXECUTION_GRAPH) -> dict[str, float]:
        """Node id -> value for one graph (nodes without a value are absent)."""
        results = self.node_data.get(graph_id, {}).get("results", {})
        return {node_id: float(result["value"]) for node_id, result in results.items()}

    def values_by_label(self, graph_id: str = EXECUTION_GRAPH) -> dict[str, float]:
        labels = self.labels.get(graph_id, {})
        values = self.values(graph_id)
        return {labels[node_id]: value for node_id, value in values.items() if node_id in labels}

    @functools.cached_property
    def measured(self) -> int:
        return len(self.values(EXECUTION_GRAPH))

    @property
    def total(self) -> int:
        return self.graph_sizes.get(EXECUTION_GRAPH, 0)

    @functools.cached_property
    def summary(self) -> str:
        """The coverage line shown next to the control: made once (an overlay's values never change),
        since every switch to this overlay sends it again."""
        missing = self.total - self.measured
        reasons = [
            f"{self.coverage.get(key, 0)} {text}"
            for key, text in (
                ("omitted_missing", "missing"),
                ("omitted_nonfinite", "non-finite"),
                ("omitted_rolled_varying", "varying across passes"),
            )
            if self.coverage.get(key)
        ]
        detail = f" (all graphs: {', '.join(reasons)})" if reasons else ""
        note = f" · {self.note}" if self.note else ""
        return f"{self.name} on {self.measured} of {self.total} nodes; {missing} not measured{detail}{note}"

    @property
    def unit(self) -> str:
        return self.provider.split("(", 1)[1].rstrip(")") if "(" in self.provider else ""

    @functools.cached_property
    def wire(self) -> bytes:
        """The node data as sent (gzip): made once, since every graph reply under this overlay sends it."""
        return gzip_json(self.node_data)

    @functools.cached_property
    def wire_key(self) -> str:
        """A key of ``wire``: the browser keeps what it made of node data it was sent (the text unpacked,
        the app's colouring of every node) under it, so an overlay shown again skips that work."""
        return content_key(self.wire)


def has_interventions(log: Any) -> bool:
    """Whether any op of the capture records an intervention that fired (torchlens' own records)."""
    return any(getattr(op, "interventions", None) for op in log.layer_list)


def overlay_choices(log: Any) -> list[str]:
    """The built-in overlays for this capture, in toolbar order."""
    built_in = [*OVERLAYS, MEMORY_OVERLAY]
    return [*built_in, INTERVENTION_OVERLAY] if has_interventions(log) else built_in


def check_overlay_name(name: object, custom: Collection[str] = ()) -> str:
    value = str(name)
    if value in ("", INTERVENTION_OVERLAY, MEMORY_OVERLAY) or value in OVERLAYS or value in custom:
        return value
    if value.startswith("field:") and len(value) > len("field:"):
        return value
    added = f", an overlay added with add_overlay() ({', '.join(map(repr, custom))})" if custom else ""
    raise OverlayUnavailableError(
        f"Unknown overlay {value!r}. Remedy: use one of {', '.join(map(repr, (*OVERLAYS, MEMORY_OVERLAY)))}, "
        f"'field:<record field>' (a numeric field of the op records){added}, or '' for none."
    )


def check_custom_overlay(name: object, fn: object) -> str:
    """The name of a custom overlay, refused when empty, built in, a "field:" name, or fn is not callable."""
    if not isinstance(name, str) or not name.strip():
        raise OverlayNameError(f"A custom overlay needs a non-empty name, got {name!r}.")
    if name in RESERVED_OVERLAY_NAMES or name.startswith("field:"):
        raise OverlayNameError(
            f"{name!r} is a built-in overlay. Remedy: give the custom overlay another name; taken are "
            f"{', '.join(map(repr, sorted(RESERVED_OVERLAY_NAMES)))} and every 'field:<name>'."
        )
    if not callable(fn):
        raise TypeError(f"add_overlay({name!r}, fn) needs fn(record) -> number or None; got {fn!r}.")
    return name


def as_number_function(fn: OverlayFunction) -> OverlayFunction:
    """``fn`` with a one-element tensor answer read as its number (``lambda r: r.out.std()``).

    torchlens' builder takes numbers or None only; the name is kept, torchlens names the provider by it.
    """

    @functools.wraps(fn)
    def number(record: Any) -> Any:
        value = fn(record)
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            return value.item()
        return value

    return number


def check_public_field(name: str, privacy_profile: str) -> None:
    """Refuse a "field:" overlay of a field the public profile withholds (see PUBLIC_FIELDS)."""
    field_name = name.removeprefix("field:")
    if privacy_profile == "public" and name.startswith("field:") and field_name not in PUBLIC_FIELDS:
        raise OverlayUnavailableError(
            f"The {name!r} overlay is not available under privacy_profile='public', which drops source "
            "locations and value-derived facts: a field overlay may read only measured costs and "
            f"structure ({', '.join(PUBLIC_FIELDS)}). Remedy: use one of those fields, or explore with "
            "privacy_profile='local'."
        )


def build_overlay(
    log: Any,
    collection: dict[str, Any],
    name: str,
    privacy_profile: str = "local",
    fn: OverlayFunction | None = None,
) -> Overlay:
    """The overlay ``name`` over a Model Explorer collection of ``log`` (torchlens' builder).

    With ``fn`` it is a custom overlay: torchlens' builder calls ``fn(record)`` per op record.
    """
    if fn is None:
        check_overlay_name(name)
        check_public_field(name, privacy_profile)
        if name == MEMORY_OVERLAY:
            return memory_overlay(log, collection, privacy_profile)
        if name == INTERVENTION_OVERLAY and not has_interventions(log):
            raise OverlayUnavailableError(
                "The 'intervention' overlay needs a capture with interventions, and none fired in this one. "
                "Remedy: explore the trace an intervention ran on, e.g. `ablated = log.fork('ablated'); "
                "ablated.do(tl.module('...'), tl.zero_ablate())` on a capture with intervention_ready=True."
            )
    elif privacy_profile == "public":
        raise OverlayUnavailableError(
            f"The custom overlay {name!r} is not available under privacy_profile='public': its function "
            "may read activation values, which the public profile withholds. Remedy: explore with "
            "privacy_profile='local', or use a 'field:' overlay of a public field."
        )
    source: str | OverlayFunction = name
    if fn is not None:
        # fn reads op records; the rolled graph's nodes are multi-pass layers, which refuse per-pass
        # reads (record.out), so a custom overlay colours the execution graph only.
        collection = {**collection, "graphs": [g for g in collection["graphs"] if g["id"] == EXECUTION_GRAPH]}
        source = fn
    try:
        node_data, coverage = build_node_data(log, collection, source, privacy_profile=privacy_profile)
    except (ValueError, RuntimeError, TypeError, KeyError) as error:  # torchlens' typed refusals
        raise OverlayUnavailableError(_refusal(name, error, fn is not None)) from error
    # torchlens names a callable's provider after the function ("callable:<lambda>"); the legend and
    # Model Explorer's own panel show the name the user gave it.
    if fn is None:
        return overlay_over(collection, name, str(coverage.get("provider", name)), node_data, coverage)
    named = {graph_id: {**data, "name": name} for graph_id, data in node_data.items()}
    return overlay_over(collection, name, name, named, coverage)


def memory_overlay(log: Any, collection: dict[str, Any], privacy_profile: str = "local") -> Overlay:
    """Each op's live bytes above the baseline, by torchlens' estimate, through torchlens' builder.

    Allowed under the public profile: a cost, read from shapes and dtypes, never from values.
    MemoryTimelineError (an OverlayUnavailableError) where torchlens cannot build the timeline.
    """
    timeline = memory_timeline(log)
    try:
        node_data, coverage = build_node_data(
            log, collection, timeline.above_baseline, privacy_profile=privacy_profile
        )
    except (ValueError, RuntimeError, TypeError, KeyError) as error:  # torchlens' typed refusals
        raise OverlayUnavailableError(_refusal(MEMORY_OVERLAY, error, False)) from error
    # torchlens names a callable's provider "callable:<function>"; the app's panel and legend show ours.
    node_data = {graph: {**data, "name": MEMORY_PROVIDER} for graph, data in node_data.items()}
    note = f"{size(timeline.persistent_bytes)} baseline (parameters, buffers) apart; {CAPTION}"
    return overlay_over(collection, MEMORY_OVERLAY, MEMORY_PROVIDER, node_data, coverage, note=note)


def _refusal(name: str, error: BaseException, custom: bool) -> str:
    cause = error.__cause__ or error.__context__
    if custom and isinstance(cause, Exception):  # torchlens chains what the user's function raised
        return (
            f"The custom overlay {name!r} failed: its function raised {type(cause).__name__}: {cause} "
            f"(torchlens says: {error}). Remedy: make it return a number or None for every op record."
        )
    return f"The {name!r} overlay is not available for this capture. torchlens says: {error}"


def overlay_over(
    collection: dict[str, Any],
    name: str,
    provider: str,
    node_data: dict[str, Any],
    coverage: dict[str, Any],
    note: str = "",
) -> Overlay:
    """An Overlay of ``node_data`` (keyed by this collection's graph and node ids)."""
    labels = {
        str(graph["id"]): {
            str(node["id"]): label
            for node in graph.get("nodes", ())
            if (label := node_attr(node, "torchlens_label"))
        }
        for graph in collection["graphs"]
    }
    sizes = {str(graph["id"]): len(graph.get("nodes", ())) for graph in collection["graphs"]}
    return Overlay(name, provider, node_data, coverage, sizes, labels, note)


class OverlaySource(Protocol):
    """Where a widget's overlays come from: one trace's (``OverlayCache``) or a comparison's runs'."""

    #: Overlays the source makes itself besides torchlens' built-in and the custom ones (a comparison's).
    own_names: tuple[str, ...]

    @property
    def custom_names(self) -> tuple[str, ...]: ...

    def add(self, name: str, fn: OverlayFunction) -> None: ...

    def get(self, name: str) -> Overlay | None: ...


class OverlayCache:
    """Overlays of one trace, computed once per name against one collection of its graph."""

    own_names: tuple[str, ...] = ()

    def __init__(self, log: Any, collection: Any, privacy_profile: str = "local") -> None:
        self._log = log
        self._collection = collection  # a zero-argument callable: built only when first needed
        self._privacy_profile = privacy_profile
        self._built: dict[str, Overlay] = {}
        self._custom: dict[str, OverlayFunction] = {}
        self._ahead: Ahead[str, Overlay] = Ahead()

    @property
    def custom_names(self) -> tuple[str, ...]:
        """The custom overlays' names, in the order they were added."""
        return tuple(self._custom)

    def add(self, name: str, fn: OverlayFunction) -> None:
        """Add (or replace) the custom overlay ``name``; it is computed when first shown."""
        self._custom[check_custom_overlay(name, fn)] = as_number_function(fn)
        self._built.pop(name, None)
        self._ahead.drop(lambda started: started != name)

    def get(self, name: str) -> Overlay | None:
        if not name:
            return None
        if name not in self._built:
            self._built[name] = self._ahead.take(name, self._builder(name))
        return self._built[name]

    def ahead(self, name: str) -> None:
        """Starts building overlay ``name`` on the background worker (``_ahead``), unless it is built
        already or a custom overlay (the user's function runs on the kernel's thread only, when shown);
        ``get`` takes it. Its error, if torchlens refuses it, is raised by ``get``."""
        if name and name not in self._built and name not in self._custom:
            self._ahead.start(name, self._builder(name))

    def _builder(self, name: str) -> Callable[[], Overlay]:
        """torchlens' build of overlay ``name`` with what it reads bound here, on the kernel's thread."""
        log, collection, profile, custom = (
            self._log,
            self._collection(),
            self._privacy_profile,
            self._custom.get(name),
        )
        return lambda: build_overlay(log, collection, name, profile, custom)


class ViewerOverlays:
    """A trace's overlays over the graph of the viewer drawing it (``viewer()`` names it): Model
    Explorer's over its export (its node data is keyed by the export's node ids), Netron's over the
    trace's labels (its boxes are coloured by label), so a Netron widget never waits for an export it
    does not draw. Custom overlays are added to both."""

    own_names: tuple[str, ...] = ()

    def __init__(self, log: Any, graph: TraceGraph, privacy_profile: str, viewer: Callable[[], str]) -> None:
        self._caches = {
            "model-explorer": OverlayCache(log, lambda: graph.payload.collection, privacy_profile),
            "netron": OverlayCache(log, lambda: graph.labels, privacy_profile),
        }
        self._viewer = viewer

    @property
    def custom_names(self) -> tuple[str, ...]:
        return self._caches["model-explorer"].custom_names

    def add(self, name: str, fn: OverlayFunction) -> None:
        for cache in self._caches.values():
            cache.add(name, fn)

    def get(self, name: str) -> Overlay | None:
        return self._caches[self._viewer()].get(name)

    def ahead(self, name: str) -> None:
        """``OverlayCache.ahead`` over the graph of the viewer drawing it now."""
        self._caches[self._viewer()].ahead(name)
