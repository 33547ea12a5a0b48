// Netron internals, part 1 of 2: everything the frame touches of Netron's view.View, its drawn graph
// (grapher.js) and its SVG. Check this file and netron-host.ts when the netron pin moves
// (netron 9.x; pinned in pyproject). Nothing else in the frame reaches into Netron's objects.

// ----- the shapes read --------------------------------------------------------------------------------

export interface NetronType {
  name?: string;
  nodes?: NetronNode[];
}

export interface NetronNode {
  name: string;
  type?: NetronType;
}

/** A graph of the model: a module-call box's `type` holds its body as one of these. */
export interface NetronGraph {
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
export interface ViewGraph {
  activate(node: NetronNode, source: string): Element[];
  scrollTo(elements: Element[], behavior?: string): void;
  /** grapher.Graph: key -> { label } where label is the ViewNode (or a cluster: a plain object). */
  readonly nodes: Map<string, { label?: ViewNode }>;
}

/** A model file as Netron's ModelFactoryService reads it (view.js view.Context). */
export interface NetronContext {
  readonly identifier: string;
  readonly stream: unknown;
}

/** view.View (view.js). `_path` is innermost-first: `_path[0].target` is the graph on screen. */
export interface NetronView {
  readonly model: NetronModel | null;
  readonly target: ViewGraph | null;
  readonly activeTarget: NetronGraph | null;
  _path: { target: NetronGraph }[];
  start(): Promise<void>;
  show(page: string | null): void;
  open(context: NetronContext): Promise<NetronModel | undefined>;
  attach(context: NetronContext): Promise<boolean>;
  pushTarget(graph: NetronGraph, context?: NetronNode): Promise<void>;
  popTarget(): Promise<unknown>;
  showNodeProperties(node: NetronNode | null, source?: string): void;
  error(error: unknown, name: string | null, screen: string | null): Promise<void>;
  about(): void;
  /** Netron's "Export as PNG/SVG": builds the image and hands it to the host's export(). */
  export(file: string): Promise<void>;
}

export interface ViewModule {
  View: new (host: unknown) => NetronView;
}

export interface BaseModule {
  BinaryStream: new (buffer: Uint8Array) => unknown;
}

// ----- hooks into the view -----------------------------------------------------------------------------

/**
 * Calls `after(graph)` each time Netron puts a new graph on screen; false if this build has no hook.
 * view.View has a `target` accessor (view.js) that render() and refresh() assign once the graph is
 * built, measured, laid out and updated: open, pushTarget/popTarget (drilling), breadcrumb clicks
 * and block expansion all pass through it. The instance gets an accessor that forwards to the
 * prototype's.
 */
export function onTargetChange(view: NetronView, after: (graph: ViewGraph) => void): boolean {
  let prototype: object | null = Object.getPrototypeOf(view);
  let descriptor: PropertyDescriptor | undefined;
  while (prototype && !descriptor) {
    descriptor = Object.getOwnPropertyDescriptor(prototype, "target");
    prototype = Object.getPrototypeOf(prototype);
  }
  const { get, set } = descriptor ?? {};
  if (!get || !set) return false;
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
  return true;
}

/**
 * Calls `selected(node, source)` for every node the user activates: a click on a box, the find
 * sidebar, sidebar links all go through View.showNodeProperties(node, source) (view.js,
 * view.Node.activate). Activations of our own (source "external") are not reported.
 */
export function onNodeActivated(view: NetronView, selected: (node: NetronNode, source: string) => void): void {
  const showNodeProperties = view.showNodeProperties.bind(view);
  view.showNodeProperties = (node, source) => {
    if (node && typeof node.name === "string" && source !== "external") selected(node, source ?? "");
    showNodeProperties(node, source);
  };
}

// ----- navigation ------------------------------------------------------------------------------------

/** The root graph of the open model, or null when none is open. */
export function rootGraph(view: NetronView): NetronGraph | null {
  const path = view._path;
  return view.model && path.length > 0 ? path[path.length - 1].target : null;
}

/**
 * Shows the last graph of `chain` (root first, each with the module-call node that opens it):
 * keeps the graphs shared with the current breadcrumb, pops the rest, then drills into each module
 * call on the way down (pushTarget keeps Netron's Back button meaningful).
 */
export async function showChain(view: NetronView, chain: { target: NetronGraph; call: NetronNode | null }[]): Promise<void> {
  const current = view._path.map((entry) => entry.target).reverse(); // root first
  let shared = 0;
  while (shared < current.length && shared < chain.length && current[shared] === chain[shared].target) shared++;
  while (view._path.length > Math.max(shared, 1)) await view.popTarget();
  for (let depth = Math.max(shared, 1); depth < chain.length; depth++) {
    const step = chain[depth];
    await view.pushTarget(step.target, step.call ?? undefined);
  }
}

/** Selects `node` on the graph on screen, opens its sidebar (properties, METRICS) and scrolls to it. */
export function activate(view: NetronView, node: NetronNode): boolean {
  const graph = view.target;
  if (!graph) return false;
  const elements = graph.activate(node, "external");
  graph.scrollTo(elements, "instant");
  return true;
}

// ----- the drawn boxes ---------------------------------------------------------------------------------

/** An op or module-call box on screen: its Netron node name and its SVG <g>. */
export interface DrawnBox {
  name: string;
  element: Element;
}

/**
 * Every op and module-call box of `graph`, the graph on screen, and of the sub-graphs drawn inside
 * its expanded blocks. Only view.Node boxes (class "graph-node"): graph inputs and outputs
 * (view.Input/Output) are named after the tensor they carry, i.e. the producing op's label, and
 * clusters have no `value`.
 */
export function drawnBoxes(graph: ViewGraph): DrawnBox[] {
  const boxes: DrawnBox[] = [];
  const visited = new Set<ViewGraph>();
  const visit = (current: ViewGraph): void => {
    if (visited.has(current) || !(current.nodes instanceof Map)) return;
    visited.add(current);
    for (const { label } of current.nodes.values()) {
      const element = label?.element;
      const name = label?.value?.name;
      if (!element || typeof name !== "string" || !element.classList.contains("graph-node")) continue;
      boxes.push({ name, element });
      // An expanded block (view.Block) draws a sub-graph inside this box.
      for (const block of label?.blocks ?? []) if (block?.target) visit(block.target);
    }
  };
  visit(graph);
  return boxes;
}

/** The shapes of a box that carry its colour, and its texts (grapher.Node's DOM, see grapher.css). */
export function boxParts(box: Element): { shapes: SVGElement[]; texts: SVGElement[] } {
  return {
    shapes: [...box.querySelectorAll<SVGElement>(":scope > .node-item > path, :scope > .node-argument-list > path")],
    texts: [...box.querySelectorAll<SVGElement>(":scope > .node-item > text, :scope > .node-argument-list text")],
  };
}

/** Netron's current <svg id="canvas"> (view.Graph.build makes a new one per graph). */
export function graphCanvas(): Element | null {
  return document.getElementById("canvas");
}
