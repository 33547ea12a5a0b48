// Messages between the widget (parent page) and the Netron frame. Every message carries `cmd`;
// both sides check `event.source` before reading one.

/** Frame -> parent: the host script is running and waits for the Netron modules. */
export const NETRON_HELLO = "tlw-netron-hello";
/** Parent -> frame: the module texts (already rewritten to bare `netron/x.js` specifiers). */
export const NETRON_BOOT = "tlw-netron-boot";
/** Frame -> parent: Netron's view has started and can open a model. */
export const NETRON_READY = "tlw-netron-ready";
/** Parent -> frame: open a model from memory (replaces the one on screen). */
export const NETRON_OPEN = "tlw-netron-open";
/** Frame -> parent: the model of open request `id` is drawn. */
export const NETRON_RENDERED = "tlw-netron-rendered";
/** Frame -> parent: something failed (with the open request's `id` when opening failed). */
export const NETRON_FAILED = "tlw-netron-failed";
/** Parent -> frame: select, reveal and show the properties of a node by its Netron name. */
export const NETRON_SELECT = "tlw-netron-select";
/** Frame -> parent: the user activated a node (click, find sidebar, sidebar link). */
export const NETRON_SELECTED = "tlw-netron-selected";
/** Frame -> parent: Netron's "Export as PNG/SVG"; the sandboxed frame cannot download itself. */
export const NETRON_EXPORT = "tlw-netron-export";
/**
 * Frame -> parent: the user chose Netron's "Export as PNG/SVG" just now (while the click still counts
 * as one); the image follows in NETRON_EXPORT, which may take many seconds for a big graph's PNG.
 */
export const NETRON_EXPORT_STARTED = "tlw-netron-export-started";
/** Parent -> frame: export the graph as an image (the widget's "save image" button); answered by NETRON_EXPORT. */
export const NETRON_EXPORT_REQUEST = "tlw-netron-export-request";
/** Parent -> frame: a PNG of the graph as it shows now (the picture a saved notebook keeps). */
export const NETRON_PICTURE_REQUEST = "tlw-netron-picture-request";
/** Frame -> parent: the answer to NETRON_PICTURE_REQUEST `id`: a PNG blob, or why there is none. */
export const NETRON_PICTURE = "tlw-netron-picture";
/** Frame -> parent: the user pressed Escape in the frame (a maximized widget restores). */
export const NETRON_ESCAPE = "tlw-netron-escape";
/** Parent -> frame: colour node boxes by a value per node, with a legend (null clears). */
export const NETRON_OVERLAY = "tlw-netron-overlay";
/** Parent -> frame: mark these node boxes (Netron node names) as highlighted; an empty list clears. */
export const NETRON_HIGHLIGHT = "tlw-netron-highlight";
/** Parent -> frame: border these node boxes as ops some of a comparison's runs lack; [] clears. */
export const NETRON_RUN_MARKS = "tlw-netron-run-marks";
/**
 * Parent -> frame: recolour the graph on screen with this overlay (the graph itself did not change: an
 * overlay switch), with no open and no layout; answered by NETRON_RENDERED with the same `id`.
 */
export const NETRON_REPAINT = "tlw-netron-repaint";

import type { HighlightRole, NetronOverlay } from "../kernel/protocol";

export interface NetronBootMessage {
  cmd: typeof NETRON_BOOT;
  /** File name ("view.js") -> module text with `./x.js` imports rewritten to `netron/x.js`. */
  modules: Record<string, string>;
  /** worker.js as shipped (the frame points its dagre import at its own blob URL); null: no worker. */
  worker: string | null;
  /** Netron's version (the installed package's), shown in its About page. */
  version: string;
}

export interface NetronFile {
  identifier: string;
  bytes: ArrayBuffer;
}

export interface NetronOpenMessage {
  cmd: typeof NETRON_OPEN;
  id: number;
  model: NetronFile;
  attachment: NetronFile | null;
}

export interface NetronRenderedMessage {
  cmd: typeof NETRON_RENDERED;
  id: number;
  /** Milliseconds the frame spent in Netron's open + layout + draw. */
  ms: number;
  /** Node boxes drawn in the root graph. */
  nodes: number;
  attached: boolean;
  /** A repaint of the graph on screen (NETRON_REPAINT), not a new open. */
  inPlace?: boolean;
}

export interface NetronSelectMessage {
  cmd: typeof NETRON_SELECT;
  name: string;
}

export interface NetronSelectedMessage {
  cmd: typeof NETRON_SELECTED;
  /** Netron node name: the torchlens label, or the module address of a module-call box. */
  name: string;
  /** Netron's node type name (torchlens layer type, or the module address for a call box). */
  type: string;
  /** Netron's activation source: "target" (a click on the graph), "sidebar" (find / links). */
  source: string;
}

export interface NetronFailedMessage {
  cmd: typeof NETRON_FAILED;
  message: string;
  id?: number;
  /** Netron could not start in the frame: no graph will ever be drawn. */
  start?: boolean;
}

export interface NetronExportMessage {
  cmd: typeof NETRON_EXPORT;
  file: string;
  blob: Blob;
  /** The id of the parent's NETRON_EXPORT_REQUEST this answers (absent: Netron's own menu). */
  request?: number;
}

export interface NetronExportStartedMessage {
  cmd: typeof NETRON_EXPORT_STARTED;
  file: string;
}

export interface NetronExportRequestMessage {
  cmd: typeof NETRON_EXPORT_REQUEST;
  id: number;
  format: "png" | "svg";
}

export interface NetronPictureRequestMessage {
  cmd: typeof NETRON_PICTURE_REQUEST;
  id: number;
}

export interface NetronPictureMessage {
  cmd: typeof NETRON_PICTURE;
  id: number;
  blob: Blob | null;
  error?: string;
}

export interface NetronOverlayMessage {
  cmd: typeof NETRON_OVERLAY;
  overlay: NetronOverlay | null;
}

export interface NetronRepaintMessage {
  cmd: typeof NETRON_REPAINT;
  id: number;
  overlay: NetronOverlay | null;
  /** A new metrics companion for the model on screen (a baseline's rows changed), attached in place. */
  attachment: NetronFile | null;
}

export interface NetronRunMarksMessage {
  cmd: typeof NETRON_RUN_MARKS;
  names: string[];
}

export interface NetronHighlightMessage {
  cmd: typeof NETRON_HIGHLIGHT;
  names: string[];
  /** Node name -> role ("producer", "propagated") for the names drawn in a role's colours. */
  roles: Record<string, HighlightRole>;
}
