"""The kernel <-> browser protocol, written down once: every request, reply and shared constant.

A view asks (``assets``, ``graph``, ``colours``, ``inspect``, ``debug``, ``memory_timeline``,
``overlays_ahead``) over the widget's custom messages and the kernel answers with a JSON ``result`` plus
binary buffers
(``_channel.py`` has the envelope; why it is not anywidget's experimental ``command``: docs/ARCHITECTURE.md).
``js/kernel/protocol.ts`` is the browser's copy of these shapes; ``tests/test_protocol_fixtures.py`` writes a
sample of each reply to ``tests/fixtures/protocol/`` and the vitest suite type-checks the browser's side
against them, so the two cannot drift apart silently.

Names in camelCase (``nodeData``, ``paneNodeData``) are the ones Model Explorer's own API uses.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from typing_extensions import NotRequired, TypedDict

# ----- shared constants ---------------------------------------------------------------------------

# Codes of the heatmap's non-finite mask buffer (one uint8 per cell).
MASK_FINITE, MASK_NAN, MASK_POSINF, MASK_NEGINF = 0, 1, 2, 3
MASK_CODES = {"finite": MASK_FINITE, "nan": MASK_NAN, "posinf": MASK_POSINF, "neginf": MASK_NEGINF}

# The tag of a saved page's recording (save_html); js/kernel/offline.ts refuses any other.
RECORDING_FORMAT = "torchlens-widgets/recording@1"

# The picture of its graph a view keeps in the widget's state (``_picture``, shown by a notebook reopened
# before its kernel runs the cell): a WebP (where the browser encodes it) or PNG data URL of at most this
# many characters (~29 KB of image), one per widget.
PICTURE_PREFIXES = ("data:image/webp;base64,", "data:image/png;base64,")
PICTURE_MAX_CHARS = 40_000

ViewerName = Literal["model-explorer", "netron"]
# How an answer marks a node apart from a plain highlight (HIGHLIGHT_ROLE_STYLES).
HighlightRole = Literal["producer", "propagated", "ranked"]
NonFiniteRole = Literal["producer", "propagated"]
Method = Literal["assets", "graph", "colours", "inspect", "debug", "memory_timeline", "overlays_ahead"]
BufferEncoding = Literal["binary", "base64"]
# Why a reply's buffers came as base64 text: the view asked (VS Code), the kernel was launched through a
# gateway whose relay passes no binary frames, or the user's setting (``_transport.py``).
Base64Reason = Literal["asked", "gateway", "setting"]

ResultT = TypeVar("ResultT")
# What a handler returns: the JSON result and the binary buffers it points to by index.
Reply = tuple[ResultT, list[bytes]]

# ----- the envelopes ------------------------------------------------------------------------------


class Request(TypedDict):
    """What a view sends: ``channel`` is the view's random id, ``id`` counts its requests from 1."""

    type: Literal["request"]
    channel: NotRequired[str]
    id: int
    method: Method
    params: dict[str, Any]
    buffers: NotRequired[BufferEncoding]


class OkResponse(TypedDict):
    """A result; with ``"buffers": "base64"`` asked (or the kernel's transport forcing text), the
    buffers come as text in ``base64_buffers`` and ``base64_reason`` says why."""

    type: Literal["response"]
    channel: NotRequired[str]
    id: int | None
    ok: Literal[True]
    result: Any
    base64_buffers: NotRequired[list[str]]
    base64_reason: NotRequired[Base64Reason]


class AheadReply(TypedDict):
    """A reply sent to every view before any asks (the kernel knows each will: the trait it sets next
    tells them to): ``result`` and buffers as an ``OkResponse`` carries them, for ``method``."""

    type: Literal["ahead"]
    method: Method
    result: Any
    base64_buffers: NotRequired[list[str]]
    base64_reason: NotRequired[Base64Reason]


