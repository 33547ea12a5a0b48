// Runs Google's Model Explorer web app (from the installed Python package, delivered by the kernel)
// in a srcdoc frame inside the cell, and speaks its postMessage protocol.
import { blobUrl, mimeOf, type AssetBundle } from "../assets";
import { buildDocument, encodeQuery, entryNames, JSON_ADAPTER, rewriteFontFaces, type StartQuery } from "./document";
import {
  ME_NODE_SELECTED,
  ME_READY,
  ME_SELECT_NODE,
  SHIM_CONTEXT_LOST,
  SHIM_FAILED,
  SHIM_FETCH,
  SHIM_FETCH_REPLY,
  SHIM_RENDERED,
  type ShimFetchRequest,
} from "./protocol";
import shimSource from "frame:./frame-shim.ts";

/** Blob URLs for one asset bundle, made once per page and shared by every frame. */
interface PreparedApp {
  indexHtml: string;
  entryUrls: Record<string, string>;
  fontUrls: Record<string, string>;
  /** Worker and atlas URLs, keyed as the app asks for them (bare file name). */
  shimUrls: Record<string, string>;
}

const prepared = new Map<string, PreparedApp>();

function prepare(bundle: AssetBundle): PreparedApp {
  const cached = prepared.get(bundle.key);
  if (cached) return cached;
  const text = (name: string) => new TextDecoder().decode(bundle.files.get(name));
  const indexHtml = text("index.html");
  const fontUrls: Record<string, string> = {};
  const shimUrls: Record<string, string> = {};
  for (const [name, data] of bundle.files) {
    if (name.endsWith(".woff2")) fontUrls[name] = blobUrl(data, mimeOf(name));
    else if (name.startsWith("static_files/")) shimUrls[name.slice("static_files/".length)] = blobUrl(data, mimeOf(name));
    else if (/^worker-[A-Za-z0-9]+\.js$/.test(name)) shimUrls[name] = blobUrl(data, mimeOf(name));
  }
  const entryUrls: Record<string, string> = {};
  for (const name of entryNames(indexHtml)) {
    const data = bundle.files.get(name);
    if (!data) throw new Error(`The Model Explorer bundle lacks ${name}, which index.html loads.`);
    entryUrls[name] = name.endsWith(".css")
      ? blobUrl(rewriteFontFaces(text(name), fontUrls), "text/css")
      : blobUrl(data, mimeOf(name));
  }
  const app = { indexHtml, entryUrls, fontUrls, shimUrls };
  prepared.set(bundle.key, app);
  return app;
}

/** One pane's graph collection, as JSON text (torchlens' to_model_explorer_dict output). */
export interface PaneGraph {
  label: string;
  graphJson: string;
}

/** Node data (Model Explorer's per-node values file) as JSON text, applied to one pane's model. */
export interface NodeDataFile {
  name: string;
  json: string;
  /** Index of the pane whose model it colours. */
  pane: number;
}

export interface ModelExplorerFrameOptions {
  bundle: AssetBundle;
  /** One pane, or two side by side with navigation synced by node id. */
  panes: PaneGraph[];
  nodeData?: NodeDataFile[];
  onSelect: (nodeId: string) => void;
  /** A WebGL context of a canvas on screen was lost: the graph is blank until the frame is redrawn. */
  onContextLost?: () => void;
}

/** The app's start query for these panes and node data (what its own server would put in ?data=). */
export function startQuery(panes: PaneGraph[], nodeData: NodeDataFile[] = []): StartQuery {
  const query: StartQuery = { models: panes.map((pane, i) => ({ url: `graphs://${urlName(pane.label)}/${i}` })) };
  if (nodeData.length) {
    query.nodeData = nodeData.map((data, i) => `node_data://${urlName(data.name)}/${i}`);
    // A file applies to collections whose label equals its target ("" = every collection).
    query.nodeDataTargets = nodeData.map((data) => (panes.length === 1 ? "" : urlName(panes[data.pane].label)));
  }
  if (panes.length > 1) {
    // Every field of the app's own initial pane state: it reads them all (e.g. the expanded-layer list).
    const graphIds = firstGraphIds(panes);
    query.uiState = {
      paneStates: panes.map((pane, i) => ({
        deepestExpandedGroupNodeIds: [],
        selectedNodeId: "",
        selectedGraphId: graphIds[i],
        selectedCollectionLabel: pane.label,
        widthFraction: 1 / panes.length,
        selected: i === 0,
      })),
    };
    query.sync = { mode: "match_node_id" };
  }
  return query;
}

/**
 * The graph each pane opens first: its collection's first graph, under the id the app gives it. The
 * app renames a graph id that an earlier collection already used: "00-execution" -> "00-execution (2)".
 */
function firstGraphIds(panes: PaneGraph[]): string[] {
  const seen = new Map<string, number>();
  return panes.map((pane) => {
    const graphs = (JSON.parse(pane.graphJson) as { graphs?: { id: string }[] }).graphs ?? [];
    const ids = graphs.map((graph) => {
      const count = (seen.get(graph.id) ?? 0) + 1;
      seen.set(graph.id, count);
      return count > 1 ? `${graph.id} (${count})` : graph.id;
    });
    return ids[0] ?? "";
  });
}

