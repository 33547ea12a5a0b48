// One place that knows how each viewer turns a graph reply from the kernel into a frame.
import type { AssetBundle } from "../kernel/assets";
import { gunzip, gunzipText } from "../kernel/bytes";
import type { Graph } from "./draw-inputs";
import type { FrameBridge } from "./viewer-bridge";
import { ModelExplorerFrame, type ModelExplorerGraph, type NodeDataFile } from "../model-explorer/bridge";
import { adoptParkedApp, drawStarted } from "../model-explorer/parked-app";
import { NetronFrame } from "../netron/bridge";
import { checkExport, saveFile } from "../netron/export";
import { copies, sameBytes } from "./same-bytes";
import { nodeMarks } from "../model-explorer/marks";
import { attributeChanges, type NodeAttributes, parseNodeAttributes, withNodeAttributes } from "../model-explorer/node-attributes";
import type { GraphReply, HighlightRole, NetronGraphReply, Viewer } from "../kernel/protocol";

export { VIEWER_TITLES } from "../kernel/protocol"; // where graph-drawing.ts reads it

/** What the widget needs from a viewer frame, whichever viewer it is. */
export interface ViewerFrame {
  readonly viewer: Viewer;
  /** Resolves with milliseconds until the graph is drawn. */
  readonly rendered: Promise<number>;
  readonly startupErrors: readonly string[];
  select(nodeId: string): void;
  /**
   * Marks these node ids as highlighted, those in `roles` in their role's colours, on the graph drawn:
   * Netron's frame draws a border on their boxes, Model Explorer's a rule of the app's node styler
   * (which resolves once the marks are on the canvas).
   */
  highlight(nodeIds: string[], roles: Record<string, HighlightRole>): Promise<void> | void;
  /**
   * Shows a new graph in the same frame if the viewer can (`drawn` resolves when drawn), else null.
   * Both viewers recolour in place when only the overlay changed (the graph's bytes are the ones on
   * screen); Model Explorer also sets a baseline's facts on the nodes drawn.
   */
  replace(graph: Graph): Promise<InPlace | null>;
  dispose(): void;
  /** The image formats "save image" offers for this viewer. */
  readonly imageFormats: ImageFormat[];
  /** Saves an image of the graph as the user asked in this page (a download); rejects with why not. */
  saveImage(format: ImageFormat): Promise<void>;
  /** Fits the graph to the frame, where the viewer can (after maximize or restore). */
  fit(): void;
  /** A PNG of the graph as it shows now (kept for a saved notebook reopened without a kernel). */
  picture(): Promise<Blob>;
}

export type ImageFormat = "png" | "svg";

/** A new graph shown in the frame drawn: `drawn` resolves with milliseconds until it showed. */
export interface InPlace {
  drawn: Promise<number>;
}

/** What the widget adds to a viewer frame: its image export, its fit and its picture. */
interface FrameTools {
  imageFormats: ImageFormat[];
  saveImage: (format: ImageFormat) => Promise<void>;
  fit: () => void;
  picture: () => Promise<Blob>;
}

/** A frame as the widget sees it; `replace` is what the viewer can do with a new graph in place. */
function viewerFrame(
  viewer: Viewer,
  frame: FrameBridge,
  replace: (graph: Graph) => Promise<InPlace | null>,
  tools: FrameTools,
  highlight: ViewerFrame["highlight"] = () => undefined,
  /** Ends the draws of a frame closed before it drew (the page's count of draws in flight). */
  closed: () => void = () => undefined,
): ViewerFrame {
  return {
    ...tools,
    viewer,
    get rendered() {
      return frame.rendered;
    },
    get startupErrors() {
      return frame.startupErrors;
    },
    select: (nodeId) => frame.select(nodeId),
    highlight,
    replace,
    dispose: () => {
      closed();
      frame.dispose();
    },
  };
}

async function netronFiles(reply: NetronGraphReply, buffers: DataView[]) {
  const [model, attachment] = await Promise.all(buffers.map((buffer) => gunzip(buffer)));
  return {
    model: { identifier: reply.identifier, bytes: model },
    attachment: attachment ? { identifier: reply.attachment, bytes: attachment } : undefined,
  };
}

/** What a viewer frame tells the widget. */
export interface ViewerEvents {
  onSelect: (nodeId: string) => void;
  /** Model Explorer: a WebGL context of the frame was lost, the graph is blank until redrawn. */
  onContextLost?: () => void;
  /** Something the frame asked for was refused (e.g. a Netron export without a click). */
  onNotice?: (text: string) => void;
  /** Escape was pressed inside the frame. */
  onEscape?: () => void;
}

