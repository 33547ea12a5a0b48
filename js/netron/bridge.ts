// Runs Netron (its files from the installed Python package, delivered by the kernel) in a sandboxed
// srcdoc frame inside the cell, and speaks the frame host's postMessage protocol (./protocol.ts).
//
// Isolation: the frame has sandbox="allow-scripts" and so an opaque origin: it cannot reach the
// notebook's DOM, cookies, localStorage or kernel, and it cannot load the page's blob: URLs either,
// so it receives the module texts by postMessage and mints its own (frame/frame-entry.ts).
import { filesWithRole, textWithRole, type AssetBundle } from "../kernel/assets";
import { FrameBridge, type FrameMessage } from "../view/viewer-bridge";
import type { HighlightRole, NetronOverlay } from "../kernel/protocol";
import { buildFrameDocument, makeNonce, rewriteModule } from "./document";
import { checkExport, MenuExportPermit, saveFile } from "./export";
import * as frame from "./protocol";
import hostSource from "frame:./frame/frame-entry.ts";

export interface NetronModelFile {
  /** File name Netron sees, e.g. "BertModel.onnx.json" (matched as ONNX JSON). */
  identifier: string;
  bytes: Uint8Array;
}

/** The first graph the frame opens, with the overlay it is coloured by. */
export interface NetronFirstGraph {
  /** torchlens' Netron artifact (ONNX JSON), uncompressed. */
  model: NetronModelFile;
  /** torchlens' metrics companion ("netron:attachment" JSON), uncompressed. */
  attachment?: NetronModelFile;
  overlay: NetronOverlay | null;
}

export interface NetronFrameOptions {
  bundle: AssetBundle;
  /** The first graph: Netron boots while it is on its way, and opens it when it lands. */
  files: Promise<NetronFirstGraph>;
  /** Called with the Netron node name (torchlens label or module address) the user activated. */
  onSelect: (name: string) => void;
  /** Called with a sentence when the frame asked for something the page refused (e.g. a download). */
  onNotice?: (text: string) => void;
  /** The user pressed Escape inside the frame. */
  onEscape?: () => void;
}

/** What one asset bundle turns into, once per page: the document and the rewritten module texts. */
interface PreparedNetron {
  html: string;
  boot: frame.NetronBootMessage;
}

const prepared = new Map<string, PreparedNetron>();

// Netron's own welcome page shows while it starts; inside a cell its logo and links are noise.
// Netron's properties sidebar takes min(60%, 42em) of the frame and leaves the graph 40%: the graph
// keeps at least half (min-width wins over the width Netron sets on its container when it opens).
const WIDGET_CSS =
  ".logo-github, .logo-message, .open-file-button { display: none !important; }" +
  " #sidebar { max-width: 50%; } #target { min-width: 50vw; }";

function prepare(bundle: AssetBundle): PreparedNetron {
  const cached = prepared.get(bundle.key);
  if (cached) return cached;
  const decoder = new TextDecoder();
  const text = (name: string): string => decoder.decode(bundle.files.get(name));
  // In load order, as the kernel sends them.
  const modules: Record<string, string> = {};
  for (const name of filesWithRole(bundle, "module")) modules[name] = rewriteModule(text(name));
  const [workerName] = filesWithRole(bundle, "worker");
  const result: PreparedNetron = {
    html: buildFrameDocument({
      indexHtml: textWithRole(bundle, "page"),
      grapherCss: textWithRole(bundle, "style"),
      hostSource,
      extraCss: WIDGET_CSS,
      nonce: makeNonce(),
      config: { parentOrigin: window.origin },
    }),
    boot: { cmd: frame.NETRON_BOOT, modules, worker: workerName === undefined ? null : text(workerName), version: bundle.version },
  };
  prepared.set(bundle.key, result);
  return result;
}

/** A copy of the bytes in an ArrayBuffer of their own, which postMessage can transfer. */
function transferable(file: NetronModelFile): frame.NetronFile {
  return { identifier: file.identifier, bytes: file.bytes.slice().buffer as ArrayBuffer };
}

interface PendingOpen {
  started: number;
  resolve: (ms: number) => void;
  reject: (error: Error) => void;
}

export class NetronFrame extends FrameBridge {
  /** Resolves with milliseconds from frame creation to the first drawn graph; rejects if it fails. */
  readonly rendered: Promise<number>;
  private readonly created = performance.now();
  private readonly boot: frame.NetronBootMessage;
  private readonly opens = new Map<number, PendingOpen>();
  private nextId = 0;
  /** The export the widget's own "save image" button asked for (its reply downloads without a click here). */
  private exportRequest = 0;
  /** The export the user started in Netron's own menu, if the page saw the click. */
  private readonly menuExport = new MenuExportPermit();
  private ready = false;
  private queuedOpens: frame.NetronOpenMessage[] = [];
  private queuedRepaints: frame.NetronRepaintMessage[] = [];
  private overlay: NetronOverlay | null = null;
  private highlighted: string[] = [];
  private runMarks: string[] = [];
  private roles: Record<string, HighlightRole> = {};
  /** Why Netron could not start in the frame (every open fails at once from then on). */
  private startFailure: Error | null = null;

