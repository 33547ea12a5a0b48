// Runs Google's Model Explorer web app (from the installed Python package, delivered by the kernel)
// in a sandboxed srcdoc frame inside the cell, and speaks its postMessage protocol.
//
// The frame starts as soon as the widget knows it shows Model Explorer: it receives the app's files
// and compiles its scripts while the kernel is still sending the graph, and the app starts (with its
// start query, which names the graph's panes) when the graph lands. A frame parked ahead of need
// (./parked-app.ts) starts its app at once instead, with a query that needs nothing from the graph; the
// app then asks for the graph, and is answered when the view that adopts the frame has it.
//
// Isolation: the frame has sandbox="allow-scripts" and so an opaque origin. Chromium runs such a frame
// in a process of its own, so the app's WebGL frames (seconds each in software rendering) do not
// block the notebook page's main thread. The frame cannot load the page's blob: URLs: it asks for the
// app's files by message and mints its own (frame/frame-boot.ts).
import { filesWithRole, textWithRole, type AssetBundle } from "../kernel/assets";
import { FrameBridge, type FrameMessage } from "../view/viewer-bridge";
import { makeNonce } from "../shared/csp";
import { remedyIsViewer } from "../shared/error-text";
import { buildDocument, encodeQuery, inlineStyles, JSON_ADAPTER, type StartQuery, WIDGET_CSS } from "./document";
import type { AttributeChanges } from "./node-attributes";
import {
  SHIM_ESCAPE,
  SHIM_FIT,
  SHIM_IMAGE,
  SHIM_IMAGE_REPLY,
  SHIM_MARK,
  SHIM_MARKED,
  type NodeMark,
  type ShimImageReply,
  ME_NODE_SELECTED,
  ME_READY,
  ME_SELECT_NODE,
  SHIM_BOOT,
  SHIM_CONTEXT_LOST,
  SHIM_FAILED,
  SHIM_FETCH,
  SHIM_FETCH_REPLY,
  SHIM_HELLO,
  SHIM_NO_WEBGL,
  SHIM_RENDERED,
  SHIM_RECOLOUR,
  SHIM_RECOLOURED,
  SHIM_SELECT_HEARD,
  SHIM_START,
  SHIM_USER_PRESSED,
  type ShimBootMessage,
  type ShimFetchRequest,
  type ShimRecolourReply,
} from "./protocol";
import bootSource from "frame:./frame/frame-boot.ts";

/** What one asset bundle turns into, once per page: the app's page and the files the frame asks for. */
interface PreparedApp {
  indexHtml: string;
  boot: ShimBootMessage;
}

const prepared = new Map<string, PreparedApp>();

function prepare(bundle: AssetBundle): PreparedApp {
  const cached = prepared.get(bundle.key);
  if (cached) return cached;
  const indexHtml = textWithRole(bundle, "page");
  const files: Record<string, Uint8Array> = {};
  for (const file of bundle.index) if (file.role !== "page") files[file.name] = bundle.files.get(file.name) as Uint8Array;
  const boot: ShimBootMessage = {
    cmd: SHIM_BOOT,
    files,
    fonts: filesWithRole(bundle, "font"),
    assets: [...filesWithRole(bundle, "data"), ...filesWithRole(bundle, "worker")],
    styles: filesWithRole(bundle, "style"),
    entries: filesWithRole(bundle, "entry"),
    inlineStyles: [...inlineStyles(indexHtml), WIDGET_CSS],
  };
  const app = { indexHtml, boot };
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
  /** A key of its content ("" none): the frame keeps the app's colouring of it under this key. */
  key: string;
  json: string;
  /** Index of the pane whose model it colours. */
  pane: number;
}

/** What one frame shows: one pane, or two side by side with navigation synced by node id. */
export interface ModelExplorerGraph {
  panes: PaneGraph[];
  nodeData: NodeDataFile[];
}

