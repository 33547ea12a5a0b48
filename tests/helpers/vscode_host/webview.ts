// The webview side of the emulated VS Code notebook (localhost, a cross-site sandboxed frame): a
// @jupyterlab/services kernel connection whose socket is the host's postMessage channel (as VS Code's
// proxy kernel does), the ipywidgets 8 manager of @vscode/jupyter-ipywidgets8 on it, and outputs
// rendered when their cell scrolls into view (VS Code's notebook list renders outputs lazily).
import { ServerConnection } from "@jupyterlab/services";
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import { KernelConnection } from "@jupyterlab/services/lib/kernel/default";

interface Manager {
  get_model(id: string): Promise<unknown> | undefined;
  create_view(model: unknown, options: { el: HTMLElement }): Promise<unknown>;
  display_view(data: unknown, view: unknown, options: { node: HTMLElement }): Promise<unknown>;
  dispose(): void;
}
interface ManagerClass {
  new (kernel: Kernel.IKernelConnection, el: HTMLElement, scriptLoader: unknown, logger: (m: string) => void): Manager;
}
declare global {
  interface Window {
    vscIPyWidgets8: { load(): void };
    vscIPyWidgets: { WidgetManager: ManagerClass };
    requirejs: { config(options: unknown): void };
  }
}

const hostOrigin = new URL(document.referrer || "http://127.0.0.1").origin;
const post = (message: Record<string, unknown>) => window.parent.postMessage(JSON.stringify(message), hostOrigin);
const outputs = document.getElementById("outputs")!;

// The socket the kernel connection talks through: frames come from the host, sends go to it.
let socket: ProxySocket | null = null;
class ProxySocket {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly protocol = ""; // the legacy Jupyter websocket protocol, as the host's socket uses
  readyState = 1;
  binaryType = "arraybuffer";
  constructor() {
    socket = this; // eslint-disable-line @typescript-eslint/no-this-alias
  }
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (typeof data === "string") post({ type: "IPyWidgets_msg", payload: data });
    else {
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      post({ type: "IPyWidgets_binary_msg", payload: [[...bytes]] });
    }
  }
  close(): void {}
}

// Widget scripts the manager does not bundle (anywidget's) come from the kernel environment's
// nbextensions, registered with RequireJS as VS Code's script loader does for a local kernel.
const scriptLoader = {
  widgetsRegisteredInRequireJs: new Set<string>(),
  async loadWidgetScript(moduleName: string): Promise<void> {
    window.requirejs.config({ paths: { [moduleName]: `/nbextensions/${moduleName}/index` } });
    scriptLoader.widgetsRegisteredInRequireJs.add(moduleName);
  },
  successHandler() {},
  errorHandler(className: string, moduleName: string, version: string, error: unknown) {
    console.error(`widget class ${moduleName}.${className}@${version} failed to load`, error);
  },
};

let kernel: KernelConnection | null = null;
let manager: Manager | null = null;
const displayed = new Map<string, Promise<void>>(); // model id -> its display_data processed
const announce = new Map<string, () => void>();

function modelDisplayed(modelId: string): Promise<void> {
  if (!displayed.has(modelId)) displayed.set(modelId, new Promise((resolve) => announce.set(modelId, resolve)));
  return displayed.get(modelId)!;
}

function startKernel(options: { clientId: string; model: Kernel.IModel }): void {
  const serverSettings = ServerConnection.makeSettings({ WebSocket: ProxySocket as unknown as typeof WebSocket, wsUrl: "ws://host-proxied" });
  kernel = new KernelConnection({ serverSettings, clientId: options.clientId, handleComms: true, model: options.model });
  // The socket is already open on the host's side: open it here without a kernel_info round trip.
  const requestKernelInfo = kernel.requestKernelInfo.bind(kernel);
  kernel.requestKernelInfo = () => Promise.resolve(undefined);
  socket?.onopen?.({ target: socket });
  kernel.requestKernelInfo = requestKernelInfo;
  window.vscIPyWidgets8.load();
  manager = new window.vscIPyWidgets.WidgetManager(kernel, outputs, scriptLoader, () => {});
  // A widget output is rendered once this connection has processed its display message (the
  // outputs reach the webview by another path than the kernel messages).
  kernel.iopubMessage.connect((_sender, msg: KernelMessage.IIOPubMessage) => {
    const type = msg.header.msg_type;
    if (type !== "display_data" && type !== "execute_result") return;
    const view = (msg.content as { data: Record<string, { model_id?: string }> }).data["application/vnd.jupyter.widget-view+json"];
    if (!view?.model_id) return;
    void modelDisplayed(view.model_id);
    const modelPromise = manager?.get_model(view.model_id);
    void Promise.resolve(modelPromise).then(() => announce.get(view.model_id!)?.());
  });
}

function cellElement(cell: number): HTMLElement {
  let element = document.querySelector<HTMLElement>(`.cell-output[data-cell="${cell}"]`);
  if (!element) {
    element = document.createElement("div");
    element.className = "cell-output";
    element.dataset.cell = String(cell);
    outputs.append(element);
  }
  return element;
}

async function renderWidget(data: { model_id: string }, element: HTMLElement): Promise<void> {
  await modelDisplayed(data.model_id);
  const model = await manager!.get_model(data.model_id);
  const view = await manager!.create_view(model, { el: element });
  await manager!.display_view(data, view, { node: element });
  element.dataset.rendered = "true";
}

// Outputs are rendered when their cell comes into view.
const pending = new Map<Element, () => void>();
const visible = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const start = entry.isIntersecting ? pending.get(entry.target) : undefined;
    if (!start) continue;
    pending.delete(entry.target);
    visible.unobserve(entry.target);
    start();
  }
});

function renderOutput(cell: number, output: { mime: string; value: unknown }): void {
  const container = cellElement(cell);
  const element = document.createElement("div");
  container.append(element);
  if (output.mime !== "application/vnd.jupyter.widget-view+json") {
    element.className = "cell-output-text";
    element.textContent = String(output.value ?? "");
    return;
  }
  element.className = "cell-output-ipywidget-background";
  element.style.minHeight = "40px";
  pending.set(element, () => {
    renderWidget(output.value as { model_id: string }, element).catch((error: unknown) => {
      console.error("widget render failed", error);
    });
  });
  visible.observe(element);
}

window.addEventListener("message", (event: MessageEvent) => {
  if (event.origin !== hostOrigin || event.source !== window.parent || typeof event.data !== "string") return;
  const message = JSON.parse(event.data) as { type: string; payload: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  switch (message.type) {
    case "IPyWidgets_kernelOptions":
      startKernel(message.payload);
      break;
    case "IPyWidgets_msg":
      socket?.onmessage?.({ data: message.payload.data });
      break;
    case "IPyWidgets_binary_msg":
      socket?.onmessage?.({ data: new Uint8Array(message.payload.data[0]).buffer });
      break;
    case "render_output":
      renderOutput(message.payload.cell, message.payload.output);
      break;
    case "IPyWidgets_onRestartKernel":
      // As VS Code's webview does: the manager and its kernel connection are dropped.
      manager?.dispose();
      manager = null;
      kernel?.dispose();
      kernel = null;
      break;
  }
});
post({ type: "webview_ready" });
