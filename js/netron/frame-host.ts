// Runs INSIDE the Netron frame as its only classic inline script (bundled as an IIFE by build.mjs's
// `frame:` loader). It is Netron's host, in place of Netron's own browser.js, which would ask
// ipinfo.io for cookie consent, send Google Analytics beacons, replace window.eval and nag to
// update. This host has no network, no telemetry, no dialogs of its own and keeps options in memory.
//
// Boot: post "hello"; the parent answers with the module texts (already rewritten to bare
// `netron/x.js` specifiers); mint a blob: URL per module (a sandboxed frame cannot load the
// parent's blob: URLs, so it makes its own), add the import map, import view.js and base.js, start
// Netron's View, post "ready". The host is a classic script rather than a blob module so that the
// import map can be added before the first module import: once a module load starts, a page's
// import map can no longer change.
import { importMap, MODULE_PREFIX, rewriteModule, type NetronFrameConfig } from "./document";
import {
  NETRON_BOOT,
  NETRON_EXPORT,
  NETRON_FAILED,
  NETRON_HELLO,
  NETRON_OPEN,
  NETRON_OVERLAY,
  NETRON_OVERLAY_APPLIED,
  NETRON_READY,
  NETRON_RENDERED,
  NETRON_SELECT,
  NETRON_SELECT_DONE,
  NETRON_SELECTED,
  type NetronBootMessage,
  type NetronFile,
  type NetronOpenMessage,
  type NetronOverlayAppliedMessage,
  type NetronOverlayMessage,
  type NetronSelectMessage,
} from "./protocol";
import { checkOverlay, legendModel, MISSING, nodeColour, type CheckedOverlay, type DrawnCounts } from "./overlay";

// ----- the parts of Netron this host touches (netron 9.x internals; pinned in pyproject) ---------

interface NetronType {
  name?: string;
  nodes?: NetronNode[];
}

interface NetronNode {
  name: string;
  type?: NetronType;
}

interface NetronGraph {
  name?: string;
  nodes: NetronNode[];
}

interface NetronModel {
  format?: string;
}

/**
 * A box of the drawn graph (view.Node, view.Input, view.Output; grapher.Node subclasses). `value`
 * is the model's node (its `name` is the Netron node name), `element` the box's SVG <g> (built by
 * grapher.Node.build), `blocks` its parts; a view.Block part holds an expanded sub-graph in `target`.
 */
interface ViewNode {
  value?: { name?: unknown };
  element?: Element;
  blocks?: { target?: ViewGraph }[];
}

/** view.Graph: what is drawn for the active graph (grapher.Graph subclass). */
interface ViewGraph {
  activate(node: NetronNode, source: string): Element[];
  scrollTo(elements: Element[], behavior?: string): void;
  /** grapher.Graph: key -> { label } where label is the ViewNode (or a cluster: a plain object). */
  readonly nodes: Map<string, { label?: ViewNode }>;
}

/** view.View (view.js). `_path` is innermost-first: `_path[0].target` is the graph on screen. */
interface NetronView {
  readonly model: NetronModel | null;
  readonly target: ViewGraph | null;
  readonly activeTarget: NetronGraph | null;
  _path: { target: NetronGraph }[];
  start(): Promise<void>;
  show(page: string | null): void;
  open(context: MemoryContext): Promise<NetronModel | undefined>;
  attach(context: MemoryContext): Promise<boolean>;
  pushTarget(graph: NetronGraph, context?: NetronNode): Promise<void>;
  popTarget(): Promise<unknown>;
  showNodeProperties(node: NetronNode | null, source?: string): void;
  error(error: unknown, name: string | null, screen: string | null): Promise<void>;
  about(): void;
}

interface ViewModule {
  View: new (host: FrameHost) => NetronView;
}

interface BaseModule {
  BinaryStream: new (buffer: Uint8Array) => unknown;
}

// ----- messaging -----------------------------------------------------------------------------------

declare global {
  interface Window {
    __TLW_NETRON__?: NetronFrameConfig;
  }
}