export interface ModelExplorerFrameOptions {
  bundle: AssetBundle;
  /** Still on its way from the kernel when the frame starts; a failure fails `rendered`. */
  graph: Promise<ModelExplorerGraph>;
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
 * The start query of one pane without node data: all it names is the collection's URL, whose label
 * is only the app's fallback (the collection's own label is shown), so it is known before the graph.
 */
const EARLY_START_QUERY = encodeQuery(startQuery([{ label: "graph", graphJson: "" }]));

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

/** Why a frame without WebGL draws nothing, and the remedy: Netron draws SVG (the error box offers it). */
const NO_WEBGL = () =>
  remedyIsViewer(
    "Model Explorer cannot draw here: this browser gives it no WebGL (turned off, blocked, or no graphics driver). " +
      'Remedy: show the trace in Netron, which draws without WebGL (explore(log, viewer="netron")), ' +
      "or turn on WebGL (hardware acceleration) in the browser's settings.",
    "netron",
  );

/** A parked frame's class until a view takes it (it is no widget's "tlw-frame" yet). */
const PARKED_CLASS = "tlw-parked-frame";

/** What a view gives the parked frame it takes (see js/model-explorer/parked-app.ts). */
export type AdoptOptions = Pick<ModelExplorerFrameOptions, "graph" | "onSelect" | "onContextLost" | "onEscape">;

export class ModelExplorerFrame extends FrameBridge {
  /** Resolves with milliseconds from frame creation (or adoption) to the first drawn graph. */
  readonly rendered: Promise<number>;
  private resolveRendered!: (ms: number) => void;
  private rejectRendered!: (error: Error) => void;
  private readonly boot: ShimBootMessage;
  /** The graph on its way (a parked frame's follows the graph of the view that adopts it). */
  private readonly pendingGraph: Promise<ModelExplorerGraph>;
  /** The graph, once it has landed (the app asks for it only after its start query). */
  private graph: ModelExplorerGraph | null = null;
  private startedAt = performance.now();
  /**
   * A parked frame's app starts at once with EARLY_START_QUERY, its request for the graph answered
   * when the graph lands; any other starts when the graph lands (measured: an app booting as the
   * kernel exports only competes with it).
   */
  private startsBeforeGraph = false;
  /** A parked frame's: hands it the adopting view's graph. */
  private adoptGraph: ((graph: Promise<ModelExplorerGraph>) => void) | null = null;
  /**
   * The app drops a select by node id that comes before it holds the graph, and "model-explorer-ready"
   * comes seconds before that: selections wait until the app is ready and the graph is drawn.
   */
  private readonly waitingFor = new Set<string>([ME_READY, SHIM_RENDERED]);
  /** Whether the first graph is drawn (only a drawn graph can be recoloured in place). */
  private drawn = false;
  private nextRecolour = 0;
  private readonly recolours = new Map<number, (reply: ShimRecolourReply) => void>();
  /** The nodes marked (a highlight), sent once the graph is drawn. */
  private marks: NodeMark[] = [];
  private nextMark = 0;
  private readonly markings = new Map<number, () => void>();
  /**
   * Whether the user pressed in the frame since it last took a select of ours: only then is a node
   * selection the app reports the user's (otherwise it answers our select, maybe one the kernel has
   * since replaced).
   */
  private userPressed = false;

  /**
   * An app that starts now and waits, in `holder`, for the graph of whichever view adopts it. It can
   * start before its graph is known: one pane, no node data.
   */
  static parked(holder: HTMLElement, bundle: AssetBundle): ModelExplorerFrame {
    let adoptGraph!: (graph: Promise<ModelExplorerGraph>) => void;
    const graph = new Promise<ModelExplorerGraph>((resolve) => {
      adoptGraph = resolve; // resolved with a promise: follows it, a failure included
    });
    const frame = new ModelExplorerFrame(holder, { bundle, graph, onSelect: () => undefined });
    frame.startsBeforeGraph = true; // read when the frame says hello, after this task
    frame.adoptGraph = adoptGraph;
    frame.iframe.className = PARKED_CLASS;
    frame.iframe.style.cssText = "display:block;width:100%;height:100%;border:0";
    return frame;
  }

