// Runs Google's Model Explorer web app (from the installed Python package, delivered by the kernel)
// in a srcdoc frame inside the cell, and speaks its postMessage protocol.
import { blobUrl, filesWithRole, mimeOf, textWithRole, type AssetBundle } from "../assets";
import { FrameBridge, type FrameMessage } from "../frame-bridge";
import { buildDocument, encodeQuery, JSON_ADAPTER, rewriteFontFaces, type StartQuery } from "./document";
import {
  SHIM_ESCAPE,
  SHIM_FIT,
  SHIM_IMAGE,
  SHIM_IMAGE_REPLY,
  type ShimImageReply,
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

/** The app asks for its atlases by bare name; the bundle keeps them under static_files/. */
const bareName = (name: string) => name.slice(name.lastIndexOf("/") + 1);

function prepare(bundle: AssetBundle): PreparedApp {
  const cached = prepared.get(bundle.key);
  if (cached) return cached;
  const bytes = (name: string) => bundle.files.get(name) as Uint8Array;
  const fontUrls: Record<string, string> = {};
  for (const name of filesWithRole(bundle, "font")) fontUrls[name] = blobUrl(bytes(name), mimeOf(name));
  const shimUrls: Record<string, string> = {};
  for (const name of [...filesWithRole(bundle, "data"), ...filesWithRole(bundle, "worker")]) {
    shimUrls[bareName(name)] = blobUrl(bytes(name), mimeOf(name));
  }
  const entryUrls: Record<string, string> = {};
  for (const name of filesWithRole(bundle, "style")) {
    entryUrls[name] = blobUrl(rewriteFontFaces(new TextDecoder().decode(bytes(name)), fontUrls), "text/css");
  }
  for (const name of filesWithRole(bundle, "entry")) entryUrls[name] = blobUrl(bytes(name), mimeOf(name));
  const app = { indexHtml: textWithRole(bundle, "page"), entryUrls, fontUrls, shimUrls };
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
  /** Start with the app's own info panel closed (default: true; the inspector shows its facts). */
  infoPanelClosed?: boolean;
  /** The user pressed Escape inside the frame. */
  onEscape?: () => void;
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

export class ModelExplorerFrame extends FrameBridge {
  /** Resolves with milliseconds from frame creation to the first drawn graph. */
  readonly rendered: Promise<number>;
  private resolveRendered!: (ms: number) => void;
  private rejectRendered!: (error: Error) => void;

  constructor(
    container: HTMLElement,
    private readonly options: ModelExplorerFrameOptions,
  ) {
    // Not sandboxed: the app's WebGL and workers need this page's origin (a srcdoc frame inherits it).
    super({ title: "Model Explorer", sandboxed: false, onSelect: options.onSelect });
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
        infoPanelClosed: options.infoPanelClosed ?? true,
      },
    });
    this.start(container, html);
  }

  protected postSelect(nodeId: string): void {
    this.post({ cmd: ME_SELECT_NODE, nodeId });
  }

  /** Fits the graph to the frame (after the widget was maximized or restored). */
  fit(): void {
    this.post({ cmd: SHIM_FIT });
  }

  /** A PNG of what the graph canvases show now (both panes of a diff). */
  image(): Promise<Blob> {
    return this.requestBlob(SHIM_IMAGE);
  }

  protected receive(message: FrameMessage): void {
    switch (message.cmd) {
      case SHIM_FETCH:
        this.answer(message as unknown as ShimFetchRequest);
        break;
      case ME_READY:
        this.becomeSelectable();
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
      case ME_NODE_SELECTED:
        this.selectedInFrame(String(message.nodeId ?? ""));
        break;
      case SHIM_IMAGE_REPLY:
        this.settleBlob(message as unknown as ShimImageReply);
        break;
      case SHIM_ESCAPE:
        this.options.onEscape?.();
        break;
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