class ErrorResponse(TypedDict):
    """A refusal or failure, shown in the view's error box: ``"<ErrorClass>: <message with remedy>"``."""

    type: Literal["response"]
    channel: NotRequired[str]
    id: int | None
    ok: Literal[False]
    error: str


Response = OkResponse | ErrorResponse

# ----- assets -------------------------------------------------------------------------------------


class AssetsParams(TypedDict):
    key: str  # the bundle the view needs (the widget's ``_asset_key`` when it asked)


# What a file is for, so the browser never re-parses names: the app's HTML page, the scripts the page
# loads (in order), its stylesheet, its worker, ES modules (in load order), fonts, other data files.
Role = Literal["page", "entry", "style", "worker", "module", "font", "data"]


class AssetFile(TypedDict):
    name: str  # the app's own relative name, e.g. "main-PMF54IZX.js", "static_files/FontBold.png"
    role: Role


class AssetsResult(TypedDict):
    """``buffers[i]`` is the gzip bytes of ``files[i]``."""

    key: str
    viewer: ViewerName
    version: str  # the installed viewer package's version
    encoding: Literal["gzip"]
    files: list[AssetFile]


# ----- graph --------------------------------------------------------------------------------------


class GraphParams(TypedDict):
    pass  # the graph of the widget's current view: the browser names nothing


class NodeDataRef(TypedDict):
    name: str  # the node-data provider shown in Model Explorer's legend
    key: str  # a key of the bytes: equal keys, equal node data (the browser keeps what it made of them)


class NodeAttributesRef(TypedDict):
    keys: list[str]  # the attributes the buffer sets (and a later one may replace in place)


class NetronOverlay(TypedDict):
    """An overlay keyed by Netron node name (Netron has no node data: the frame colours the boxes)."""

    title: str
    unit: str
    values: dict[str, float]
    min: float
    max: float
    coverage: str


# ----- colours: what a recolour in place sends (an overlay, a baseline's facts, a run shown) ----------
# The widget's ``_colour_rev`` moves on every such change and ``_graph_rev`` only when the graph itself
# does: a view that has drawn the graph asks ``colours`` and repaints in place, the graph not sent again.
# A graph reply carries its colours too (the same fields, their buffers after the graph's).


class ColoursParams(TypedDict):
    facts: str  # the ``facts`` key of the node facts the view shows: not sent again when unchanged


class ModelExplorerColours(TypedDict):
    """Model Explorer: buffers are the overlay's node data if any, then the node attributes (gzip JSON:
    graph id -> node id -> key -> value; a baseline's facts, or the runs an op is missing from) when
    they differ from the view's ``facts``."""

    colourRev: int  # the ``_colour_rev`` these colours are
    facts: str  # a key of the node attributes now ("" none): equal keys, equal attributes
    nodeData: NotRequired[NodeDataRef]
    nodeAttributes: NotRequired[NodeAttributesRef]  # sent: the view replaces its own with these


class NetronColours(TypedDict):
    """Netron: the buffer is torchlens' metrics companion (with a baseline's or the runs' rows) when it
    differs from the view's ``facts``."""

    colourRev: int
    facts: str  # a key of the companion now
    overlay: NotRequired[NetronOverlay]
    attachment: NotRequired[str]  # the companion's file name, when it is sent


ColoursResult = ModelExplorerColours | NetronColours


class ModelExplorerGraph(ModelExplorerColours):
    """Explorer in Model Explorer: buffers are the gzip graph collection, then its colours' (node data,
    node attributes; kept out of the collection so that no colour sends the graph again)."""

    label: str
    encoding: Literal["gzip"]


class PaneLabel(TypedDict):
    label: str


class PaneNodeData(TypedDict):
    name: str
    pane: int  # 0 left (log_a), 1 right (log_b)


class ModelExplorerDiffGraph(TypedDict):
    """Diff: buffers are the two collections, then one node-data file per ``paneNodeData`` entry."""

    label: str
    encoding: Literal["gzip"]
    panes: list[PaneLabel]
    paneNodeData: list[PaneNodeData]


