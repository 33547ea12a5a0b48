// One place that knows how each viewer turns a graph reply from the kernel into a frame.
import type { AssetBundle } from "../kernel/assets";
import { gunzip, gunzipText } from "../kernel/bytes";
import { unpackedTexts } from "../kernel/unpacked-texts";
import type { Graph } from "./draw-inputs";
import type { FrameBridge } from "./viewer-bridge";
import { ModelExplorerFrame, type ModelExplorerGraph, type NodeDataFile } from "../model-explorer/bridge";
import { adoptParkedApp, drawStarted } from "../model-explorer/parked-app";
import { NetronFrame } from "../netron/bridge";
import { checkExport, saveFile } from "../netron/export";
import { copies, sameBytes } from "./same-bytes";
import { nodeMarks } from "../model-explorer/marks";
import { attributeChanges, type NodeAttributes, parseNodeAttributes, withNodeAttributes } from "../model-explorer/node-attributes";
import type { ColoursReply, GraphReply, HighlightRole, NetronColours, NetronGraphReply, Viewer } from "../kernel/protocol";

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
   * Shows a new graph in the same frame if the viewer can (`drawn` resolves when drawn), else null:
   * Netron opens it in its frame; either viewer recolours in place a graph whose bytes are the ones on
   * screen.
   */
  replace(graph: Graph): Promise<InPlace | null>;
  /** The colours shown: their `_colour_rev`, and the key of the node facts (sent again only if new). */
  readonly colours: { colourRev: number; facts: string };
  /**
   * Repaints the graph drawn with new colours (an overlay, a baseline's facts, a run shown), resolving
   * with milliseconds until painted; null when the frame cannot (it has not drawn): drawn again then.
   */
  recolour(colours: Colours): Promise<number> | null;
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

/** A `colours` reply, checked, with its buffers (gzip). */
export interface Colours {
  reply: ColoursReply;
  buffers: DataView[];
}

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

/** How one viewer changes what its frame shows: another graph, or new colours on the one drawn. */
interface InPlaceChanges {
  replace: (graph: Graph) => Promise<InPlace | null>;
  recolour: (colours: Colours) => Promise<number> | null;
  colours: () => { colourRev: number; facts: string };
}

/** A frame as the widget sees it; `changes` is what the viewer can do in place. */
function viewerFrame(
  viewer: Viewer,
  frame: FrameBridge,
  changes: InPlaceChanges,
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
    get colours() {
      return changes.colours();
    },
    select: (nodeId) => frame.select(nodeId),
    highlight,
    replace: changes.replace,
    recolour: changes.recolour,
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
    attachment: attachment ? { identifier: reply.colours.attachment, bytes: attachment } : undefined,
  };
}

