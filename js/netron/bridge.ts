// Runs Netron (its files from the installed Python package, delivered by the kernel) in a sandboxed
// srcdoc frame inside the cell, and speaks the frame host's postMessage protocol (./protocol.ts).
//
// Isolation: the frame has sandbox="allow-scripts" and so an opaque origin: it cannot reach the
// notebook's DOM, cookies, localStorage or kernel, and it cannot load the page's blob: URLs either,
// so it receives the module texts by postMessage and mints its own (frame-host.ts).
import type { AssetBundle } from "../assets";
import { buildFrameDocument, makeNonce, NETRON_MODULES, netronVersion, rewriteModule } from "./document";
import { checkExport } from "./export";
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
  type NetronExportMessage,
  type NetronFailedMessage,
  type NetronFile,
  type NetronOpenMessage,
  type NetronOverlay,
  type NetronOverlayAppliedMessage,
  type NetronOverlayMessage,
  type NetronRenderedMessage,
  type NetronSelectDoneMessage,
  type NetronSelectedMessage,
} from "./protocol";
import hostSource from "frame:./frame-host.ts";

export interface NetronModelFile {
  /** File name Netron sees, e.g. "BertModel.onnx.json" (matched as ONNX JSON). */
  identifier: string;
  bytes: Uint8Array;
}

export interface NetronFrameOptions {
  bundle: AssetBundle;
  /** torchlens' Netron artifact (ONNX JSON), uncompressed. */
  model: NetronModelFile;
  /** torchlens' metrics companion ("netron:attachment" JSON), uncompressed. */
  attachment?: NetronModelFile;
  /** Called with the Netron node name (torchlens label or module address) the user activated. */
  onSelect: (name: string) => void;
  /** Called with a sentence when the frame asked for something the page refused (e.g. a download). */
  onNotice?: (text: string) => void;
  /** Called each time the frame (re)colours the graph on screen with the overlay (or clears it). */
  onOverlayApplied?: (result: NetronOverlayAppliedMessage) => void;
  /**
   * Isolate the frame from the notebook's origin (sandbox="allow-scripts"). Default true; false
   * gives a same-origin srcdoc frame, for hosts that refuse sandboxed frames.
   */
  sandbox?: boolean;
}

/** What one asset bundle turns into, once per page: the document and the rewritten module texts. */
interface PreparedNetron {
  html: string;
  boot: NetronBootMessage;
}

const prepared = new Map<string, PreparedNetron>();

// Netron's own welcome page shows while it starts; inside a cell its logo and links are noise.
const WIDGET_CSS = ".logo-github, .logo-message, .open-file-button { display: none !important; }";

function prepare(bundle: AssetBundle): PreparedNetron {
  const cached = prepared.get(bundle.key);
  if (cached) return cached;
  const decoder = new TextDecoder();
  const text = (name: string): string => {
    const data = bundle.files.get(name);
    if (!data) throw new Error(`The Netron bundle lacks ${name}. Reinstall netron (see the kernel's message).`);
    return decoder.decode(data);
  };
  const indexHtml = text("index.html");
  const modules: Record<string, string> = {};
  for (const name of NETRON_MODULES) modules[name] = rewriteModule(text(name));
  const worker = bundle.files.has("worker.js") ? text("worker.js") : null;
  const result: PreparedNetron = {
    html: buildFrameDocument({
      indexHtml,
      grapherCss: text("grapher.css"),
      hostSource,
      extraCss: WIDGET_CSS,
      nonce: makeNonce(),
      config: { parentOrigin: window.origin },
    }),
    boot: { cmd: NETRON_BOOT, modules, worker, version: netronVersion(indexHtml) },
  };
  prepared.set(bundle.key, result);
  return result;
}

/** A copy of the bytes in an ArrayBuffer of their own, which postMessage can transfer. */
function transferable(file: NetronModelFile): NetronFile {
  return { identifier: file.identifier, bytes: file.bytes.slice().buffer as ArrayBuffer };
}