// The parent's origin, written into this document by the parent. This frame's own origin is opaque,
// so the parent cannot name it; this side can: messages go to the notebook's origin only, and only
// the parent window, at that origin, is heard. A parent with an opaque origin (a saved file opened
// from disk) serialises as "null", which no postMessage target can name: "*" there, and the source
// check alone.
const PARENT_ORIGIN = window.__TLW_NETRON__?.parentOrigin ?? "null";
const TARGET_ORIGIN = PARENT_ORIGIN === "null" ? "*" : PARENT_ORIGIN;
/** The nonce of this script, the only inline script the frame's CSP lets run (the import map needs it). */
const NONCE = document.currentScript?.nonce ?? "";

const post = (message: { cmd: string; [key: string]: unknown }): void => window.parent.postMessage(message, TARGET_ORIGIN);
const fromParent = (event: MessageEvent): boolean => event.source === window.parent && event.origin === PARENT_ORIGIN;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The modules this page was given; `require` answers only for these. */
let delivered = new Set<string>();
let binaryStream: BaseModule["BinaryStream"];

/** A dynamic import the bundler leaves alone: the specifier is resolved by the frame's import map. */
const load = <T>(specifier: string): Promise<T> => import(/* @vite-ignore */ specifier) as Promise<T>;

/** A model file held in memory: what Netron's ModelFactoryService reads (view.js view.Context). */
class MemoryContext {
  readonly stream: unknown;

  constructor(
    private readonly host: FrameHost,
    readonly identifier: string,
    bytes: Uint8Array,
  ) {
    this.stream = new binaryStream(bytes);
  }

  asset(file: string): Promise<unknown> {
    return this.host.asset(file);
  }

  async fetch(file: string): Promise<never> {
    // torchlens' ONNX JSON references no external data, so nothing beside the model exists.
    throw new Error(`File not found '${file}' (the widget delivers a single file).`);
  }

  require(id: string): Promise<unknown> {
    return this.host.require(id);
  }

  error(error: unknown, fatal: boolean): void {
    this.host.exception(error, fatal);
  }
}

/** Netron's host contract (see Netron's browser.js), minus the network. */
class FrameHost {
  private netronView: NetronView | null = null;
  private readonly store = new Map<string, unknown>();
  private readonly environmentValues: Record<string, unknown>;

  constructor(version: string, private readonly workerUrl: string | null) {
    this.environmentValues = {
      name: "Netron",
      // Anything but "Browser"/"Python" also skips ModelFactoryService.import(), which would
      // prefetch pytorch/tflite modules and 5 MB of metadata this page never has.
      type: "Widget",
      version,
      date: new Date(),
      packaged: false, // no "Report" button that opens GitHub on errors
      platform: /(Mac|iPhone|iPod|iPad)/i.test(navigator.platform) ? "darwin" : undefined,
      agent: "",
      repository: "https://github.com/lutzroeder/netron",
      menu: true,
      // Without a worker, dagre lays out on the frame's main thread (grapher.js layout()).
      serial: workerUrl === null,
    };
  }

  get window(): Window {
    return window;
  }

  get document(): Document {
    return document;
  }

  get version(): string {
    return String(this.environmentValues.version);
  }

  get type(): string {
    return "Widget";
  }

  async view(view: NetronView): Promise<void> {
    this.netronView = view;
  }

  async start(): Promise<void> {
    this.netronView?.show("welcome spinner");
  }

  environment(name: string): unknown {
    return this.environmentValues[name];
  }

  async require(id: string): Promise<unknown> {
    // view.js and onnx.js ask for "./onnx", "./onnx-proto", "./onnx-schema", ...
    const file = `${id.replace(/^\.\//, "")}.js`;
    if (!delivered.has(file)) {
      // Not delivered: a factory that never matches, so Netron moves on to its next candidate
      // instead of failing the open (a name ending "model.json" is tried as PyTorch first).
      return { ModelFactory: class { async match(): Promise<null> { return null; } } };
    }
    return load(MODULE_PREFIX + file);
  }

  worker(): Worker {
    if (!this.workerUrl) throw new Error("No layout worker in this frame.");
    return new Worker(this.workerUrl, { type: "module" });
  }

  async save(_name: string, extension: string, defaultPath: string): Promise<string> {
    return `${defaultPath}.${extension}`;
  }

