// Messages between the widget (parent page) and the Model Explorer frame.
// The app's own messages are the ME_* names below; ours are prefixed "tlw-".

/** Sent by the app itself (target "*"). */
export const ME_READY = "model-explorer-ready";
export const ME_NODE_SELECTED = "model-explorer-node-selected";
/** Understood by the app. */
export const ME_SELECT_NODE = "model-explorer-select-node-by-node-id";

/** The frame is up and asks for the app's files; the parent answers with SHIM_BOOT. */
export const SHIM_HELLO = "tlw-me-hello";
export const SHIM_BOOT = "tlw-me-boot";
/**
 * Parent -> frame, after SHIM_BOOT: the app's start query (at once, or once the graph has landed when
 * the query needs it). Only now do the app's scripts run, as the app reads the query.
 */
export const SHIM_START = "tlw-me-start";
/** Our shim, inside the frame, asks the parent for an API answer; the parent replies. */
export const SHIM_FETCH = "tlw-me-fetch";
export const SHIM_FETCH_REPLY = "tlw-me-fetch-reply";
/** Our shim reports that the graph has been drawn (or that drawing failed). */
export const SHIM_RENDERED = "tlw-me-rendered";
export const SHIM_FAILED = "tlw-me-failed";
/** Our shim reports that a WebGL context of the frame was lost (`shown`: its canvas is in the page). */
export const SHIM_CONTEXT_LOST = "tlw-me-context-lost";
/**
 * Our shim reports that this browser gives the frame no WebGL at all (turned off, blocked, no GPU
 * driver): the app cannot draw, and says so only inside the frame.
 */
export const SHIM_NO_WEBGL = "tlw-me-no-webgl";

/** Parent -> shim: fit the graph to the frame (the app's own space-key fit), e.g. after maximize. */
export const SHIM_FIT = "tlw-me-fit";
/** Parent -> shim: a PNG of what the graph canvases show; the shim answers SHIM_IMAGE_REPLY. */
export const SHIM_IMAGE = "tlw-me-image";
export const SHIM_IMAGE_REPLY = "tlw-me-image-reply";
/** Shim -> parent: the user pressed Escape in the frame (a maximized widget restores). */
export const SHIM_ESCAPE = "tlw-me-escape";
/**
 * Shim -> parent, in the order of what happened in the frame (frame/shim-selection.ts): the frame took a
 * select of the parent's (SHIM_SELECT_HEARD), the user pressed a pointer or a key in it since
 * (SHIM_USER_PRESSED, once until the next select). A ME_NODE_SELECTED is the user's only after a press.
 */
export const SHIM_SELECT_HEARD = "tlw-me-select-heard";
export const SHIM_USER_PRESSED = "tlw-me-user-pressed";

export interface ShimImageRequest {
  cmd: typeof SHIM_IMAGE;
  id: number;
}

export interface ShimImageReply {
  cmd: typeof SHIM_IMAGE_REPLY;
  id: number;
  /** image/png, or null with `error` saying why. */
  blob: Blob | null;
  error?: string;
}

/** Configuration the parent writes into the frame document for the shim. */
export interface ShimConfig {
  /**
   * Asset name (e.g. "worker-X.js", "FontRegular.png") -> blob: URL. Empty in the document: the
   * frame fills it with the URLs it mints from SHIM_BOOT's files before the app's scripts start.
   */
  urls: Record<string, string>;
  /** The parent page's origin ("null" for a page with an opaque origin, e.g. a file from disk). */
  parentOrigin: string;
  /**
   * What the app reads as location.search (a srcdoc document has no query of its own). Empty in the
   * document: the frame sets it from SHIM_START before the app's scripts run.
   */
  query: string;
  /** Answer to /api/v1/get_extensions: must list the builtin JSON adapter or nothing loads. */
  extensions: unknown[];
  /** Close the app's own info panel(s) as they appear (the user can open them again). */
  infoPanelClosed?: boolean;
}

