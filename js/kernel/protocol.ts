// The kernel-browser protocol, written down once on this side (the kernel's side is
// torchlens_widgets/_protocol.py): the response envelope, and the replies to the seven requests a
// view makes (`assets`, `graph`, `colours`, `inspect`, `debug`, `memory_timeline`, `overlays_ahead`),
// each as a discriminated union with a parser that checks what arrives before any view code reads it. tests/js/kernel/protocol-contract.test.ts parses the sample
// replies pytest writes (tests/fixtures/protocol/) with these same parsers.

import { array, fail, isObject, type Json, object, oneOf, string } from "./json-checks";

// ----- constants shared with the kernel -------------------------------------------------------------

/** Tag of a recording written by `w.save_html()` (torchlens_widgets/_offline.py writes it). */
export const RECORDING_FORMAT = "torchlens-widgets/recording@1";

/**
 * How a view's picture of its graph may start (WebP where the browser encodes it, else PNG), and its
 * longest length: what a saved notebook keeps per widget (`_picture`).
 */
export const PICTURE_PREFIXES = ["data:image/webp;base64,", "data:image/png;base64,"] as const;
export const PICTURE_MAX_CHARS = 40_000;

/** The inspector's default width beside the graph, and the narrowest it can be dragged to (js/inspector/inspector-layout.ts). */
export const INSPECTOR_WIDTH = 320;
export const MIN_INSPECTOR_WIDTH = 160;

/** What each cell of a heatmap's mask buffer means (the kernel's MASK_* codes). */
export const MASK_CODES = { finite: 0, nan: 1, posinf: 2, neginf: 3 } as const;

export { ProtocolError } from "./json-checks";

// ----- the envelope -------------------------------------------------------------------------------------

/** A request from a view: `channel` names the view, `id` the request within it. */
export interface RequestMessage {
  type: "request";
  channel: string;
  id: number;
  method: RequestMethod;
  params: Json;
  /** "base64": the reply should carry its buffers as text (hosts that would send JSON numbers). */
  buffers?: "base64";
}

const REQUEST_METHODS = ["assets", "graph", "colours", "inspect", "debug", "memory_timeline", "overlays_ahead"] as const;
export type RequestMethod = (typeof REQUEST_METHODS)[number];

/**
 * Why a reply's buffers came as base64 text: the view asked (VS Code), the kernel was launched through
 * a gateway whose relay passes no binary frames, or the user's setting (torchlens_widgets/_transport.py).
 */
export type Base64Reason = "asked" | "gateway" | "setting";
const BASE64_REASONS: readonly Base64Reason[] = ["asked", "gateway", "setting"];

/** The kernel's answer to one request, echoing its channel and id. */
export type ResponseEnvelope =
  | {
      type: "response";
      channel: string;
      id: number;
      ok: true;
      result: unknown;
      base64_buffers?: string[];
      base64_reason?: Base64Reason;
    }
  | { type: "response"; channel: string; id: number; ok: false; error: string };

/**
 * A reply the kernel sends every view before any asks (it knows each will: the trait it sets next
 * tells them to), with its buffers as a response carries them.
 */
export interface AheadEnvelope {
  type: "ahead";
  method: RequestMethod;
  result: unknown;
  base64_buffers?: string[];
}

/** The envelope of a reply sent ahead, or null when the custom message is none. */
export function parseAhead(content: unknown): AheadEnvelope | null {
  if (!isObject(content) || content.type !== "ahead") return null;
  const method = REQUEST_METHODS.find((known) => known === content.method);
  const base64 = content.base64_buffers;
  if (!method || (base64 !== undefined && !(Array.isArray(base64) && base64.every((item) => typeof item === "string")))) return null;
  return { type: "ahead", method, result: content.result, ...(base64 ? { base64_buffers: base64 as string[] } : {}) };
}

/**
 * The envelope of a custom message, or null when it is not a response this view could match to a
 * request (another widget's message, no id).
 */