  constructor(
    container: HTMLElement,
    private options: ModelExplorerFrameOptions,
  ) {
    // Sandboxed: a process of its own, away from the notebook's DOM, cookies, storage and kernel.
    super({ title: "Model Explorer", onSelect: options.onSelect });
    this.rendered = new Promise((resolve, reject) => {
      this.resolveRendered = resolve;
      this.rejectRendered = reject;
    });
    this.rendered.catch(() => undefined); // a failure is reported to whoever awaits it, not as unhandled
    this.pendingGraph = options.graph;
    options.graph.then(
      (graph) => {
        this.graph = graph;
      },
      (error: unknown) => this.rejectRendered(error instanceof Error ? error : new Error(String(error))),
    );
    const app = prepare(options.bundle);
    this.boot = app.boot;
    const html = buildDocument({
      indexHtml: app.indexHtml,
      entryNames: [...app.boot.styles, ...app.boot.entries],
      shimSource: bootSource,
      styleNonce: makeNonce(),
      shim: {
        urls: {},
        parentOrigin: window.origin,
        extensions: [JSON_ADAPTER],
        query: "", // sent by SHIM_START
        infoPanelClosed: options.infoPanelClosed ?? true,
      },
    });
    this.start(container, html);
  }

  /** Takes a parked frame into `container` (without reloading it) to show the view's graph. */
  adopt(container: HTMLElement, options: AdoptOptions): void {
    if (!this.adoptGraph) throw new Error("Only a parked Model Explorer frame can be adopted, and once.");
    this.moveTo(container, options.onSelect); // first: a move the browser refuses changes nothing
    this.iframe.className = "tlw-frame";
    this.iframe.removeAttribute("style");
    this.options = { ...this.options, ...options };
    this.startedAt = performance.now();
    this.adoptGraph(options.graph);
    this.adoptGraph = null;
  }

  protected postSelect(nodeId: string): void {
    this.post({ cmd: ME_SELECT_NODE, nodeId });
  }

  /**
   * Colours the graph drawn now with `nodeData` and sets `attributes` on its nodes (an overlay switch,
   * a baseline set or cleared: the caller has checked that the graphs are the ones shown), keeping the layout,
   * zoom and selection. Resolves with the milliseconds
   * until the canvas showed it; null before the first graph is drawn (then a new frame draws it).
   */
  recolour(colours: Promise<{ files: NodeDataFile[]; attributes: AttributeChanges }>): Promise<number> | null {
    const shown = this.graph;
    if (!this.drawn || !shown) return null;
    const id = ++this.nextRecolour;
    return colours.then(({ files, attributes }) => {
      const graph = { ...shown, nodeData: files };
      this.graph = graph; // the app asks by index for the node data of a graph it opens later
      return new Promise<number>((resolve, reject) => {
        this.recolours.set(id, (reply) =>
          reply.error === undefined
            ? resolve(reply.ms ?? 0)
            : reject(new Error(`Model Explorer could not recolour the graph in place: ${reply.error}. Remedy: run the cell again.`)),
        );
        const changes = JSON.stringify(attributes);
        this.post({ cmd: SHIM_RECOLOUR, id, panes: graph.panes.length, files: graph.nodeData, attributes: changes });
      });
    });
  }

  /**
   * Marks nodes on the graph drawn (in every pane), in place; `[]` clears them. Resolves when the
   * marks are on the canvas (before the first draw: once they are sent with it).
   */
  mark(marks: NodeMark[]): Promise<void> {
    this.marks = marks;
    return this.drawn ? this.postMarks() : Promise.resolve();
  }

