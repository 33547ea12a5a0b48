// Netron internals, part 2 of 2: Netron's host contract (what view.View asks of its host, in place
// of Netron's own browser.js, which would ask ipinfo.io for cookie consent, send Google Analytics
// beacons, replace window.eval and nag to update). This host has no network, no telemetry, no
// dialogs of its own and keeps options in memory. Check this file and netron-view.ts when the netron
// pin moves.
import { MODULE_PREFIX } from "../document";
import { errorText } from "../../shared/error-text";
import { post } from "./frame-messages";
import type { BaseModule, NetronContext, NetronView } from "./netron-view";
import { NETRON_EXPORT, NETRON_EXPORT_STARTED, NETRON_FAILED, type NetronFile } from "../protocol";

/** A dynamic import the bundler leaves alone: the specifier is resolved by the frame's import map. */
export const load = <T>(specifier: string): Promise<T> => import(/* @vite-ignore */ specifier) as Promise<T>;

/** A model file held in memory: what Netron's ModelFactoryService reads (view.js view.Context). */
class MemoryContext implements NetronContext {
  readonly stream: unknown;

  constructor(
    private readonly host: FrameHost,
    readonly identifier: string,
    stream: unknown,
  ) {
    this.stream = stream;
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
export class FrameHost {
  private netronView: NetronView | null = null;
  private readonly store = new Map<string, unknown>();
  private readonly environmentValues: Record<string, unknown>;

  /**
   * `delivered`: the module files this page was given (`require` answers only for these);
   * `binaryStream`: base.js's BinaryStream; `workerUrl`: a layout worker, or null (main thread).
   */
  constructor(
    version: string,
    private readonly delivered: ReadonlySet<string>,
    private readonly binaryStream: BaseModule["BinaryStream"],
    private readonly workerUrl: string | null,
  ) {
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

  /** A model file held in memory, for view.open() and view.attach(). */
  context(file: NetronFile): NetronContext {
    return new MemoryContext(this, file.identifier, new this.binaryStream(new Uint8Array(file.bytes)));
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
    this.guardExports(view);
  }

  /** The files Netron's own export command (view.export) is building now: export() posts only these. */
  private readonly exporting: string[] = [];

  /**
   * Netron's "Export as PNG/SVG" (its menu, and the widget's button through WidgetFrame.exportImage)
   * is view.export(file), which ends in this host's export(file, blob). Each view.export call lets
   * one export of its file through; anything else that calls export() (the tensor sidebar's "save
   * .npy", any other code in this frame) posts nothing to the parent.
   */
  private guardExports(view: NetronView): void {
    const exportImage = view.export.bind(view);
    view.export = async (file: string) => {
      // Netron's menu: the click counts only for a few seconds (navigator.userActivation), and a big
      // graph's PNG takes longer to build; the page is told now and checks the click now.
      if (this.exportRequest === null) {
        if (navigator.userActivation && !navigator.userActivation.isActive) {
          void this.message("Export needs a click in the viewer: choose Export again.");
          return;
        }
        post({ cmd: NETRON_EXPORT_STARTED, file });
        // The page checks the click when this message reaches it. Where the browser runs this frame on
        // the page's own thread, Netron's PNG encoder (seconds of JavaScript on a busy machine) would
        // hold the message back past the click's few seconds: the page's turn comes first.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      this.exporting.push(file);
      try {
        await exportImage(file);
      } finally {
        const index = this.exporting.indexOf(file);
        if (index !== -1) this.exporting.splice(index, 1);
      }
    };
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
    if (!this.delivered.has(file)) {
      // Not delivered: a factory that never matches, so Netron moves on to its next candidate
      // instead of failing the open (a name ending "model.json" is tried as PyTorch first).
      return {
        ModelFactory: class {
          async match(): Promise<null> {
            return null;
          }
        },
      };
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

  /** The parent's export request being answered (its "save image" button), if any. */
  exportRequest: number | null = null;

  async export(file: string, blob: Blob): Promise<void> {
    // A sandboxed frame may not download; the parent page does it, and only for an export it saw the
    // user start (guardExports). The parent's own button was clicked in the page: it answers that request.
    const exporting = this.exporting.indexOf(file);
    if (exporting === -1) {
      void this.message("Only Netron's Export as PNG or SVG saves a file from this viewer.");
      return;
    }
    this.exporting.splice(exporting, 1);
    const request = this.exportRequest;
    this.exportRequest = null;
    post({ cmd: NETRON_EXPORT, file, blob, ...(request === null ? {} : { request }) });
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
    post({ cmd: NETRON_FAILED, message: errorText(error), fatal: Boolean(fatal) });
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
      // biome-ignore lint/performance/useDomNodeTextContent: browser.js's contract (line breaks become <br>)
      if (textElement) textElement.innerText = text ?? "";
      if (button) {
        if (action) {
          button.style.removeProperty("display");
          // biome-ignore lint/performance/useDomNodeTextContent: as browser.js sets it
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