export function parseResponse(content: unknown): ResponseEnvelope | null {
  if (!isObject(content) || content.type !== "response" || typeof content.id !== "number") return null;
  const channel = typeof content.channel === "string" ? content.channel : "";
  const id = content.id;
  if (content.ok === true) {
    const base64 = content.base64_buffers;
    if (base64 !== undefined && !(Array.isArray(base64) && base64.every((item) => typeof item === "string"))) return null;
    const reason = BASE64_REASONS.find((known) => known === content.base64_reason);
    return {
      type: "response",
      channel,
      id,
      ok: true,
      result: content.result,
      ...(base64 ? { base64_buffers: base64 as string[] } : {}),
      ...(reason ? { base64_reason: reason } : {}),
    };
  }
  return { type: "response", channel, id, ok: false, error: typeof content.error === "string" ? content.error : "request failed" };
}

// ----- assets -------------------------------------------------------------------------------------------

export const VIEWERS = ["model-explorer", "netron"] as const;
export type Viewer = (typeof VIEWERS)[number];
/** What the widget calls each viewer (its title bar, the error box's switch). */
export const VIEWER_TITLES: Record<Viewer, string> = { "model-explorer": "Model Explorer", netron: "Netron" };

/** The `viewer` trait, checked. */
export function parseViewer(value: unknown): Viewer {
  if (!(VIEWERS as readonly unknown[]).includes(value)) fail("viewer trait", `${JSON.stringify(value)} is no viewer`);
  return value as Viewer;
}

/**
 * What a file of a viewer's bundle is for. Model Explorer: its index.html is the "page", the
 * scripts it loads are "entry" (in order), its stylesheet "style", its layout worker "worker", fonts
 * "font", glyph atlases "data". Netron: index.html is the "page" (its styles and body), its ES modules
 * are "module" (in load order), worker.js the "worker", grapher.css the "style".
 */
export const ASSET_ROLES = ["page", "entry", "style", "worker", "module", "font", "data"] as const;
export type AssetRole = (typeof ASSET_ROLES)[number];

export interface AssetFile {
  name: string;
  role: AssetRole;
}

/** The `assets` reply; buffers[i] holds the gzip bytes of files[i]. */
export interface AssetsReply {
  key: string;
  viewer: Viewer;
  version: string;
  encoding: "gzip";
  files: AssetFile[];
}

export function parseAssetsReply(result: unknown, bufferCount: number): AssetsReply {
  const what = "viewer assets reply";
  const value = object(what, result);
  const files = array(what, value, "files").map((item) => {
    const file = object(what, item);
    return { name: string(what, file, "name"), role: oneOf(what, file, "role", ASSET_ROLES) };
  });
  if (files.length !== bufferCount) fail(what, `${bufferCount} files for ${files.length} names`);
  return {
    key: string(what, value, "key"),
    viewer: oneOf(what, value, "viewer", VIEWERS),
    version: string(what, value, "version"),
    encoding: oneOf(what, value, "encoding", ["gzip"] as const),
    files,
  };
}

// ----- an overlay on Netron's boxes (both a graph reply and a colours reply carry it) --------------------

/** A value per Netron node name, coloured on the graph (kernel -> page -> frame; null clears). */
export interface NetronOverlay {
  /** What is shown, e.g. "time (ms per op)". */
  title: string;
  /** Unit appended to the legend's min and max, e.g. "ms". */
  unit?: string;
  /** Netron node name (torchlens label, module address, layer label) -> value. */
  values: Record<string, number>;
  /** Value drawn with the first colour of the scale (lower values are clamped to it). */
  min: number;
  /** Value drawn with the last colour of the scale (higher values are clamped to it). */
  max: number;
  /** What the values cover, e.g. "time on 561 of 567 nodes; 6 not measured". */
  coverage: string;
}

// ----- colours: a recolour in place (an overlay, a baseline's facts, a run shown) ---------------------------
// The widget's `_colour_rev` moves on every such change, `_graph_rev` only when the graph does: a view
// that drew the graph asks `colours` (naming the node facts it shows) and repaints in place. A graph
// reply carries its colours too, their buffers after the graph's.

/**
 * What colours a Model Explorer graph: buffers = the overlay's node data if any, then the node
 * attributes (graph id -> node id -> key -> value: a baseline's facts, or the runs an op is missing
 * from) when they are not the view's.
 */
export interface ModelExplorerColours {
  kind: "model-explorer";
  /** The `_colour_rev` these colours are. */
  colourRev: number;
  /** A key of the node attributes now ("" none): equal keys, equal attributes. */
  facts: string;
  /**
   * The overlay's node data: its legend's name and a key of its bytes (equal keys, equal node data; ""
   * in a file saved before keys were sent), or none.
   */
  nodeData: { name: string; key: string } | null;
  /** Sent: they replace the view's. Not sent: the view's stay if `facts` is theirs, else none. */
  nodeAttributes: { keys: string[] } | null;
}

