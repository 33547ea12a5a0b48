// How the host carries a kernel message's binary buffers to this page, and so how the kernel should
// encode its replies (channel.ts asks per request; torchlens_widgets/_channel.py encodes).
//
// JupyterLab, Notebook 7 and Voila give the widget manager a kernel connection on the page's own
// WebSocket: binary frames arrive as they left the kernel. VS Code's notebook webview has no socket:
// its kernel connection (vscode-jupyter's webview-side proxy kernel, handed to
// @vscode/jupyter-ipywidgets8's manager) is built on a stand-in WebSocket class with the placeholder
// URL "BOGUS_PVSC", and the extension host relays each kernel frame by postMessage, a frame with
// buffers as `[...new Uint8Array(frame)]` (serializeDataViews): a JSON array of decimal numbers,
// about 3.6 bytes per byte of gzip data. A frame without buffers is relayed as the string it is. So
// where the kernel connection does not sit on a real WebSocket, replies come as base64 text
// (4/3 bytes per byte); elsewhere they stay binary, so JupyterLab's bytes do not grow.
import type { BufferEncoding } from "./channel";
import { kernelOf } from "./kernel-watch";

interface ServerSettingsLike {
  wsUrl?: unknown;
  WebSocket?: unknown;
}

/** The buffer encoding the kernel should use for this widget manager's host. */
export function bufferEncodingFor(widgetManager: unknown): BufferEncoding {
  const kernel = kernelOf(widgetManager) as { serverSettings?: ServerSettingsLike } | null;
  const settings = kernel?.serverSettings;
  if (!settings || typeof settings !== "object") return "binary"; // no Jupyter kernel connection: the host's own transport
  if (typeof settings.wsUrl === "string" && !/^wss?:\/\//i.test(settings.wsUrl)) return "base64";
  const native = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof settings.WebSocket === "function" && native !== undefined && settings.WebSocket !== native) return "base64";
  return "binary";
}