  constructor(
    container: HTMLElement,
    private readonly options: NetronFrameOptions,
  ) {
    // Sandboxed: an opaque origin, away from the notebook's DOM, cookies, storage and kernel.
    super({ title: "Netron", onSelect: options.onSelect });
    const app = prepare(options.bundle);
    this.boot = app.boot;
    this.rendered = options.files
      .then(({ model, attachment, overlay }) => {
        this.setOverlay(overlay);
        return this.request(model, attachment);
      })
      .then(() => performance.now() - this.created);
    this.rendered.catch(() => undefined); // a failure is reported to whoever awaits it, not as unhandled
    this.start(container, app.html);
  }

  /**
   * Colours the node boxes by `overlay.values` (Netron node name -> value) with a legend; null
   * clears. The frame keeps it across open() (another granularity: names not drawn are ignored)
   * and re-applies it whenever Netron redraws (drilling into or out of a module call).
   */
  setOverlay(overlay: NetronOverlay | null): void {
    this.overlay = overlay;
    if (this.ready) this.postOverlay(); // else sent on "ready"
  }

  /**
   * Marks the boxes named in `names` (Netron node names) with a dashed magenta border, or their role's
   * (`roles`); [] clears. Kept by the frame like the overlay: re-applied on every redraw, names not
   * drawn are ignored.
   */
  setHighlight(names: string[], roles: Record<string, HighlightRole> = {}): void {
    this.highlighted = [...names];
    this.roles = { ...roles };
    if (this.ready) this.postHighlight(); // else sent on "ready"
  }

  /** Borders the boxes named in `names` as ops some of a comparison's runs lack; kept like the highlight. */
  setRunMarks(names: string[]): void {
    if (names.length === 0 && this.runMarks.length === 0) return;
    this.runMarks = [...names];
    if (this.ready) this.postRunMarks(); // else sent on "ready"
  }

  /**
   * Recolours the graph on screen with `overlay` (an overlay switch: the graph is the same) and
   * attaches `attachment` to it if given (a baseline's rows changed: Netron's own attach, as for a
   * companion dropped on an open model), with no open and no layout, so zoom, drill-down and
   * selection stay; resolves with ms until painted.
   */
  repaint(overlay: NetronOverlay | null, attachment?: NetronModelFile): Promise<number> {
    this.overlay = overlay;
    if (this.startFailure) return Promise.reject(this.startFailure);
    const id = ++this.nextId;
    const done = new Promise<number>((resolve, reject) => this.opens.set(id, { started: performance.now(), resolve, reject }));
    const message: frame.NetronRepaintMessage = {
      cmd: frame.NETRON_REPAINT,
      id,
      overlay,
      attachment: attachment ? transferable(attachment) : null,
    };
    if (this.ready) this.post({ ...message }, message.attachment ? [message.attachment.bytes] : []);
    else this.queuedRepaints.push(message);
    return done;
  }

  /** Replaces the graph on screen (e.g. another granularity); resolves with ms until it is drawn. */
  open(model: NetronModelFile, attachment?: NetronModelFile): Promise<number> {
    this.forgetSelection();
    return this.request(model, attachment);
  }

  dispose(): void {
    for (const pending of this.opens.values()) pending.reject(new Error("The Netron frame was closed."));
    this.opens.clear();
    super.dispose();
  }

  /** A PNG of the graph as the frame shows it now (the picture a saved notebook keeps). */
  picture(): Promise<Blob> {
    if (!this.ready) return Promise.reject(new Error("Netron has not started"));
    return this.requestBlob(frame.NETRON_PICTURE_REQUEST);
  }

  /** Selects, reveals (drilling into module calls) and shows the properties of a node by Netron name. */
  protected postSelect(name: string): void {
    this.post({ cmd: frame.NETRON_SELECT, name } satisfies frame.NetronSelectMessage);
  }

  /** Netron's own export of the graph on screen (the widget's "save image" button was clicked). */
  exportImage(format: "png" | "svg"): void {
    this.exportRequest = ++this.nextId;
    this.post({ cmd: frame.NETRON_EXPORT_REQUEST, id: this.exportRequest, format } satisfies frame.NetronExportRequestMessage);
  }