/** What colours a Netron graph: the buffer is the metrics companion, when it is not the view's. */
export interface NetronColours {
  kind: "netron";
  colourRev: number;
  /** A key of the companion now. */
  facts: string;
  /** The overlay keyed by Netron node name (the frame colours the boxes), or none. */
  overlay: NetronOverlay | null;
  /** The companion's file name when it is sent, else null (the view's stays). */
  attachment: string | null;
}

export type ColoursReply = ModelExplorerColours | NetronColours;

/** A Model Explorer node data's name and key (a key not sent: "", kept by no one). */
function nodeDataRef(what: string, value: Record<string, unknown>): { name: string; key: string } {
  return { name: string(what, value, "name"), key: typeof value.key === "string" ? value.key : "" };
}

/** The colours' fields of a reply (a `colours` reply, or a graph reply's), checked against their buffers. */
function parseColours(viewer: Viewer, what: string, value: Record<string, unknown>, bufferCount: number): ColoursReply {
  const colourRev = typeof value.colourRev === "number" && Number.isInteger(value.colourRev) ? value.colourRev : 0;
  const facts = typeof value.facts === "string" ? value.facts : "";
  if (viewer === "netron") {
    const attachment = value.attachment === undefined || value.attachment === null ? null : string(what, value, "attachment");
    if (bufferCount !== (attachment === null ? 0 : 1)) fail(what, `${bufferCount} colour buffers`);
    // Checked value by value in the frame (js/netron/frame/overlay.ts), which trusts nothing it is sent.
    const overlay = isObject(value.overlay) ? (value.overlay as unknown as NetronOverlay) : null;
    return { kind: "netron", colourRev, facts, overlay, attachment };
  }
  const nodeData = value.nodeData === undefined || value.nodeData === null ? null : nodeDataRef(what, object(what, value.nodeData));
  const attributes = value.nodeAttributes;
  const nodeAttributes =
    attributes === undefined || attributes === null
      ? null
      : { keys: array(what, object(what, attributes), "keys").map((key) => String(key)) };
  if (bufferCount !== (nodeData ? 1 : 0) + (nodeAttributes ? 1 : 0)) fail(what, `${bufferCount} colour buffers`);
  return { kind: "model-explorer", colourRev, facts, nodeData, nodeAttributes };
}

/**
 * Whether a view showing the node facts `shownFacts` can paint `reply` as sent: it carries its facts,
 * they are the view's, or there are none (Model Explorer: no attributes to set). Else the view asks,
 * naming its facts, and the kernel sends them.
 */
export function coloursFitFacts(reply: ColoursReply, shownFacts: string): boolean {
  if (reply.facts === shownFacts) return true;
  return reply.kind === "model-explorer" ? reply.nodeAttributes !== null || reply.facts === "" : reply.attachment !== null;
}

/** The `colours` reply of `viewer`, checked against the number of buffers it came with. */
export function parseColoursReply(viewer: Viewer, result: unknown, bufferCount: number): ColoursReply {
  const what = `${viewer} colours reply`;
  return parseColours(viewer, what, object(what, result), bufferCount);
}

// ----- graph --------------------------------------------------------------------------------------------

/** Model Explorer, one trace: buffers = the collection, then its colours'. */
export interface ModelExplorerGraphReply {
  kind: "model-explorer";
  label: string;
  colours: ModelExplorerColours;
}

/** Model Explorer, a diff: buffers = one collection per pane, then one node-data file per paneNodeData. */
export interface ModelExplorerDiffGraphReply {
  kind: "model-explorer-diff";
  label: string;
  panes: { label: string }[];
  paneNodeData: { name: string; pane: number }[];
}

/** Netron: buffers = torchlens' ONNX JSON artifact, then its colours' (the metrics companion, always). */
export interface NetronGraphReply {
  kind: "netron";
  identifier: string;
  colours: NetronColours & { attachment: string };
  /** A comparison: the Netron node names of the ops some runs lack, bordered in the frame ([]: none). */
  marked: string[];
}

