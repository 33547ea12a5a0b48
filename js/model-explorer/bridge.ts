// Runs Google's Model Explorer web app (from the installed Python package, delivered by the kernel)
// in a srcdoc frame inside the cell, and speaks its postMessage protocol.
import { blobUrl, mimeOf, type AssetBundle } from "../assets";
import { buildDocument, encodeQuery, entryNames, JSON_ADAPTER, rewriteFontFaces } from "./document";
import {
  ME_LOAD_GRAPHS,
  ME_NODE_SELECTED,
  ME_READY,
  ME_SELECT_NODE,
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

export interface ModelExplorerFrameOptions {
  bundle: AssetBundle;
  /** The graph collection as JSON text (torchlens' to_model_explorer_dict output). */
  graphJson: string;
  label: string;
  onSelect: (nodeId: string) => void;
}

export class ModelExplorerFrame {
  readonly iframe: HTMLIFrameElement;
  /** Resolves with milliseconds from frame creation to the first drawn graph. */
  readonly rendered: Promise<number>;
  private graphJson: string;
  private lastSelected = "";
  private errors: string[] = [];
  private readonly onMessage = (event: MessageEvent) => this.receive(event);
  private resolveRendered!: (ms: number) => void;
  private appReady = false;
  private pendingSelect = "";

  constructor(container: HTMLElement, private readonly options: ModelExplorerFrameOptions) {
    this.graphJson = options.graphJson;
    this.rendered = new Promise((resolve) => (this.resolveRendered = resolve));
    const app = prepare(options.bundle);
    const html = buildDocument({
      indexHtml: app.indexHtml,
      entryUrls: app.entryUrls,
      fontUrls: app.fontUrls,
      shimSource,
      shim: {
        urls: app.shimUrls,
        extensions: [JSON_ADAPTER],
        query: encodeQuery({ models: [{ url: `graphs://${encodeURIComponent(options.label)}/0` }] }),
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

  /** Replaces the graph on screen (e.g. after an overlay change); the app resets its view. */
  loadGraph(graphJson: string, label: string): void {
    this.graphJson = graphJson;
    this.post({ cmd: ME_LOAD_GRAPHS, graphCollections: [JSON.parse(graphJson)], fileName: label });
  }

  dispose(): void {
    window.removeEventListener("message", this.onMessage);
    this.iframe.remove();
  }

  private post(message: Record<string, unknown>): void {
    this.iframe.contentWindow?.postMessage(message, "*");
  }

  private receive(event: MessageEvent): void {
    // Only our own frame: every other frame on the page (other widgets included) is ignored.
    if (event.source !== this.iframe.contentWindow || typeof event.data !== "object" || !event.data) return;
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
    let status = 200;
    let body = "{}";
    if (url.pathname === "/api/v1/load_graphs_json" && url.searchParams.get("graph_index") === "0") {
      body = this.graphJson;
    } else {
      status = 404;
      body = JSON.stringify({ error: `not available in the widget: ${url.pathname}` });
    }
    this.post({ cmd: SHIM_FETCH_REPLY, id: request.id, status, body });
  }
}