  private request(model: NetronModelFile, attachment?: NetronModelFile): Promise<number> {
    if (this.startFailure) return Promise.reject(this.startFailure);
    const id = ++this.nextId;
    const message: frame.NetronOpenMessage = {
      cmd: frame.NETRON_OPEN,
      id,
      model: transferable(model),
      attachment: attachment ? transferable(attachment) : null,
    };
    const done = new Promise<number>((resolve, reject) => this.opens.set(id, { started: performance.now(), resolve, reject }));
    if (this.ready) this.send(message);
    else this.queuedOpens.push(message); // sent in order once Netron is up
    return done;
  }

  private send(message: frame.NetronOpenMessage): void {
    this.post({ ...message }, [message.model.bytes, ...(message.attachment ? [message.attachment.bytes] : [])]);
  }

  private postOverlay(): void {
    this.post({ cmd: frame.NETRON_OVERLAY, overlay: this.overlay } satisfies frame.NetronOverlayMessage);
  }

  private postRunMarks(): void {
    this.post({ cmd: frame.NETRON_RUN_MARKS, names: this.runMarks } satisfies frame.NetronRunMarksMessage);
  }

  private postHighlight(): void {
    this.post({ cmd: frame.NETRON_HIGHLIGHT, names: this.highlighted, roles: this.roles } satisfies frame.NetronHighlightMessage);
  }

  protected receive(message: FrameMessage): void {
    switch (message.cmd) {
      case frame.NETRON_HELLO:
        this.post({ ...this.boot });
        break;
      case frame.NETRON_READY:
        this.ready = true;
        for (const queued of this.queuedOpens.splice(0)) this.send(queued);
        for (const queued of this.queuedRepaints.splice(0)) this.post({ ...queued });
        if (this.overlay) this.postOverlay();
        if (this.highlighted.length) this.postHighlight();
        if (this.runMarks.length) this.postRunMarks();
        break;
      case frame.NETRON_RENDERED: {
        const rendered = message as unknown as frame.NetronRenderedMessage;
        this.settle(rendered.id, (pending) => pending.resolve(performance.now() - pending.started));
        this.becomeSelectable(); // a select asked for before the first graph was drawn goes now
        break;
      }
      case frame.NETRON_FAILED: {
        const failed = message as unknown as frame.NetronFailedMessage;
        this.noteStartupError(failed.message);
        if (failed.start && !this.ready) this.failStart(failed.message);
        else if (failed.id !== undefined)
          this.settle(failed.id, (pending) => pending.reject(new Error(`Netron could not open the graph: ${failed.message}`)));
        break;
      }
      case frame.NETRON_SELECTED:
        this.selectedInFrame((message as unknown as frame.NetronSelectedMessage).name);
        break;
      case frame.NETRON_EXPORT_STARTED:
        if (this.userJustClickedInFrame())
          this.menuExport.grant((message as unknown as frame.NetronExportStartedMessage).file, performance.now());
        break;
      case frame.NETRON_EXPORT:
        this.download(message as unknown as frame.NetronExportMessage);
        break;
      case frame.NETRON_PICTURE:
        this.settleBlob(message as unknown as frame.NetronPictureMessage);
        break;
      case frame.NETRON_ESCAPE:
        this.options.onEscape?.();
        break;
    }
  }

  private settle(id: number, action: (pending: PendingOpen) => void): void {
    const pending = this.opens.get(id);
    if (!pending) return;
    this.opens.delete(id);
    action(pending);
  }

  /** Netron never started: every open fails now, with the remedy, instead of at the draw time-out. */
  private failStart(message: string): void {
    this.startFailure = new Error(
      `Netron could not start in this cell: ${message}. Remedy: reinstall the netron package ` +
        `(pip install --force-reinstall "netron==${this.boot.version}") and restart the kernel, or show this ` +
        `trace in Model Explorer (explore(log, viewer="model-explorer")).`,
    );
    this.queuedOpens = [];
    for (const pending of this.opens.values()) pending.reject(this.startFailure);
    this.opens.clear();
  }

  /**
   * The frame's click is not visible to this page, but its effects are: a click in a frame activates
   * the page too (navigator.userActivation, for about 5 s in Chromium) and puts the focus on the frame element.
   */
  private userJustClickedInFrame(): boolean {
    return Boolean(navigator.userActivation?.isActive) && document.activeElement === this.iframe;
  }

  /**
   * Downloads an image Netron exported, if the user asked for it: through Netron's menu (the page saw
   * that export start with the click) or the widget's own button (its request, clicked in this page).
   */
  private download(message: frame.NetronExportMessage): void {
    const asked = this.exportRequest !== 0 && message.request === this.exportRequest;
    if (asked) this.exportRequest = 0;
    const gesture = asked || (message.request === undefined && this.menuExport.take(message.file, performance.now()));
    const verdict = checkExport(message, gesture);
    if (!verdict.ok) {
      this.options.onNotice?.(`Netron's export was not downloaded: ${verdict.reason}.`);
      return;
    }
    saveFile(verdict, message.blob);
  }
}