class NetronGraph(NetronColours):
    """Explorer in Netron: buffers are the gzip model (ONNX JSON) and its metrics companion."""

    identifier: str  # the file name Netron sees, "<label>.onnx.json"
    encoding: Literal["gzip"]
    # A comparison: the Netron node names of the ops some runs lack (drawn with NOT_IN_EVERY_RUN_BORDER).
    marked: NotRequired[list[str]]


GraphResult = ModelExplorerGraph | ModelExplorerDiffGraph | NetronGraph

# ----- inspect ------------------------------------------------------------------------------------


class InspectParams(TypedDict, total=False):
    side: int  # Diff only: 0 log_a, 1 log_b, 2 the difference b - a


class FactRow(TypedDict):
    key: str
    name: str
    value: Any  # the machine value (number, list, {file, line, function}, ...)
    text: str | None  # what is shown (torchlens' own formatting); None: a dash
    detail: NotRequired[str | None]  # the full text when ``text`` is shortened, as a tooltip


class TensorStats(TypedDict):
    count: int
    finite_count: int
    zero_count: int
    nan_count: int
    posinf_count: int
    neginf_count: int
    zero_fraction: float
    nonfinite_fraction: float
    min: float | int | None
    max: float | int | None
    mean: float | int | None
    std: float | int | None
    std_correction: int
    numel: int
    sample_size: int
    sampled: bool
    stride: int


class HistogramMeta(TypedDict):
    bins: int
    lo: float
    hi: float
    buffer: int  # index of the buffer of ``bins`` uint32 little-endian counts
    dtype: Literal["uint32le"]
    total: int


class HeatmapMeta(TypedDict):
    rows: int
    cols: int
    slice: str  # e.g. "[0, :, :]"
    slice_shape: list[int]
    stride: list[int]
    sampled: bool
    pooled: bool
    lo: float | int | None
    hi: float | int | None
    encoding: Literal["uint8"]
    buffer: int  # index of the rows x cols uint8 cells
    mask_buffer: int | None  # index of the rows x cols MASK_* codes; None when every cell is finite


ValueStatus = Literal["summary", "not_saved", "withheld", "not_tensor", "unsupported", "empty"]


class ValueSection(TypedDict, total=False):
    status: ValueStatus  # always present
    message: str
    source: str | None  # the Python expression of the summarised value, e.g. log["linear_1_1:1"].out
    note: str
    shape: list[int]
    dtype: str | None
    numel: int
    of: Literal["abs"]
    stats: TensorStats
    histogram: HistogramMeta | None
    heatmap: HeatmapMeta | None


class InputRangeRow(TypedDict):
    """One input of an op against its dtype's limits (numerics/ranges.py); None where nothing is known."""

    label: str
    dtype: str
    minimum: float | None
    maximum: float | None
    abs_max: float | None
    dtype_max: float | None
    fraction_of_max: float | None  # abs_max / dtype_max
    nan_count: int
    inf_count: int
    finding: str  # torchlens' dtype_range_audit finding on that input, "" if none


class NonFiniteFacts(TypedDict):
    """Where a non-finite op stands in torchlens' frontier, and the ranges of what it was fed."""

    role: NonFiniteRole  # "producer": born here; "propagated": it carries what an earlier op produced
    source: str  # "file.py:12" of the op's call, "" when torchlens has none
    inputs: list[InputRangeRow]


class BaselineSection(TypedDict):
    """An explorer's selected node against its baseline (``w.baseline``): torchlens' ``diff_report`` row
    for it and the value summary of this trace's value minus the baseline's, as a diff's third panel
    shows ``b - a``."""

    reference: str  # the baseline's name, e.g. "gpt2_3"
    facts: list[FactRow]  # torchlens' row (status, max |Δ|, reference op, verdict, detail); [] when none
    value: ValueSection | None  # the summary of ``log[...].out - ref[...].out``; None when not compared
    message: NotRequired[str]  # why there is no difference: "not in gpt2_3", shapes differ, a module box