/** The reply as `kind` expects it: a reply of another viewer than the frame's is a kernel mix-up. */
function expect<K extends GraphReply["kind"]>(reply: GraphReply, ...kinds: K[]): Extract<GraphReply, { kind: K }> {
  if (!(kinds as string[]).includes(reply.kind))
    throw new Error(`The kernel sent a ${reply.kind} graph to a ${kinds.join(" or ")} view. Re-run the cell.`);
  return reply as Extract<GraphReply, { kind: K }>;
}

/**
 * A frame for `viewer` showing `graph`. Either viewer's frame starts at once and boots while the graph
 * is on its way: Netron's opens queue until it is up; Model Explorer's app compiles meanwhile and
 * starts with its start query (the panes' labels and graph ids, from the graph) when the graph lands.
 * Where `takesParkedApp` (a start query that needs nothing from the graph), an app booted ahead is
 * taken instead, if the page has one (js/model-explorer/parked-app.ts).
 */
export function createViewer(
  viewer: Viewer,
  container: HTMLElement,
  bundle: AssetBundle,
  pendingGraph: Promise<Graph>,
  takesParkedApp: boolean,
  { onSelect, onContextLost, onNotice, onEscape }: ViewerEvents,
): ViewerFrame {
  const drawEnds = drawStarted(); // a parked app Model Explorer app boots only while no frame draws
  if (viewer === "netron") {
    const files = pendingGraph.then(async (graph) => {
      const reply = expect(graph.reply, "netron");
      return { overlay: reply.overlay, ...(await netronFiles(reply, graph.buffers)) };
    });
    // The gzipped model and companion on screen: an overlay switch sends the same bytes, and is
    // repainted in place instead of opened and laid out again.
    let shown: Uint8Array[] = [];
    void pendingGraph.then((graph) => (shown = copies(graph.buffers))).catch(() => undefined);
    const frame = new NetronFrame(container, { bundle, files, onSelect, onNotice, onEscape });
    void frame.rendered.finally(() => drawEnds()).catch(() => undefined);
    const redraws = redrawsInPlace();
    const tools: FrameTools = {
      imageFormats: ["png", "svg"],
      saveImage: async (format) => frame.exportImage(format), // downloaded when the frame answers
      fit: () => undefined, // Netron keeps its zoom; its canvas follows the frame's size
      picture: () => frame.picture(),
    };
    return viewerFrame(
      viewer,
      frame,
      async (next) => {
        const nextReply = expect(next.reply, "netron");
        const ends = redraws.started();
        if (sameBytes(shown, next.buffers)) return { drawn: frame.repaint(nextReply.overlay).finally(() => ends()) };
        if (next.buffers.length === 2 && sameBytes(shown.slice(0, 1), next.buffers.slice(0, 1))) {
          // The same model, a new companion (a baseline's rows): attached to the graph on screen.
          shown = copies(next.buffers);
          const drawn = gunzip(next.buffers[1])
            .then((bytes) => frame.repaint(nextReply.overlay, { identifier: nextReply.attachment, bytes }))
            .finally(() => ends());
          return { drawn };
        }
        shown = copies(next.buffers);
        const drawn = netronFiles(nextReply, next.buffers)
          .then(({ model, attachment }) => {
            frame.setOverlay(nextReply.overlay); // kept by the frame for the graph it opens next
            return frame.open(model, attachment);
          })
          .finally(() => ends());
        return { drawn };
      },
      tools,
      (names, roles) => frame.setHighlight(names, roles),
      () => {
        drawEnds();
        redraws.end();
      },
    );
  }
  // Both viewers' frames boot while the graph is on its way.
  let label = "graph";
  const graph = pendingGraph.then(async (shownGraph) => {
    const { graph: opened, label: named } = await modelExplorerGraph(shownGraph);
    label = named;
    return opened;
  });
  // The gzipped graphs on screen and the attributes set on their nodes: an overlay switch or a
  // baseline change sends the same graphs, and is recoloured in place.
  let shown: Uint8Array[] = [];
  let shownAttributes: NodeAttributes = {};
  void pendingGraph
    .then(async (landed) => {
      shown = copies(paneBuffers(landed));
      shownAttributes = await modelExplorerAttributes(landed);
    })
    .catch(() => undefined);
  // An app parked ahead (parked-app.ts) has booted already: it is taken where it can show this graph.
  const adopting = { graph, onSelect, onContextLost, onEscape };
  const frame =
    (takesParkedApp && adoptParkedApp(bundle, container, adopting)) || new ModelExplorerFrame(container, { bundle, ...adopting });
  void frame.rendered.finally(() => drawEnds(bundle)).catch(() => undefined);
  const redraws = redrawsInPlace();
  return viewerFrame(
    viewer,
    frame,
    async (next) => {
      // Other graphs (another trace, another granularity): a fresh frame keeps the app's view state
      // consistent with the new collection.
      if (!sameBytes(shown, paneBuffers(next))) return null;
      const attributes = await modelExplorerAttributes(next);
      const recoloured = frame.recolour(modelExplorerNodeData(next), attributeChanges(shownAttributes, attributes));
      if (!recoloured) return null;
      shownAttributes = attributes;
      const ends = redraws.started();
      return { drawn: recoloured.finally(() => ends()) };
    },
    modelExplorerTools(frame, () => label),
    (nodeIds, roles) => frame.mark(nodeMarks(nodeIds, roles)),
    () => {
      drawEnds();
      redraws.end();
    },
  );
}