  async export(file: string, blob: Blob): Promise<void> {
    // A sandboxed frame may not download; the parent page does it, and only right after a click of
    // the user (the parent checks that too: this frame's word alone is not enough).
    if (navigator.userActivation && !navigator.userActivation.isActive) {
      void this.message("Export needs a click in the viewer: choose Export again.");
      return;
    }
    post({ cmd: NETRON_EXPORT, file, blob });
  }

  async execute(name: string): Promise<void> {
    if (name === "about") this.netronView?.about();
    // "open", "report-issue", ...: nothing to do inside a notebook cell.
  }

  async asset(file: string): Promise<never> {
    // onnx-metadata.json (5.6 MB) is not delivered; onnx.Metadata.open() carries on without it.
    throw new Error(`Asset '${file}' is not delivered to the widget.`);
  }

  openURL(): void {
    // Links would leave the sandbox for the network: ignored.
  }

  exception(error: unknown, fatal: boolean): void {
    post({ cmd: NETRON_FAILED, message: describe(error), fatal: Boolean(fatal) });
  }

  event(): void {
    // Telemetry sink: intentionally nothing.
  }

  get(name: string): unknown {
    return this.store.get(name);
  }

  set(name: string, value: unknown): void {
    this.store.set(name, value);
  }

  delete(name: string): void {
    this.store.delete(name);
  }

  update(): void {}

  /** Netron's notification/alert line (same DOM contract as browser.js). */
  message(text?: string, alert?: boolean, action?: string): Promise<number> {
    return new Promise((resolve) => {
      const body = document.body;
      const previous = body.getAttribute("class") ?? "";
      const textElement = document.getElementById("message-text");
      const button = document.getElementById("message-button") as HTMLButtonElement | null;
      if (textElement) textElement.innerText = text ?? "";
      if (button) {
        if (action) {
          button.style.removeProperty("display");
          button.innerText = action;
          button.onclick = () => {
            button.onclick = null;
            body.setAttribute("class", previous);
            resolve(0);
          };
          button.focus();
        } else {
          button.style.display = "none";
          button.onclick = null;
        }
      }
      if (alert) {
        body.setAttribute("class", "alert");
      } else if (text) {
        body.classList.add("notification");
        body.classList.remove("default");
      } else {
        body.classList.remove("notification");
      }
      if (!action) resolve(0);
    });
  }
}

// ----- the widget's operations ---------------------------------------------------------------------

interface Located {
  node: NetronNode;
  /** Root first: each graph to show on the way, with the module-call node that opens it. */
  chain: { target: NetronGraph; call: NetronNode | null }[];
}

/** Finds a node by name from the root graph down through module-call (function) bodies. */
function locate(root: NetronGraph, name: string): Located | null {
  const seen = new Set<NetronGraph>();
  const search = (graph: NetronGraph, chain: Located["chain"]): Located | null => {
    if (seen.has(graph) || !Array.isArray(graph.nodes)) return null;
    seen.add(graph);
    const node = graph.nodes.find((candidate) => candidate.name === name);
    if (node) return { node, chain };
    for (const call of graph.nodes) {
      const body = call.type;
      if (body && Array.isArray(body.nodes) && body.nodes.length > 0) {
        const found = search(body as NetronGraph, [...chain, { target: body as NetronGraph, call }]);
        if (found) return found;
      }
    }
    return null;
  };
  return search(root, [{ target: root, call: null }]);
}

// ----- overlay: box colours by a value per node, with a legend ------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";
const HATCH_ID = "tlw-overlay-hatch";
const LEGEND_ID = "tlw-overlay-legend";
/** Marks a box the overlay painted (so clearing finds them); "value" or "missing". */
const PAINTED = "data-tlw-overlay";

