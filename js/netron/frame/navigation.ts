// Inside the Netron frame: what the widget asks of Netron, one operation at a time. Open a model from
// memory, select a node by name (finding it in the module-call bodies and drilling down to it), and
// keep the overlay on whatever graph is on screen. Selections the user makes go out to the parent.
import { errorText } from "../../shared/error-text";
import { post } from "./frame-messages";
import type { FrameHost } from "./netron-host";
import {
  activate,
  onNodeActivated,
  onTargetChange,
  rootGraph,
  showChain,
  type NetronGraph,
  type NetronNode,
  type NetronView,
  type ViewGraph,
} from "./netron-view";
import { HighlightPainter, RunMarkPainter } from "./highlighter";
import { OverlayPainter } from "./painter";
import {
  NETRON_EXPORT_REQUEST,
  NETRON_FAILED,
  NETRON_HIGHLIGHT,
  NETRON_RUN_MARKS,
  NETRON_OPEN,
  NETRON_OVERLAY,
  NETRON_PICTURE,
  NETRON_PICTURE_REQUEST,
  NETRON_RENDERED,
  NETRON_REPAINT,
  NETRON_SELECT,
  NETRON_SELECTED,
  type NetronExportRequestMessage,
  type NetronHighlightMessage,
  type NetronRunMarksMessage,
  type NetronOpenMessage,
  type NetronOverlayMessage,
  type NetronPictureRequestMessage,
  type NetronRepaintMessage,
  type NetronSelectMessage,
} from "../protocol";
import { nextPaint } from "../../frame/frame-manners";
import { viewportPicture } from "./picture";

interface Located {
  node: NetronNode;
  /** Root first: each graph to show on the way, with the module-call node that opens it. */
  chain: { target: NetronGraph; call: NetronNode | null }[];
}

/** Finds a node by name from the root graph down through module-call (function) bodies. */
export function locate(root: NetronGraph, name: string): Located | null {
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

export class WidgetFrame {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly painter = new OverlayPainter();
  private readonly runMarks = new RunMarkPainter(); // before the highlighter: its rules come first
  private readonly highlighter = new HighlightPainter();

  constructor(
    private readonly view: NetronView,
    private readonly host: FrameHost,
  ) {
    const redrawn = (graph: ViewGraph) => {
      this.painter.apply(graph);
      this.runMarks.apply(graph);
      this.highlighter.apply(graph);
    };
    if (!onTargetChange(view, redrawn)) {
      // Netron itself still works; only redraws (drilling, open) lose the overlay.
      post({
        cmd: NETRON_FAILED,
        message:
          "Netron's view.View has no `target` accessor (unsupported netron build): the overlay and highlight are not re-applied on redraw.",
      });
    }
    onNodeActivated(view, (node, source) => post({ cmd: NETRON_SELECTED, name: node.name, type: node.type?.name ?? "", source }));
  }

  /** Hands a message from the parent to its operation (a message of no known `cmd` is ignored). */
  receive(data: unknown): void {
    if (typeof data !== "object" || !data) return;
    const message = data as { cmd?: string };
    if (message.cmd === NETRON_OPEN) void this.open(message as NetronOpenMessage);
    else if (message.cmd === NETRON_SELECT) void this.select(message as NetronSelectMessage);
    else if (message.cmd === NETRON_OVERLAY) this.overlay(message as NetronOverlayMessage);
    else if (message.cmd === NETRON_REPAINT) void this.repaint(message as NetronRepaintMessage);
    else if (message.cmd === NETRON_EXPORT_REQUEST) void this.exportImage(message as NetronExportRequestMessage);
    else if (message.cmd === NETRON_HIGHLIGHT) this.highlight(message as NetronHighlightMessage);
    else if (message.cmd === NETRON_RUN_MARKS) this.runMarks.set((message as NetronRunMarksMessage).names, this.view.target);
    else if (message.cmd === NETRON_PICTURE_REQUEST) void this.picture(message as NetronPictureRequestMessage);
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
      try {
        this.view.show("welcome spinner");
        const model = await this.view.open(this.host.context(message.model));
        if (!model) throw new Error(`Netron did not recognise ${message.model.identifier} as a model.`);
        // The metrics companion: view.attach() takes a "*.json" whose signature is
        // "netron:attachment"; the node sidebar then gains METADATA and METRICS sections.
        const attached = message.attachment ? await this.view.attach(this.host.context(message.attachment)) : false;
        document.title = message.model.identifier;
        await nextPaint(); // drawn means painted: the page's "ready" never stands over an unpainted frame
        post({
          cmd: NETRON_RENDERED,
          id: message.id,
          ms: performance.now() - started,
          nodes: this.view.activeTarget?.nodes.length ?? 0,
          attached,
        });
      } catch (error) {
        post({ cmd: NETRON_FAILED, id: message.id, message: errorText(error) });
        void this.view.error(error, null, "welcome"); // Netron's own alert, in the frame
      }
    });
  }

  /** Not serialised: the overlay is state; whatever graph is drawn next is coloured with it. */
  overlay(message: NetronOverlayMessage): void {
    this.painter.set(message.overlay, this.view.target);
  }

  /**
   * Recolours the graph on screen (after any open in flight), and attaches its new companion if sent,
   * keeping its layout, zoom and selection (the sidebar shows the new rows from the next selection on).
   */
  repaint(message: NetronRepaintMessage): Promise<void> {
    return this.serial(async () => {
      const started = performance.now();
      if (message.attachment && !(await this.view.attach(this.host.context(message.attachment)))) {
        post({ cmd: NETRON_FAILED, id: message.id, message: `Netron did not take ${message.attachment.identifier} as a companion.` });
        return;
      }
      this.painter.set(message.overlay, this.view.target);
      await nextPaint(); // drawn means painted, as for an open
      const nodes = this.view.activeTarget?.nodes.length ?? 0;
      post({ cmd: NETRON_RENDERED, id: message.id, ms: performance.now() - started, nodes, attached: true, inPlace: true });
    });
  }

  /** Netron's own image export of the graph on screen, answering the parent's request `id`. */
  exportImage(message: NetronExportRequestMessage): Promise<void> {
    return this.serial(async () => {
      if (!this.view.activeTarget) return;
      this.host.exportRequest = message.id;
      try {
        await this.view.export(`${document.title || "graph"}.${message.format}`);
      } finally {
        this.host.exportRequest = null;
      }
    });
  }

  /** A PNG of the graph on screen, answering the parent's request `id` (after any open or select). */
  picture(message: NetronPictureRequestMessage): Promise<void> {
    return this.serial(async () => {
      try {
        post({ cmd: NETRON_PICTURE, id: message.id, blob: await viewportPicture() });
      } catch (error) {
        post({ cmd: NETRON_PICTURE, id: message.id, blob: null, error: errorText(error) });
      }
    });
  }

  /** Not serialised either: the highlighted names are state, marked on every graph drawn. */
  highlight(message: NetronHighlightMessage): void {
    this.highlighter.set(message.names, message.roles, this.view.target);
  }

  /** Selects a node by name (a name not in the model is ignored: the parent's selection stays). */
  select(message: NetronSelectMessage): Promise<void> {
    return this.serial(async () => {
      const root = rootGraph(this.view);
      const found = root && locate(root, message.name);
      if (!found) return;
      await showChain(this.view, found.chain);
      activate(this.view, found.node);
    });
  }
}
