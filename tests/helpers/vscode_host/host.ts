// The VS Code side of the emulated notebook, in the top page (127.0.0.1): VS Code's extension host
// owns the kernel connection and runs the cells; the output webview (another site, sandboxed) gets
// the cells' outputs by one path and the kernel's raw websocket frames by another, over postMessage,
// serialized as VS Code's IPC does (JSON; binary frames as arrays of byte values). Plumbing only: the
// widget manager itself is @vscode/jupyter-ipywidgets8, loaded in the webview.
import { ServerConnection } from "@jupyterlab/services";
import { KernelConnection } from "@jupyterlab/services/lib/kernel/default";
import type { KernelMessage } from "@jupyterlab/services";

const params = new URLSearchParams(location.search);
const webviewUrl = new URL(params.get("webview") ?? "");
const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";

/** What the webview received: widget (kernel) messages and their JSON bytes, for the tests. */
const counters = { kernelMessages: 0, kernelBytes: 0, largestMessage: 0, binaryMessages: 0, outputs: 0 };

const frame = document.createElement("iframe");
frame.setAttribute("sandbox", "allow-same-origin allow-pointer-lock allow-scripts allow-downloads allow-forms");
frame.src = webviewUrl.href;
document.body.append(frame);
let webviewReady = false;
const queued: string[] = [];

function toWebview(message: Record<string, unknown>): number {
  const text = JSON.stringify(message); // VS Code's extension host -> renderer IPC is JSON
  if (webviewReady) frame.contentWindow!.postMessage(text, webviewUrl.origin);
  else queued.push(text);
  return text.length;
}

// The real socket to the Jupyter server, tapped as VS Code's kernel socket wrapper taps it. The legacy
// protocol (no subprotocol): messages as JSON text, only those with buffers as binary frames.
let socket: WebSocket | null = null;
let frameId = 0;
class TappedSocket extends WebSocket {
  constructor(url: string | URL) {
    super(url);
    socket = this; // eslint-disable-line @typescript-eslint/no-this-alias
    this.addEventListener("message", (event: MessageEvent) => {
      const id = String(++frameId);
      const bytes =
        typeof event.data === "string"
          ? toWebview({ type: "IPyWidgets_msg", payload: { id, data: event.data } })
          : toWebview({ type: "IPyWidgets_binary_msg", payload: { id, data: [[...new Uint8Array(event.data as ArrayBuffer)]] } });
      counters.kernelMessages += 1;
      counters.kernelBytes += bytes;
      counters.largestMessage = Math.max(counters.largestMessage, bytes);
      if (typeof event.data !== "string") counters.binaryMessages += 1;
    });
  }
}

const serverSettings = ServerConnection.makeSettings({
  baseUrl: params.get("server") ?? "",
  token: params.get("token") ?? "",
  appendToken: true,
  WebSocket: TappedSocket as unknown as typeof WebSocket,
});
const kernelId = params.get("kernel") ?? "";
const clientId = crypto.randomUUID();
const kernel = new KernelConnection({ model: { id: kernelId, name: "python3" }, serverSettings, clientId, handleComms: false });

// Messages from the webview: its kernel connection's outgoing frames, and its handshake.
window.addEventListener("message", (event: MessageEvent) => {
  if (event.origin !== webviewUrl.origin || event.source !== frame.contentWindow || typeof event.data !== "string") return;
  const message = JSON.parse(event.data) as { type: string; payload?: unknown };
  if (message.type === "webview_ready") {
    webviewReady = true;
    toWebview({ type: "IPyWidgets_kernelOptions", payload: { clientId, id: kernelId, model: { id: kernelId, name: "python3" } } });
    for (const text of queued.splice(0)) frame.contentWindow!.postMessage(text, webviewUrl.origin);
  } else if (message.type === "IPyWidgets_msg") {
    socket?.send(message.payload as string);
  } else if (message.type === "IPyWidgets_binary_msg") {
    socket?.send(new Uint8Array((message.payload as number[][])[0]).buffer);
  }
});

let cellCount = 0;
/** Runs a cell as VS Code does (from the extension host), and sends its outputs to the webview. */
async function run(code: string): Promise<{ status: string; error?: string }> {
  const cell = cellCount++;
  const future = kernel.requestExecute({ code, stop_on_error: true });
  future.onIOPub = (msg: KernelMessage.IIOPubMessage) => {
    const type = msg.header.msg_type;
    if (type === "display_data" || type === "execute_result") {
      const data = (msg.content as { data: Record<string, unknown> }).data;
      const output = WIDGET_VIEW in data ? { mime: WIDGET_VIEW, value: data[WIDGET_VIEW] } : { mime: "text/plain", value: data["text/plain"] };
      counters.outputs += 1;
      toWebview({ type: "render_output", payload: { cell, output } });
    } else if (type === "stream" || type === "error") {
      const content = msg.content as { text?: string; ename?: string; evalue?: string };
      toWebview({ type: "render_output", payload: { cell, output: { mime: "text/plain", value: content.text ?? `${content.ename}: ${content.evalue}` } } });
    }
  };
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  const content = reply.content as { status: string; ename?: string; evalue?: string };
  return content.status === "ok" ? { status: "ok" } : { status: content.status, error: `${content.ename}: ${content.evalue}` };
}

/** Restarts the kernel, then tells the webview, as VS Code's extension does after a restart. */
async function restart(): Promise<void> {
  await kernel.restart();
  toWebview({ type: "IPyWidgets_onRestartKernel" });
}

const ready = new Promise<void>((resolve) => {
  const check = () => (kernel.connectionStatus === "connected" && webviewReady ? resolve() : setTimeout(check, 50));
  check();
});

Object.assign(window, { vscodeHost: { run, restart, ready, counters, kernel } });