const OVERLAY_CSS = `
g.node[${PAINTED}="value"] .node-item:hover > path { opacity: 0.82; }
g.node[${PAINTED}="missing"] .node-item:hover > path { opacity: 0.7; }
#${LEGEND_ID} { position: fixed; top: 8px; left: 40px; z-index: 5; max-width: 260px; padding: 6px 8px 7px;
  background: rgba(255, 255, 255, 0.94); color: #222; border: 1px solid #bbb; border-radius: 4px;
  font: 11px -apple-system, BlinkMacSystemFont, "Segoe UI", Ubuntu, "Droid Sans", sans-serif;
  box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); pointer-events: none; user-select: none; }
/* Netron's body class names the page (view.show): the legend belongs to the graph page only. */
body:not(.default) #${LEGEND_ID} { display: none; }
#${LEGEND_ID} .tlw-ov-title { font-weight: 600; margin-bottom: 4px; overflow-wrap: anywhere; }
#${LEGEND_ID} .tlw-ov-bar { height: 10px; border: 1px solid #999; border-radius: 2px; }
#${LEGEND_ID} .tlw-ov-ends { display: flex; justify-content: space-between; gap: 8px; margin-top: 1px; }
#${LEGEND_ID} .tlw-ov-missing { display: flex; align-items: center; gap: 5px; margin-top: 4px; }
#${LEGEND_ID} .tlw-ov-swatch { width: 18px; height: 10px; border: 1px solid #999; border-radius: 2px;
  background: repeating-linear-gradient(45deg, ${MISSING.fill} 0 3px, ${MISSING.hatch} 3px 4.5px); }
#${LEGEND_ID} .tlw-ov-note { margin-top: 4px; color: #555; overflow-wrap: anywhere; }
`;

/** The diagonal hatching for boxes without a value, defined inside Netron's current <svg id="canvas">
 * (view.Graph.build makes a new canvas per graph; inside it, PNG/SVG export keeps the pattern). */
function ensureHatch(): void {
  const canvas = document.getElementById("canvas");
  if (!canvas || canvas.querySelector(`#${HATCH_ID}`)) return;
  const defs = document.createElementNS(SVG_NS, "defs");
  const pattern = document.createElementNS(SVG_NS, "pattern");
  pattern.setAttribute("id", HATCH_ID);
  pattern.setAttribute("patternUnits", "userSpaceOnUse");
  pattern.setAttribute("width", "6");
  pattern.setAttribute("height", "6");
  pattern.setAttribute("patternTransform", "rotate(45)");
  const back = document.createElementNS(SVG_NS, "rect");
  back.setAttribute("width", "6");
  back.setAttribute("height", "6");
  back.setAttribute("fill", MISSING.fill);
  const line = document.createElementNS(SVG_NS, "rect");
  line.setAttribute("width", "2");
  line.setAttribute("height", "6");
  line.setAttribute("fill", MISSING.hatch);
  pattern.append(back, line);
  defs.appendChild(pattern);
  canvas.insertBefore(defs, canvas.firstChild);
}

/** The shapes of a box that carry its colour, and its texts (grapher.Node's DOM, see grapher.css). */
function boxParts(box: Element): { shapes: SVGElement[]; texts: SVGElement[] } {
  return {
    shapes: [...box.querySelectorAll<SVGElement>(":scope > .node-item > path, :scope > .node-argument-list > path")],
    texts: [...box.querySelectorAll<SVGElement>(":scope > .node-item > text, :scope > .node-argument-list text")],
  };
}

function paint(box: Element, kind: "value" | "missing", fill: string, text: string): void {
  box.setAttribute(PAINTED, kind);
  const { shapes, texts } = boxParts(box);
  // Inline styles: they beat grapher.css's category colours and survive Netron's PNG/SVG export.
  for (const shape of shapes) shape.style.setProperty("fill", fill);
  for (const label of texts) label.style.setProperty("fill", text);
}

function unpaint(box: Element): void {
  box.removeAttribute(PAINTED);
  const { shapes, texts } = boxParts(box);
  for (const element of [...shapes, ...texts]) element.style.removeProperty("fill");
}

class OverlayPainter {
  private overlay: CheckedOverlay | null = null;
  private legend: HTMLElement | null = null;

  constructor(private readonly view: NetronView) {
    const style = document.createElement("style");
    style.textContent = OVERLAY_CSS;
    document.head.appendChild(style);
  }

  set(raw: unknown): void {
    this.overlay = checkOverlay(raw);
    this.apply(this.view.target);
  }