export type GraphReply = ModelExplorerGraphReply | ModelExplorerDiffGraphReply | NetronGraphReply;

/** The `graph` reply of `viewer`, checked against the number of buffers it came with. */
export function parseGraphReply(viewer: Viewer, result: unknown, bufferCount: number): GraphReply {
  const what = `${viewer} graph reply`;
  const value = object(what, result);
  if (viewer === "netron") {
    const colours = parseColours(viewer, what, value, bufferCount - 1);
    if (colours.kind !== "netron" || colours.attachment === null) fail(what, "no metrics companion");
    const marked = value.marked === undefined ? [] : array(what, value, "marked");
    if (!marked.every((name) => typeof name === "string")) fail(what, "'marked' holds something other than text");
    return {
      kind: "netron",
      identifier: typeof value.identifier === "string" ? value.identifier : "model.onnx.json",
      colours: { ...colours, attachment: colours.attachment },
      marked: marked as string[],
    };
  }
  const label = string(what, value, "label");
  if (value.panes === undefined) {
    const colours = parseColours(viewer, what, value, bufferCount - 1);
    if (colours.kind !== "model-explorer") fail(what, "no Model Explorer colours");
    return { kind: "model-explorer", label, colours };
  }
  const panes = array(what, value, "panes").map((pane) => ({ label: string(what, object(what, pane), "label") }));
  const paneNodeData = (value.paneNodeData === undefined ? [] : array(what, value, "paneNodeData")).map((item) => {
    const data = object(what, item);
    const pane = data.pane;
    if (typeof pane !== "number" || !(pane >= 0 && pane < panes.length)) fail(what, `node data for pane ${String(pane)}`);
    return { name: string(what, data, "name"), pane };
  });
  if (bufferCount !== panes.length + paneNodeData.length) fail(what, `${bufferCount} buffers`);
  return { kind: "model-explorer-diff", label, panes, paneNodeData };
}

// ----- highlights: js/kernel/protocol-highlight.ts (how marked nodes look in both viewers) -------------------

export * from "./protocol-highlight";

// ----- inspect: js/kernel/protocol-inspect.ts (the inspector's panels) --------------------------------------

export * from "./protocol-inspect";

// ----- memory_timeline: js/kernel/protocol-timeline.ts (the memory strip under the graph) ---------------------

export * from "./protocol-timeline";

// ----- debug --------------------------------------------------------------------------------------------

/** The questions torchlens answers on the graph; the toolbar shows the ones the kernel lists. */
export const DEBUG_QUESTIONS = ["first_divergence", "first_nonfinite", "explain_nonfinite"] as const;
export type DebugQuestion = (typeof DEBUG_QUESTIONS)[number];

/** What a `debug` request asks: a toolbar question, or the lineage of the current selection. */
export type DebugParams = { question: DebugQuestion } | { question: "lineage"; direction: "upstream" | "downstream" };

/** The kernel's answer: it has already selected, centred and highlighted; `status` says what it found. */
export interface DebugReply {
  status: string;
  /** The torchlens labels the answer names (the diverging op, the lineage), possibly none. */
  labels: string[];
}

export function parseDebugReply(result: unknown): DebugReply {
  const what = "debug reply";
  const value = object(what, result);
  const labels = array(what, value, "labels");
  if (!labels.every((label) => typeof label === "string")) fail(what, "'labels' holds something other than text");
  return { status: string(what, value, "status"), labels: labels as string[] };
}

// ----- overlays_ahead ---------------------------------------------------------------------------------

/**
 * The kernel's answer when the reader nears the overlay menu or the memory switch: the overlays it builds ahead (on its
 * background worker) or has built, so that the pick waits for the recolour only.
 */
export interface OverlaysAheadReply {
  overlays: string[];
}

export function parseOverlaysAheadReply(result: unknown): OverlaysAheadReply {
  const what = "overlays_ahead reply";
  const overlays = array(what, object(what, result), "overlays");
  if (!overlays.every((name) => typeof name === "string")) fail(what, "'overlays' holds something other than text");
  return { overlays: overlays as string[] };
}

/** The `_debug_questions` trait, keeping only questions this view has a button for. */
export function debugQuestions(value: unknown): DebugQuestion[] {
  if (!Array.isArray(value)) return [];
  return DEBUG_QUESTIONS.filter((question) => value.includes(question));
}