/** The app splits these URLs at "/": keep names one segment long. */
function urlName(name: string): string {
  return name.replace(/\//g, "\u2215");
}

export class ModelExplorerFrame {
  readonly iframe: HTMLIFrameElement;
  /** Resolves with milliseconds from frame creation to the first drawn graph. */
  readonly rendered: Promise<number>;
  private lastSelected = "";
  private errors: string[] = [];
  private readonly onMessage = (event: MessageEvent) => this.receive(event);
  private resolveRendered!: (ms: number) => void;
  private rejectRendered!: (error: Error) => void;
  private appReady = false;
  private pendingSelect = "";

  constructor(container: HTMLElement, private readonly options: ModelExplorerFrameOptions) {
    this.rendered = new Promise((resolve, reject) => {
      this.resolveRendered = resolve;
      this.rejectRendered = reject;
    });
    const app = prepare(options.bundle);
    const html = buildDocument({
      indexHtml: app.indexHtml,
      entryUrls: app.entryUrls,
      fontUrls: app.fontUrls,
      shimSource,
      shim: {
        urls: app.shimUrls,
        extensions: [JSON_ADAPTER],
        query: encodeQuery(startQuery(options.panes, options.nodeData)),
      },
    });
    this.iframe = document.createElement("iframe");
    this.iframe.className = "tlw-frame";
    this.iframe.title = "Model Explorer";
    window.addEventListener("message", this.onMessage);
    this.iframe.srcdoc = html;
    container.appendChild(this.iframe);
  }

  /** Errors the app reported while starting (shown if it never draws). */
  get startupErrors(): readonly string[] {
    return this.errors;
  }

  select(nodeId: string): void {
    if (!nodeId || nodeId === this.lastSelected) return;
    if (!this.appReady) {
      this.pendingSelect = nodeId; // applied once the app can take messages
      return;
    }
    this.lastSelected = nodeId;
    this.post({ cmd: ME_SELECT_NODE, nodeId });
  }

  dispose(): void {
    window.removeEventListener("message", this.onMessage);
    this.iframe.remove();
  }

  private post(message: Record<string, unknown>): void {
    // Delivered only while the frame's document has this page's origin (a srcdoc frame inherits it).
    // A page with an opaque origin (a saved file opened from disk) cannot name it: "*" there.
    this.iframe.contentWindow?.postMessage(message, window.origin === "null" ? "*" : window.origin);
  }

  private receive(event: MessageEvent): void {
    // Only our own frame, with this page's origin: every other frame on the page (other widgets, a
    // frame in another output) is ignored.
    if (event.source !== this.iframe.contentWindow || event.origin !== window.origin) return;
    if (typeof event.data !== "object" || !event.data) return;
    const message = event.data as { cmd?: string; [key: string]: unknown };
    switch (message.cmd) {
      case SHIM_FETCH:
        this.answer(message as unknown as ShimFetchRequest);
        break;
      case ME_READY:
        this.appReady = true;
        if (this.pendingSelect) {
          const nodeId = this.pendingSelect;
          this.pendingSelect = "";
          this.select(nodeId);
        }
        break;
      case SHIM_RENDERED:
        this.resolveRendered(Number(message.ms));
        break;
      case SHIM_FAILED:
        this.errors.push(String(message.message));
        if (message.fatal) {
          this.rejectRendered(
            new Error(
              `Model Explorer's layout worker failed: ${String(message.message)}. Remedy: show this trace in Netron ` +
                `(explore(log, viewer="netron")), or a smaller part of the model.`,
            ),
          );
        }
        break;
      case SHIM_CONTEXT_LOST:
        // A canvas that is not in the page (the app's WebGL capability probe) blanks nothing.
        if (message.shown) this.options.onContextLost?.();
        break;
      case ME_NODE_SELECTED: {
        const nodeId = String(message.nodeId ?? "");
        if (nodeId && nodeId !== this.lastSelected) {
          this.lastSelected = nodeId;
          this.options.onSelect(nodeId);
        }
        break;
      }
    }
  }

  /** The app's server API, answered from memory. */
  private answer(request: ShimFetchRequest): void {
    const url = new URL(request.url, "http://frame.invalid");
    const pane = this.options.panes[Number(url.searchParams.get("graph_index"))];
    const data = (this.options.nodeData ?? [])[Number(url.searchParams.get("node_data_index"))];
    let status = 200;
    let body: string;
    if (url.pathname === "/api/v1/load_graphs_json" && pane) {
      body = pane.graphJson;
    } else if (url.pathname === "/api/v1/load_node_data" && data) {
      body = JSON.stringify({ content: data.json });
    } else {
      status = 404;
      body = JSON.stringify({ error: `not available in the widget: ${url.pathname}` });
    }
    this.post({ cmd: SHIM_FETCH_REPLY, id: request.id, status, body });
  }
}