  /** Colours (or uncolours) every box of `graph`, the graph on screen; updates the legend. */
  apply(graph: ViewGraph | null): void {
    for (const box of document.querySelectorAll(`[${PAINTED}]`)) unpaint(box);
    const overlay = this.overlay;
    if (!overlay) {
      this.legend?.remove();
      this.legend = null;
      post({ cmd: NETRON_OVERLAY_APPLIED, active: false, coloured: 0, missing: 0, offscreen: 0, dropped: 0, graph: this.graphName() } satisfies NetronOverlayAppliedMessage);
      return;
    }
    const counts: DrawnCounts = { coloured: 0, missing: 0 };
    const seen = new Set<string>();
    if (graph) {
      ensureHatch();
      this.paintGraph(graph, overlay, counts, seen, new Set());
    }
    this.showLegend(overlay, counts);
    let offscreen = 0;
    for (const name of overlay.values.keys()) if (!seen.has(name)) offscreen++;
    post({ cmd: NETRON_OVERLAY_APPLIED, active: true, ...counts, offscreen, dropped: overlay.dropped, graph: this.graphName() } satisfies NetronOverlayAppliedMessage);
  }

  private paintGraph(graph: ViewGraph, overlay: CheckedOverlay, counts: DrawnCounts, seen: Set<string>, visited: Set<ViewGraph>): void {
    if (visited.has(graph) || !(graph.nodes instanceof Map)) return;
    visited.add(graph);
    for (const { label } of graph.nodes.values()) {
      const box = label?.element;
      const name = label?.value?.name;
      // Only op and module-call boxes (view.Node, class "graph-node"). Graph inputs and outputs
      // (view.Input/Output) are named after the tensor they carry, i.e. the producing op's label:
      // colouring them would draw that op's value twice. Clusters have no `value`.
      if (!box || typeof name !== "string" || !box.classList.contains("graph-node")) continue;
      const value = overlay.values.get(name);
      if (value !== undefined) {
        const colour = nodeColour(value, overlay);
        paint(box, "value", colour.fill, colour.text);
        counts.coloured++;
        seen.add(name);
      } else {
        // No value: hatched, never the zero colour.
        paint(box, "missing", `url(#${HATCH_ID})`, MISSING.text);
        counts.missing++;
      }
      // An expanded block (view.Block) draws a sub-graph inside this box.
      for (const block of label?.blocks ?? []) if (block?.target) this.paintGraph(block.target, overlay, counts, seen, visited);
    }
  }

  private graphName(): string {
    return this.view._path.length > 1 ? (this.view.activeTarget?.name ?? "") : "";
  }

  private showLegend(overlay: CheckedOverlay, counts: DrawnCounts): void {
    const model = legendModel(overlay, counts);
    if (!this.legend) {
      this.legend = document.createElement("div");
      this.legend.id = LEGEND_ID;
      this.legend.setAttribute("role", "note");
      document.body.appendChild(this.legend);
    }
    const div = (className: string, text = ""): HTMLDivElement => {
      const element = document.createElement("div");
      element.className = className;
      element.textContent = text;
      return element;
    };
    const bar = div("tlw-ov-bar");
    bar.style.background = model.gradient;
    const ends = div("tlw-ov-ends");
    ends.append(div("tlw-ov-min", model.minText), div("tlw-ov-max", model.maxText));
    const missing = div("tlw-ov-missing");
    missing.append(div("tlw-ov-swatch"), div("tlw-ov-missing-text", model.missingText));
    const parts: HTMLElement[] = [div("tlw-ov-title", model.title), bar, ends, missing];
    if (model.coverage) parts.push(div("tlw-ov-note tlw-ov-coverage", model.coverage));
    if (model.drawn) parts.push(div("tlw-ov-note tlw-ov-drawn", model.drawn));
    this.legend.replaceChildren(...parts);
  }
}

/**
 * Calls `after(graph)` each time Netron puts a new graph on screen. view.View has a `target`
 * accessor (view.js) that render() and refresh() assign once the graph is built, measured, laid out
 * and updated: open, pushTarget/popTarget (drilling), breadcrumb clicks and block expansion all
 * pass through it. The instance gets an accessor that forwards to the prototype's.
 */