/**
 * A frame's redraws in place, each counted as a draw in flight on the page (a parked Model Explorer
 * app boots only while none is): the one in flight ends when the next starts or the frame closes.
 */
function redrawsInPlace(): { started(): () => void; end(): void } {
  let ends = () => {};
  return {
    started() {
      ends();
      ends = drawStarted();
      return ends;
    },
    end: () => ends(),
  };
}

/** The buffers of a Model Explorer reply that hold its panes' graphs (the node data follow them). */
function paneBuffers({ reply, buffers }: Graph): DataView[] {
  return buffers.slice(0, reply.kind === "model-explorer-diff" ? reply.panes.length : 1);
}

/** The node data of a Model Explorer reply as JSON text (its graphs are the ones shown: not unpacked). */
async function modelExplorerNodeData({ reply: anyReply, buffers }: Graph): Promise<NodeDataFile[]> {
  const reply = expect(anyReply, "model-explorer", "model-explorer-diff");
  if (reply.kind === "model-explorer-diff") {
    const texts = await Promise.all(buffers.slice(reply.panes.length).map((buffer) => gunzipText(buffer)));
    return reply.paneNodeData.map((data, i) => ({ name: data.name, pane: data.pane, json: texts[i] }));
  }
  return reply.nodeData ? [{ name: reply.nodeData.name, json: await gunzipText(buffers[1]), pane: 0 }] : [];
}

/** The node attributes of a Model Explorer reply (a baseline's facts; none in a diff). */
async function modelExplorerAttributes({ reply, buffers }: Graph): Promise<NodeAttributes> {
  if (reply.kind !== "model-explorer" || !reply.nodeAttributes) return {};
  return parseNodeAttributes(await gunzipText(buffers[buffers.length - 1]));
}

/** A Model Explorer reply as the frame takes it: each pane's graph and node data as JSON text. */
async function modelExplorerGraph(graph: Graph): Promise<{ graph: ModelExplorerGraph; label: string }> {
  const reply = expect(graph.reply, "model-explorer", "model-explorer-diff");
  const [texts, nodeData, attributes] = await Promise.all([
    Promise.all(paneBuffers(graph).map((buffer) => gunzipText(buffer))),
    modelExplorerNodeData(graph),
    modelExplorerAttributes(graph),
  ]);
  texts[0] = withNodeAttributes(texts[0], attributes); // a diff's panes have none
  const labels = reply.kind === "model-explorer-diff" ? reply.panes.map((pane) => pane.label) : [reply.label || "graph"];
  return {
    label: reply.kind === "model-explorer-diff" ? reply.label || "diff" : labels[0],
    graph: { panes: labels.map((label, i) => ({ label, graphJson: texts[i] })), nodeData },
  };
}

/** Model Explorer's image is a PNG of its graph canvas, made in the frame and downloaded by this page. */
function modelExplorerTools(frame: ModelExplorerFrame, name: () => string): FrameTools {
  return {
    imageFormats: ["png"],
    async saveImage() {
      const blob = await frame.image();
      // The user clicked this page's own button: the same checks as a Netron export, with that gesture.
      const verdict = checkExport({ file: `${name()}.png`, blob }, true);
      if (!verdict.ok) throw new Error(verdict.reason);
      saveFile(verdict, blob);
    },
    fit: () => frame.fit(),
    picture: () => frame.image(),
  };
}