class MemoryBytes(TypedDict):
    """A byte count with torchlens' own text for it ("3.1 MB"), and what it counts."""

    name: str  # a category of torchlens' timeline ("activation", "parameter", ...)
    bytes: int
    text: str


class AliveTensorRow(MemoryBytes):
    """A tensor alive while the selected op ran: ``name`` is its category, ``label`` the op that produced
    it and ``node_id`` that op in the viewer on screen ("" where it draws none: not a link)."""

    label: str
    node_id: str


class MemorySection(TypedDict):
    """The selected op in torchlens' memory picture, while the memory overlay is on: the bytes alive
    when it ran (its estimate: logical bytes, not allocator residency), the largest of those tensors,
    and torchlens' module rollup of the module it ran in."""

    live_bytes: int
    live_text: str
    above_baseline_text: str  # the live bytes less the persistent baseline (what the overlay colours)
    baseline_text: str
    caption: str
    alive: list[AliveTensorRow]  # the largest first, at most MEMORY_ALIVE_ROWS
    alive_count: int  # how many tensors torchlens counts alive then
    module: str  # the module's address, "" at the top level
    module_rollup: list[MemoryBytes]  # its bytes by category (non-zero only); [] at the top level


# The most tensors alive at an op the inspector lists.
MEMORY_ALIVE_ROWS = 8


RecordKind = Literal["op", "layer", "module", "module_call", "difference", "other"]


class RunValue(TypedDict):
    """One run's value of the current overlay at the selected node (a comparison's small multiples)."""

    name: str
    value: float | None  # None: no value there (not measured, the reference's own delta, not in the run)
    text: str  # the number as shown, or why there is none ("not in this run", "reference")
    lacks: bool  # the run has no op of the node's label: drawn without a value, never a zero


class RunsSection(TypedDict):
    """A comparison's selected node in every run (``tlw.compare``): the current overlay's value per run,
    in the runs' order, the run shown and the reference named (the view marks them)."""

    overlay: str  # "" when no overlay is on: the runs are listed, with no values
    shown: str
    reference: str
    runs: list[RunValue]


class InspectNone(TypedDict):
    """Nothing selected (or nothing on that side)."""

    kind: Literal["none"]
    label: str


class InspectRecord(TypedDict):
    """A node's inspector panel: an op, a rolled layer, a module, a module call, a difference."""

    kind: RecordKind
    label: str
    title: str
    privacy_profile: str  # "local" | "public" ("" on a saved page's marker)
    expression: str  # the exact Python that gives the record back, e.g. log["linear_1_1:1"]
    facts: list[FactRow]
    value: ValueSection | None
    # The failing op of a partial capture (a forward pass that raised): "<ExceptionType>: <message>".
    exception: NotRequired[str]
    # An op that holds non-finite values (explain_nonfinite): where it stands and what it was fed.
    nonfinite: NotRequired[NonFiniteFacts]
    # An explorer with a baseline: the node against it (the buffers it points to follow the record's).
    baseline: NotRequired[BaselineSection]
    # An op while the memory overlay is on: what torchlens estimates alive when it ran.
    memory: NotRequired[MemorySection]
    # A comparison (tlw.compare): the node's value in every run, the inspector's small multiples.
    runs: NotRequired[RunsSection]


InspectResult = InspectNone | InspectRecord

# ----- debug --------------------------------------------------------------------------------------

# The questions a toolbar or inspector button asks; ``_debug_questions`` lists the toolbar's.
DebugQuestion = Literal["first_divergence", "first_nonfinite", "explain_nonfinite", "lineage"]
LineageDirection = Literal["upstream", "downstream"]