interface PendingOpen {
  started: number;
  resolve: (ms: number) => void;
  reject: (error: Error) => void;
}

export class NetronFrame {
  readonly iframe: HTMLIFrameElement;
  /** Resolves with milliseconds from frame creation to the first drawn graph; rejects if it fails. */
  readonly rendered: Promise<number>;
  /** Whether the frame lays out in a worker (known once it is ready). */
  workerLayout = false;
  private readonly created = performance.now();
  private readonly boot: NetronBootMessage;
  private readonly errors: string[] = [];
  private readonly opens = new Map<number, PendingOpen>();
  private readonly reveals = new Map<string, ((result: NetronSelectDoneMessage) => void)[]>();
  private readonly onMessage = (event: MessageEvent) => this.receive(event);
  private nextId = 0;
  private ready = false;
  private drawn = false;
  private lastSelected = "";
  private pendingSelect = "";
  private queuedOpens: NetronOpenMessage[] = [];
  private overlay: NetronOverlay | null = null;
  private overlayResult: NetronOverlayAppliedMessage | null = null;
  /** Why Netron could not start in the frame (every open fails at once from then on). */
  private startFailure: Error | null = null;

  constructor(container: HTMLElement, private readonly options: NetronFrameOptions) {
    const app = prepare(options.bundle);
    this.boot = app.boot;
    this.rendered = this.request(options.model, options.attachment).then(() => performance.now() - this.created);
    this.rendered.catch(() => undefined); // a failure is reported to whoever awaits it, not as unhandled
    this.iframe = document.createElement("iframe");
    this.iframe.className = "tlw-frame";
    this.iframe.title = "Netron";
    if (options.sandbox !== false) this.iframe.setAttribute("sandbox", "allow-scripts");
    window.addEventListener("message", this.onMessage);
    this.iframe.srcdoc = app.html;
    container.appendChild(this.iframe);
  }

  /** The origin the frame's messages carry: opaque when sandboxed, else this page's. */
  private get frameOrigin(): string {
    return this.options.sandbox === false ? window.origin : "null";
  }

  /** Errors Netron reported (shown if it never draws). */
  get startupErrors(): readonly string[] {
    return this.errors;
  }

  /** Select, reveal (drilling into module calls) and show the properties of a node by Netron name. */
  select(name: string): void {
    if (!name || name === this.lastSelected) return;
    if (!this.drawn) {
      this.pendingSelect = name; // applied once the graph is drawn
      return;
    }
    void this.reveal(name);
  }

