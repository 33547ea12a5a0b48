// One place that knows how each viewer turns a graph reply from the kernel into a frame.
import type { AssetBundle } from "./assets";
import { gunzip, gunzipText } from "./bytes";
import type { Response } from "./channel";
import { ModelExplorerFrame } from "./model-explorer/bridge";
import { NetronFrame } from "./netron/bridge";
import type { NetronOverlay } from "./netron/protocol";

export const VIEWER_TITLES: Record<string, string> = { "model-explorer": "Model Explorer", netron: "Netron" };

/** What the widget needs from a viewer frame, whichever viewer it is. */
export interface ViewerFrame {
  readonly viewer: string;
  /** Resolves with milliseconds until the graph is drawn. */
  readonly rendered: Promise<number>;
  readonly startupErrors: readonly string[];
  select(nodeId: string): void;
  /** Shows a new graph in the same frame if the viewer can (resolves when drawn), else null. */
  replace(graph: Response<GraphHeader>): Promise<number> | null;
  dispose(): void;
}

export interface GraphHeader {
  label?: string;
  /** Model Explorer: the overlay's node data travels in the second buffer. */
  nodeData?: { name: string };
  /** Diff: one entry per pane; buffers = the pane collections, then one node-data file per paneNodeData. */
  panes?: { label: string }[];
  paneNodeData?: { name: string; pane: number }[];
  /** Netron: the overlay, keyed by Netron node name (our host colours the boxes). */
  overlay?: NetronOverlay | null;
  identifier?: string;
  attachment?: string;
  warnings?: string[];
}

class ModelExplorerViewer implements ViewerFrame {
  readonly viewer = "model-explorer";
  constructor(private readonly frame: ModelExplorerFrame) {}
  get rendered() {
    return this.frame.rendered;
  }
  get startupErrors() {
    return this.frame.startupErrors;
  }
  select(nodeId: string) {
    this.frame.select(nodeId);
  }
  replace(): null {
    return null; // a fresh frame keeps the app's view state consistent with the new collection
  }
  dispose() {
    this.frame.dispose();
  }
}

async function netronFiles(graph: Response<GraphHeader>) {
  const [model, attachment] = await Promise.all(graph.buffers.map((buffer) => gunzip(buffer)));
  return {
    model: { identifier: graph.result.identifier ?? "model.onnx.json", bytes: model },
    attachment: attachment ? { identifier: graph.result.attachment ?? "model.attachment.json", bytes: attachment } : undefined,
  };
}

class NetronViewer implements ViewerFrame {
  readonly viewer = "netron";
  constructor(private readonly frame: NetronFrame) {}
  get rendered() {
    return this.frame.rendered;
  }
  get startupErrors() {
    return this.frame.startupErrors;
  }
  select(nodeId: string) {
    this.frame.select(nodeId);
  }
  replace(graph: Response<GraphHeader>): Promise<number> {
    return netronFiles(graph).then(({ model, attachment }) => {
      this.frame.setOverlay(graph.result.overlay ?? null); // kept by the frame for the graph it opens next
      return this.frame.open(model, attachment);
    });
  }
  dispose() {
    this.frame.dispose();
  }
}

/** What a viewer frame tells the widget. */
export interface ViewerEvents {
  onSelect: (nodeId: string) => void;
  /** Model Explorer: a WebGL context of the frame was lost, the graph is blank until redrawn. */
  onContextLost?: () => void;
  /** Something the frame asked for was refused (e.g. a Netron export without a click). */
  onNotice?: (text: string) => void;
}

export async function createViewer(
  viewer: string,
  container: HTMLElement,
  bundle: AssetBundle,
  graph: Response<GraphHeader>,
  { onSelect, onContextLost, onNotice }: ViewerEvents,
): Promise<ViewerFrame> {
  if (viewer === "netron") {
    const { model, attachment } = await netronFiles(graph);
    const frame = new NetronFrame(container, { bundle, model, attachment, onSelect, onNotice });
    frame.setOverlay(graph.result.overlay ?? null);
    return new NetronViewer(frame);
  }
  const texts = await Promise.all(graph.buffers.map((buffer) => gunzipText(buffer)));
  if (graph.result.panes) {
    const count = graph.result.panes.length;
    const panes = graph.result.panes.map((pane, i) => ({ label: pane.label, graphJson: texts[i] }));
    const nodeData = (graph.result.paneNodeData ?? []).map((data, i) => ({ name: data.name, pane: data.pane, json: texts[count + i] }));
    return new ModelExplorerViewer(new ModelExplorerFrame(container, { bundle, panes, nodeData, onSelect, onContextLost }));
  }
  const [graphJson, nodeDataJson] = texts;
  const nodeData = graph.result.nodeData && nodeDataJson ? [{ name: graph.result.nodeData.name, json: nodeDataJson, pane: 0 }] : [];
  return new ModelExplorerViewer(
    new ModelExplorerFrame(container, {
      bundle,
      panes: [{ label: graph.result.label ?? "graph", graphJson }],
      nodeData,
      onSelect,
      onContextLost,
    }),
  );
}