/** How the frame shim posts to the parent page (at the parent's origin only). */
export type ShimPost = (message: Record<string, unknown>) => void;

export interface ShimFetchRequest {
  cmd: typeof SHIM_FETCH;
  id: number;
  url: string;
}

export interface ShimFetchReply {
  cmd: typeof SHIM_FETCH_REPLY;
  id: number;
  status: number;
  body: string;
}

/**
 * The app's files, for the frame to mint its own blob: URLs from: a sandboxed frame has an opaque
 * origin and cannot load the page's. Names are the bundle's ("static_files/x.woff2", "main-X.js").
 */
export interface ShimBootMessage {
  cmd: typeof SHIM_BOOT;
  files: Record<string, Uint8Array>;
  /** Fonts the stylesheets name by "static_files/<name>". */
  fonts: string[];
  /** Files the app asks the shim for by bare name: atlases, icon data and the layout worker. */
  assets: string[];
  /** Stylesheets, then the module scripts, in the order index.html loads them. */
  styles: string[];
  entries: string[];
  /** index.html's own <style> texts (their font faces point at the frame's blob URLs once minted), then the widget's. */
  inlineStyles: string[];
}

/** The app's start query (the panes' graphs and node data). */
export interface ShimStartMessage {
  cmd: typeof SHIM_START;
  query: string;
}

/**
 * Parent -> shim: colour the graph drawn now with these node data files (an overlay switch) and set
 * these node attributes (a baseline's facts), in place: the panes' runs of node data are replaced,
 * nothing is laid out again. `files` empty: no overlay.
 * The shim answers SHIM_RECOLOURED once the canvas shows the new colours (or has settled unchanged).
 */
export const SHIM_RECOLOUR = "tlw-me-recolour";
export const SHIM_RECOLOURED = "tlw-me-recoloured";

/** One pane's node data, as the app's own "Add per-node data" file would hold it. */
export interface RecolourFile {
  pane: number;
  name: string;
  /**
   * A key of `json` (equal keys, equal text; "" none): the frame keeps the app's colouring of the file
   * under it, and colours with the kept one when the same file comes again.
   */
  key: string;
  json: string;
}

export interface ShimRecolourRequest {
  cmd: typeof SHIM_RECOLOUR;
  id: number;
  /** How many panes the frame shows (each pane's runs are replaced, those without a file cleared). */
  panes: number;
  files: RecolourFile[];
  /**
   * Node attributes to set, as JSON text of an AttributeChanges (graph id -> node id -> key -> value,
   * null to remove): a baseline's facts. Text, not objects: the frame reads a posted object graph of
   * 10,000 nodes' attributes (its structured clone) far slower than it parses the same as JSON.
   */
  attributes: string;
}

export interface ShimRecolourReply {
  cmd: typeof SHIM_RECOLOURED;
  id: number;
  /** Milliseconds from the request to the recoloured canvas; absent with `error`. */
  ms?: number;
  /** Why the app could not be recoloured in place (then the parent draws a new frame). */
  error?: string;
}

/**
 * Parent -> shim: mark these nodes on the graph drawn now (a highlight, a lineage, a debug answer's
 * roles), in place: each mark becomes a rule of the app's node styler, which repaints the nodes it
 * matches (in every pane) with no layout. `marks` empty: nothing marked.
 */
export const SHIM_MARK = "tlw-me-mark";
/** Shim -> parent: the marks of SHIM_MARK `id` are on the canvas. */
export const SHIM_MARKED = "tlw-me-marked";

/** Nodes drawn alike: filled with `fill` (none: the node's own), boxed in `border`. */
export interface NodeMark {
  nodeIds: string[];
  border: string;
  fill?: string;
}

export interface ShimMarkMessage {
  cmd: typeof SHIM_MARK;
  id: number;
  marks: NodeMark[];
}