# The colour of highlighted nodes in both viewers: a magenta border, distinct from the blue selection
# and from overlay fills. Model Explorer gets it as a node ``style`` in the graph reply; Netron's frame
# draws it (js/netron/frame/highlighter.ts).
HIGHLIGHT_COLOUR = "#D81B60"
# An answer that tells its nodes apart (explain_nonfinite: where a NaN was born, where it only spread)
# marks each in a role: the producer filled pink and boxed in the highlight's magenta, the ops that carry
# it filled lavender and boxed in purple (apart from Model Explorer's orange outputs and Netron's red
# selection; Model Explorer draws a selection's inputs and outputs over a node's own border).
# drift_ranking's ops (those that create the most error) are filled yellow in the highlight's border.
HIGHLIGHT_ROLE_COLOURS: dict[str, str] = {
    "producer": HIGHLIGHT_COLOUR,
    "propagated": "#7B1FA2",
    "ranked": HIGHLIGHT_COLOUR,
}
# Model Explorer fills a node in a role (Netron, which draws no fill, thickens its border instead).
HIGHLIGHT_ROLE_FILLS: dict[str, str] = {"producer": "#F8BBD0", "propagated": "#E1BEE7", "ranked": "#FFF59D"}
# A comparison's ops that some runs lack: a thick dark border in both viewers (Model Explorer: the node's
# own style, set by the kernel; Netron: js/netron/frame/highlighter.ts), apart from the highlight's
# magenta and either viewer's selection; an overlay still fills them.
NOT_IN_EVERY_RUN_BORDER = "#37474F"

# The inspector's default width beside the graph, and the narrowest it can be dragged to
# (js/inspector/inspector-layout.ts).
INSPECTOR_WIDTH = 320
MIN_INSPECTOR_WIDTH = 160


class DebugParams(TypedDict):
    """``lineage`` is of the current selection; ``direction`` defaults to ``"upstream"``."""

    question: DebugQuestion
    direction: NotRequired[LineageDirection]


class DebugResult(TypedDict):
    """What the kernel did, as the Python call would: the status line, and the labels it selected
    (first_divergence, first_nonfinite: the one op, [] when none) or highlighted (lineage)."""

    status: str
    labels: list[str]


# ----- overlays_ahead -----------------------------------------------------------------------------


class OverlaysAheadParams(TypedDict):
    pass  # asked when the reader nears the overlay menu or the memory switch (pointer or focus)


class OverlaysAheadResult(TypedDict):
    """The overlays the kernel has built, or builds now on its background worker, so that a pick from
    the menu waits for the recolour only ([] for a widget with no overlays of its own to build)."""

    overlays: list[str]


# ----- memory_timeline ----------------------------------------------------------------------------

# What ``w.timeline`` may show under the graph (None hides the strip).
TIMELINES = ("memory",)


class MemoryTimelineParams(TypedDict):
    pass  # the strip of the widget's trace, its node ids those of the viewer on screen


class MemoryTimelineResult(TypedDict):
    """The memory strip (``w.timeline = "memory"``): torchlens' estimated live bytes over execution
    order, one entry per point of its series in every list. A view asks once, and again only when the
    viewer or granularity changes (``node_ids`` are the viewer's). Plain ints and strings: valid JSON."""

    ordinals: list[int]  # torchlens' execution ordinals of its series' points
    live: list[int]  # torchlens' live bytes at each, the persistent baseline included (its series as is)
    # torchlens' live categories the bytes above the baseline split into, and per category the bytes at
    # each point (same rows and death rules as the inspector's tensors alive); they add up to ``live``
    # less the baseline at every point, else ``categories`` is ["live"] and the one band is that.
    categories: list[str]
    bands: list[list[int]]
    labels: list[str]  # the op that ran at each point, as the viewers label it ("" for none)
    node_ids: list[str]  # that op in the viewer on screen ("" where it draws none: a click selects nothing)
    baseline_bytes: int  # torchlens' persistent baseline (parameters, buffers): below the strip, not drawn
    baseline_text: str  # torchlens' own text for it ("474.7 MB")
    peak_bytes: int
    peak_text: str
    peak_ordinal: int
    caption: str  # what kind of figure these are ("estimated logical bytes, not allocator residency")