/** The metrics companion a Netron colours reply sends (none: the frame's stays). */
async function netronCompanion(colours: NetronColours, buffers: DataView[]) {
  return colours.attachment === null ? undefined : { identifier: colours.attachment, bytes: await gunzip(buffers[0]) };
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
function expect<R extends GraphReply | ColoursReply, K extends R["kind"]>(reply: R, ...kinds: K[]): Extract<R, { kind: K }> {
  if (!(kinds as string[]).includes(reply.kind))
    throw new Error(`The kernel sent a ${reply.kind} graph to a ${kinds.join(" or ")} view. Re-run the cell.`);
  return reply as Extract<R, { kind: K }>;
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
  const redraws = redrawsInPlace();
  const closed = () => {
    drawEnds();
    redraws.end();
  };
  if (viewer === "netron") {
    const files = pendingGraph.then(async (graph) => {
      const reply = expect(graph.reply, "netron");
      return { overlay: reply.colours.overlay, ...(await netronFiles(reply, graph.buffers)) };
    });
    // The gzipped model on screen (a new graph revision with the same model is recoloured in place),
    // and its colours.
    let shown: Uint8Array[] = [];
    let colours = { colourRev: 0, facts: "" };
    void pendingGraph
      .then((graph) => {
        shown = copies(graph.buffers.slice(0, 1));
        const reply = expect(graph.reply, "netron");
        colours = shownColours(reply.colours);
        frame.setRunMarks(reply.marked);
      })
      .catch(() => undefined);
    const frame = new NetronFrame(container, { bundle, files, onSelect, onNotice, onEscape });
    void frame.rendered.finally(() => drawEnds()).catch(() => undefined);
    const tools: FrameTools = {
      imageFormats: ["png", "svg"],
      saveImage: async (format) => frame.exportImage(format), // downloaded when the frame answers
      fit: () => undefined, // Netron keeps its zoom; its canvas follows the frame's size
      picture: () => frame.picture(),
    };
    const recolour = ({ reply, buffers }: Colours): Promise<number> => {
      const next = expect(reply, "netron");
      const ends = redraws.started();
      return netronCompanion(next, buffers)
        .then((companion) => frame.repaint(next.overlay, companion))
        .then((ms) => {
          colours = shownColours(next);
          return ms;
        })
        .finally(() => ends());
    };
    const replace = async (next: Graph): Promise<InPlace> => {
      const nextReply = expect(next.reply, "netron");
      if (sameBytes(shown, next.buffers.slice(0, 1))) return { drawn: recolour(graphColours(next)!) };
      const ends = redraws.started();
      shown = copies(next.buffers.slice(0, 1));
      const drawn = netronFiles(nextReply, next.buffers)
        .then(({ model, attachment }) => {
          frame.setOverlay(nextReply.colours.overlay); // kept by the frame for the graph it opens next
          frame.setRunMarks(nextReply.marked);
          return frame.open(model, attachment);
        })
        .then((ms) => {
          colours = shownColours(nextReply.colours);
          return ms;
        })
        .finally(() => ends());
      return { drawn };
    };
    return viewerFrame(
      viewer,
      frame,
      { replace, recolour, colours: () => colours },
      tools,
      (names, roles) => frame.setHighlight(names, roles),
      closed,
    );
  }
  // Both viewers' frames boot while the graph is on its way.
  let label = "graph";
  const graph = pendingGraph.then(async (shownGraph) => {
    const { graph: opened, label: named } = await modelExplorerGraph(shownGraph);
    label = named;
    return opened;
  });
  // The gzipped graphs on screen (a new graph revision with the same graphs is recoloured in place),
  // and the colours and node attributes set on their nodes.
  let shown: Uint8Array[] = [];
  let shownAttributes: NodeAttributes = {};
  let colours = { colourRev: 0, facts: "" };
  void pendingGraph
    .then(async (landed) => {
      shown = copies(paneBuffers(landed));
      const landedColours = graphColours(landed);
      if (!landedColours) return; // a diff: its colours never change
      shownAttributes = await modelExplorerAttributes(landedColours, {});
      colours = shownColours(landedColours.reply);
    })
    .catch(() => undefined);
  // An app parked ahead (parked-app.ts) has booted already: it is taken where it can show this graph.
  const adopting = { graph, onSelect, onContextLost, onEscape };
  const frame =
    (takesParkedApp && adoptParkedApp(bundle, container, adopting)) || new ModelExplorerFrame(container, { bundle, ...adopting });
  void frame.rendered.finally(() => drawEnds(bundle)).catch(() => undefined);
  const recolour = (next: Colours): Promise<number> | null => {
    const reply = expect(next.reply, "model-explorer");
    // Unpacked before the frame is asked: a reply that fails to unpack leaves the colours shown as they are.
    const unpacked = Promise.all([modelExplorerNodeData(next), modelExplorerAttributes(next, shownAttributes)]);
    const recoloured = frame.recolour(
      unpacked.then(([files, attributes]) => ({ files, attributes: attributeChanges(shownAttributes, attributes) })),
    );
    if (!recoloured) return null;
    const ends = redraws.started();
    return recoloured
      .then(async (ms) => {
        shownAttributes = (await unpacked)[1];
        colours = shownColours(reply);
        return ms;
      })
      .finally(() => ends());
  };
  return viewerFrame(
    viewer,
    frame,
    {
      replace: async (next) => {
        // Other graphs (another trace, another granularity): a fresh frame keeps the app's view state
        // consistent with the new collection.
        const nextColours = graphColours(next);
        if (!nextColours || !sameBytes(shown, paneBuffers(next))) return null;
        const drawn = recolour(nextColours);
        return drawn && { drawn };
      },
      recolour,
      colours: () => colours,
    },
    modelExplorerTools(frame, () => label),
    (nodeIds, roles) => frame.mark(nodeMarks(nodeIds, roles)),
    closed,
  );
}

/** What the view records of colours it shows. */
function shownColours(reply: ColoursReply): { colourRev: number; facts: string } {
  return { colourRev: reply.colourRev, facts: reply.facts };
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

/** The colours of a graph reply, as a colours reply: their buffers follow the graph's one (a diff has none to change). */
function graphColours({ reply, buffers }: Graph): Colours | null {
  return reply.kind === "model-explorer-diff" ? null : { reply: reply.colours, buffers: buffers.slice(1) };
}

/** The overlay's node data of Model Explorer colours as JSON text ([]: no overlay). */
async function modelExplorerNodeData({ reply: anyReply, buffers }: Colours): Promise<NodeDataFile[]> {
  const reply = expect(anyReply, "model-explorer");
  if (!reply.nodeData) return [];
  const { name, key } = reply.nodeData;
  return [{ name, key, json: await unpackedTexts.text(key, buffers[0]), pane: 0 }];
}

/**
 * The node attributes Model Explorer colours set (a baseline's facts, a comparison's missing runs):
 * the ones sent, else `shown` while their key is the one shown, else none.
 */
async function modelExplorerAttributes({ reply: anyReply, buffers }: Colours, shown: NodeAttributes): Promise<NodeAttributes> {
  const reply = expect(anyReply, "model-explorer");
  // `facts` is a key of these bytes: a baseline set again is not unpacked again.
  if (reply.nodeAttributes) return parseNodeAttributes(await unpackedTexts.text(reply.facts, buffers[buffers.length - 1]));
  return reply.facts ? shown : {};
}

/** A Model Explorer reply as the frame takes it: each pane's graph and node data as JSON text. */
async function modelExplorerGraph(graph: Graph): Promise<{ graph: ModelExplorerGraph; label: string }> {
  const reply = expect(graph.reply, "model-explorer", "model-explorer-diff");
  if (reply.kind === "model-explorer-diff") {
    const texts = await Promise.all(graph.buffers.map((buffer) => gunzipText(buffer)));
    const panes = reply.panes.map((pane, i) => ({ label: pane.label, graphJson: texts[i] }));
    const nodeData = reply.paneNodeData.map((data, i) => ({
      name: data.name,
      key: "",
      pane: data.pane,
      json: texts[reply.panes.length + i],
    }));
    return { label: reply.label || "diff", graph: { panes, nodeData } };
  }
  const colours = graphColours(graph)!;
  const [text, nodeData, attributes] = await Promise.all([
    gunzipText(graph.buffers[0]),
    modelExplorerNodeData(colours),
    modelExplorerAttributes(colours, {}),
  ]);
  const label = reply.label || "graph";
  return { label, graph: { panes: [{ label, graphJson: withNodeAttributes(text, attributes) }], nodeData } };
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