function onTargetChange(view: NetronView, after: (graph: ViewGraph) => void): void {
  let prototype: object | null = Object.getPrototypeOf(view);
  let descriptor: PropertyDescriptor | undefined;
  while (prototype && !descriptor) {
    descriptor = Object.getOwnPropertyDescriptor(prototype, "target");
    prototype = Object.getPrototypeOf(prototype);
  }
  const { get, set } = descriptor ?? {};
  if (!get || !set) {
    // Netron itself still works; only redraws (drilling, open) lose the overlay.
    post({ cmd: NETRON_FAILED, message: "Netron's view.View has no `target` accessor (unsupported netron build): the overlay is not re-applied on redraw." });
    return;
  }
  Object.defineProperty(view, "target", {
    configurable: true,
    get(this: NetronView) {
      return get.call(this);
    },
    set(this: NetronView, value: ViewGraph | null) {
      set.call(this, value);
      if (value) after(value);
    },
  });
}

class WidgetFrame {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly painter: OverlayPainter;

  constructor(private readonly view: NetronView) {
    this.painter = new OverlayPainter(view);
    onTargetChange(view, (graph) => this.painter.apply(graph));
    // Selection out: every node activation (click on a box, find sidebar, sidebar links) goes
    // through View.showNodeProperties(node, source) (view.js, view.Node.activate).
    const showNodeProperties = view.showNodeProperties.bind(view);
    view.showNodeProperties = (node, source) => {
      if (node && typeof node.name === "string" && source !== "external") {
        post({ cmd: NETRON_SELECTED, name: node.name, type: node.type?.name ?? "", source: source ?? "" });
      }
      showNodeProperties(node, source);
    };
  }

  /** Runs operations one at a time: a select must not navigate while a model is being opened. */
  private serial<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(operation, operation);
    this.queue = next.catch(() => undefined);
    return next;
  }

  open(message: NetronOpenMessage): Promise<void> {
    return this.serial(async () => {
      const started = performance.now();
      const context = (file: NetronFile) => new MemoryContext(host, file.identifier, new Uint8Array(file.bytes));
      try {
        this.view.show("welcome spinner");
        const model = await this.view.open(context(message.model));
        if (!model) throw new Error(`Netron did not recognise ${message.model.identifier} as a model.`);
        // The metrics companion: view.attach() takes a "*.json" whose signature is
        // "netron:attachment"; the node sidebar then gains METADATA and METRICS sections.
        const attached = message.attachment ? await this.view.attach(context(message.attachment)) : false;
        document.title = message.model.identifier;
        post({
          cmd: NETRON_RENDERED,
          id: message.id,
          ms: performance.now() - started,
          nodes: this.view.activeTarget?.nodes.length ?? 0,
          attached,
        });
      } catch (error) {
        post({ cmd: NETRON_FAILED, id: message.id, message: describe(error) });
        void this.view.error(error, null, "welcome"); // Netron's own alert, in the frame
      }
    });
  }

  /** Not serialised: the overlay is state; whatever graph is drawn next is coloured with it. */
  overlay(message: NetronOverlayMessage): void {
    this.painter.set(message.overlay);
  }

  select(message: NetronSelectMessage): Promise<void> {
    return this.serial(async () => {
      const name = message.name;
      const done = (ok: boolean, path: string[], error?: string) =>
        post({ cmd: NETRON_SELECT_DONE, name, ok, path, ...(error ? { error } : {}) });
      const view = this.view;
      const path = view._path;
      if (!view.model || path.length === 0) return done(false, [], "no model is open");
      const root = path[path.length - 1].target;
      const found = locate(root, name);
      if (!found) return done(false, [], `no node named '${name}' in this graph`);
      // Navigate: keep the graphs shared with the current breadcrumb, pop the rest, then drill
      // into each module call on the way down (pushTarget keeps Netron's Back button meaningful).
      const current = path.map((entry) => entry.target).reverse(); // root first
      let shared = 0;
      while (shared < current.length && shared < found.chain.length && current[shared] === found.chain[shared].target) shared++;
      while (view._path.length > Math.max(shared, 1)) await view.popTarget();
      for (let depth = Math.max(shared, 1); depth < found.chain.length; depth++) {
        const step = found.chain[depth];
        await view.pushTarget(step.target, step.call ?? undefined);
      }
      const graph = view.target;
      if (!graph) return done(false, [], "Netron has no graph on screen");
      // activate(): selects the box and opens the node sidebar (properties, METRICS).
      const elements = graph.activate(found.node, "external");
      graph.scrollTo(elements, "instant");
      done(true, found.chain.map((step) => step.call?.name ?? ""));
    });
  }
}