  private postMarks(): Promise<void> {
    const id = ++this.nextMark;
    return new Promise<void>((resolve) => {
      this.markings.set(id, resolve);
      this.post({ cmd: SHIM_MARK, id, marks: this.marks });
    });
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
      case SHIM_HELLO:
        // Copied, not transferred: every frame on the page gets the same files. The start query
        // follows (at once, or when the graph is here): after the files, as one sender's messages
        // keep their order.
        this.post({ ...this.boot });
        if (this.startsBeforeGraph) {
          this.post({ cmd: SHIM_START, query: EARLY_START_QUERY });
        } else {
          this.pendingGraph.then(
            ({ panes, nodeData }) => this.post({ cmd: SHIM_START, query: encodeQuery(startQuery(panes, nodeData)) }),
            () => undefined, // `rendered` has failed with it
          );
        }
        break;
      case SHIM_FETCH:
        this.answer(message as unknown as ShimFetchRequest);
        break;
      case ME_READY:
        this.arrived(ME_READY);
        break;
      case SHIM_RENDERED:
        this.drawn = true;
        if (this.marks.length) void this.postMarks();
        this.resolveRendered(performance.now() - this.startedAt);
        this.arrived(SHIM_RENDERED);
        break;
      case SHIM_FAILED:
        this.noteStartupError(String(message.message));
        if (message.fatal) {
          this.rejectRendered(
            new Error(
              `Model Explorer's layout worker failed: ${String(message.message)}. Remedy: show this trace in Netron ` +
                `(explore(log, viewer="netron")), or a smaller part of the model.`,
            ),
          );
        }
        break;
      case SHIM_NO_WEBGL:
        // Said at once: the app only shows its own message in the frame, and would never draw.
        this.rejectRendered(NO_WEBGL());
        break;
      case SHIM_CONTEXT_LOST:
        // A canvas that is not in the page (the app's WebGL capability probe) blanks nothing.
        if (message.shown) this.options.onContextLost?.();
        break;
      case SHIM_SELECT_HEARD:
        this.userPressed = false;
        break;
      case SHIM_USER_PRESSED:
        this.userPressed = true;
        break;
      case ME_NODE_SELECTED:
        if (this.userPressed) this.selectedInFrame(String(message.nodeId ?? ""));
        else this.answeredSelect(String(message.nodeId ?? ""));
        break;
      case SHIM_IMAGE_REPLY:
        this.settleBlob(message as unknown as ShimImageReply);
        break;
      case SHIM_ESCAPE:
        this.options.onEscape?.();
        break;
      case SHIM_MARKED:
        this.markings.get(Number(message.id))?.();
        this.markings.delete(Number(message.id));
        break;
      case SHIM_RECOLOURED: {
        const reply = message as unknown as ShimRecolourReply;
        this.recolours.get(reply.id)?.(reply);
        this.recolours.delete(reply.id);
        break;
      }
    }
  }

  private arrived(signal: string): void {
    this.waitingFor.delete(signal);
    if (!this.waitingFor.size) this.becomeSelectable();
  }

  /** The app's server API, answered from memory (once the graph is here: the app may ask before). */
  private answer(request: ShimFetchRequest): void {
    if (!this.graph) {
      this.pendingGraph.then(
        () => this.answer(request),
        () => undefined, // `rendered` has failed with it, and the view drops this frame
      );
      return;
    }
    const url = new URL(request.url, "http://frame.invalid");
    const pane = this.graph.panes[Number(url.searchParams.get("graph_index"))];
    const data = this.graph.nodeData[Number(url.searchParams.get("node_data_index"))];
    let status = 200;
    let body: string;
    if (url.pathname === "/api/v1/load_graphs_json" && pane) {
      body = pane.graphJson;
    } else if (url.pathname === "/api/v1/load_node_data") {
      // After a recolour to no overlay, the start query's node data is gone: an empty file, no colours.
      body = JSON.stringify({ content: data ? data.json : "{}" });
    } else {
      status = 404;
      body = JSON.stringify({ error: `not available in the widget: ${url.pathname}` });
    }
    this.post({ cmd: SHIM_FETCH_REPLY, id: request.id, status, body });
  }
}