  /** Like select(), and says whether the node was found and which module calls lead to it. */
  reveal(name: string): Promise<NetronSelectDoneMessage> {
    this.lastSelected = name;
    return new Promise((resolve) => {
      const waiting = this.reveals.get(name) ?? [];
      waiting.push(resolve);
      this.reveals.set(name, waiting);
      this.post({ cmd: NETRON_SELECT, name });
    });
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

  /** What the frame reported for the last overlay it applied (null before the first report). */
  get overlayApplied(): NetronOverlayAppliedMessage | null {
    return this.overlayResult;
  }

  /** Replaces the graph on screen (e.g. another granularity); resolves with ms until it is drawn. */
  open(model: NetronModelFile, attachment?: NetronModelFile): Promise<number> {
    this.lastSelected = "";
    return this.request(model, attachment);
  }

  dispose(): void {
    window.removeEventListener("message", this.onMessage);
    for (const pending of this.opens.values()) pending.reject(new Error("The Netron frame was closed."));
    this.opens.clear();
    this.iframe.remove();
  }

  private request(model: NetronModelFile, attachment?: NetronModelFile): Promise<number> {
    if (this.startFailure) return Promise.reject(this.startFailure);
    const id = ++this.nextId;
    const message: NetronOpenMessage = {
      cmd: NETRON_OPEN,
      id,
      model: transferable(model),
      attachment: attachment ? transferable(attachment) : null,
    };
    const done = new Promise<number>((resolve, reject) => this.opens.set(id, { started: performance.now(), resolve, reject }));
    if (this.ready) this.send(message);
    else this.queuedOpens.push(message); // sent in order once Netron is up
    return done;
  }

  private send(message: NetronOpenMessage): void {
    const transfer = [message.model.bytes, ...(message.attachment ? [message.attachment.bytes] : [])];
    this.iframe.contentWindow?.postMessage(message, "*", transfer);
  }

  private postOverlay(): void {
    const message: NetronOverlayMessage = { cmd: NETRON_OVERLAY, overlay: this.overlay };
    this.post(message as unknown as Record<string, unknown>);
  }

  private post(message: Record<string, unknown>): void {
    // "*": the sandboxed frame's origin is opaque and no target origin can name it. The message goes
    // to this frame's window only; the frame checks that it comes from this page's origin.
    this.iframe.contentWindow?.postMessage(message, "*");
  }

  private receive(event: MessageEvent): void {
    // Only our own frame: every other frame on the page (other widgets included) is ignored. Its
    // origin is opaque, "null", which is all the origin can say (the source check is the one that
    // tells it apart from other opaque frames).
    if (event.source !== this.iframe.contentWindow || event.origin !== this.frameOrigin) return;
    if (typeof event.data !== "object" || !event.data) return;
    const message = event.data as { cmd?: string };
    switch (message.cmd) {
      case NETRON_HELLO:
        this.post(this.boot as unknown as Record<string, unknown>);
        break;
      case NETRON_READY:
        this.ready = true;
        this.workerLayout = Boolean((message as { worker?: boolean }).worker);
        for (const queued of this.queuedOpens.splice(0)) this.send(queued);
        if (this.overlay) this.postOverlay();
        break;
      case NETRON_RENDERED: {
        const rendered = message as NetronRenderedMessage;
        this.settle(rendered.id, (pending) => pending.resolve(performance.now() - pending.started));
        if (!this.drawn) {
          this.drawn = true;
          const name = this.pendingSelect;
          this.pendingSelect = "";
          if (name) this.select(name);
        }
        break;
      }
      case NETRON_FAILED: {
        const failed = message as NetronFailedMessage;
        this.errors.push(failed.message);
        if (failed.start && !this.ready) this.failStart(failed.message);
        else if (failed.id !== undefined) this.settle(failed.id, (pending) => pending.reject(new Error(`Netron could not open the graph: ${failed.message}`)));
        break;
      }
      case NETRON_SELECTED: {
        const name = (message as NetronSelectedMessage).name;
        if (name && name !== this.lastSelected) {
          this.lastSelected = name;
          this.options.onSelect(name);
        }
        break;
      }
      case NETRON_SELECT_DONE: {
        const result = message as NetronSelectDoneMessage;
        const waiting = this.reveals.get(result.name) ?? [];
        this.reveals.delete(result.name);
        for (const resolve of waiting) resolve(result);
        break;
      }
      case NETRON_OVERLAY_APPLIED: {
        this.overlayResult = message as NetronOverlayAppliedMessage;
        this.options.onOverlayApplied?.(this.overlayResult);
        break;
      }
      case NETRON_EXPORT:
        this.download(message as NetronExportMessage);
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
   * Downloads an image Netron exported, if the user just asked for it. The frame's click is not
   * visible to this page, but its effects are: a click in a frame activates the page too
   * (navigator.userActivation, for about 5 s in Chromium) and puts the focus on the frame element.
   */
  private download(message: NetronExportMessage): void {
    const gesture = Boolean(navigator.userActivation?.isActive) && document.activeElement === this.iframe;
    const verdict = checkExport(message, gesture);
    if (!verdict.ok) {
      this.options.onNotice?.(`Netron's export was not downloaded: ${verdict.reason}.`);
      return;
    }
    const link = document.createElement("a");
    link.download = verdict.name;
    link.href = URL.createObjectURL(new Blob([message.blob], { type: verdict.type }));
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }
}