// ----- boot ----------------------------------------------------------------------------------------

let host: FrameHost;

/** A module worker for dagre layout, if this frame can run one; null otherwise (main-thread layout). */
async function layoutWorker(workerSource: string | null, dagreUrl: string): Promise<string | null> {
  // An opaque-origin (sandboxed) frame cannot start a *module* worker from its own blob: URLs
  // (measured in Chromium 156: an error event, no message; a classic worker from the same URL runs),
  // and Netron's worker.js is a module that imports dagre.js: do not spend the attempt.
  if (!workerSource || window.origin === "null") return null;
  // Workers do not see the document's import map: point worker.js straight at dagre's blob URL.
  const url = URL.createObjectURL(new Blob([rewriteModule(workerSource, () => dagreUrl)], { type: "text/javascript" }));
  try {
    const worker = new Worker(url, { type: "module" });
    const works = await new Promise<boolean>((resolve) => {
      const timer = window.setTimeout(() => resolve(false), 3000);
      worker.onmessage = (event: MessageEvent) => {
        window.clearTimeout(timer);
        resolve((event.data as { type?: string }).type === "dagre.layout");
      };
      worker.onerror = () => {
        window.clearTimeout(timer);
        resolve(false);
      };
      worker.postMessage({ type: "dagre.layout", nodes: [], edges: [], layout: {}, state: {} });
    });
    worker.terminate();
    return works ? url : null;
  } catch {
    return null;
  }
}

async function boot(message: NetronBootMessage): Promise<void> {
  const urls: Record<string, string> = {};
  for (const [file, text] of Object.entries(message.modules)) {
    urls[file] = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  }
  delivered = new Set(Object.keys(urls));
  const map = document.createElement("script");
  map.type = "importmap";
  map.nonce = NONCE; // an import map is an inline script to the CSP
  map.textContent = JSON.stringify(importMap(urls));
  document.head.appendChild(map);

  const [base, viewModule, workerUrl] = await Promise.all([
    load<BaseModule>(`${MODULE_PREFIX}base.js`),
    load<ViewModule>(`${MODULE_PREFIX}view.js`),
    urls["dagre.js"] ? layoutWorker(message.worker, urls["dagre.js"]) : Promise.resolve(null),
  ]);
  binaryStream = base.BinaryStream;
  host = new FrameHost(message.version, workerUrl);
  const view = new viewModule.View(host);
  await view.start();
  const frame = new WidgetFrame(view);
  window.addEventListener("message", (event: MessageEvent) => {
    if (!fromParent(event) || typeof event.data !== "object" || !event.data) return;
    const data = event.data as { cmd?: string };
    if (data.cmd === NETRON_OPEN) void frame.open(data as NetronOpenMessage);
    else if (data.cmd === NETRON_SELECT) void frame.select(data as NetronSelectMessage);
    else if (data.cmd === NETRON_OVERLAY) frame.overlay(data as NetronOverlayMessage);
  });
  post({ cmd: NETRON_READY, worker: workerUrl !== null });
}

// Links: off-page ones (About page, welcome page) would navigate the frame to the network, and
// Netron's `javascript:void(0)` buttons would run a URL (the CSP refuses it, loudly). Only in-page
// fragments follow their default; Netron's own click handlers still run.
document.addEventListener(
  "click",
  (event) => {
    const link = (event.target as Element | null)?.closest?.("a[href]");
    if (link && !(link.getAttribute("href") ?? "").startsWith("#")) event.preventDefault();
  },
  true,
);

window.addEventListener("error", (event) => post({ cmd: NETRON_FAILED, message: String(event.message || event.error) }));
window.addEventListener("unhandledrejection", (event) => post({ cmd: NETRON_FAILED, message: describe(event.reason) }));

const onBoot = (event: MessageEvent): void => {
  const data = event.data as NetronBootMessage | undefined;
  if (!fromParent(event) || !data || data.cmd !== NETRON_BOOT) return;
  window.removeEventListener("message", onBoot);
  // `start`: Netron never started in this frame, nothing will be drawn (the parent fails at once).
  boot(data).catch((error: unknown) => post({ cmd: NETRON_FAILED, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error), start: true }));
};
window.addEventListener("message", onBoot);
post({ cmd: NETRON_HELLO });
