// Notices when the kernel behind a widget goes away, so the view can say it is no longer live.
//
// Measured in JupyterLab 4 / Notebook 7 (jupyterlab_widgets 3): after a kernel restart the widget's
// view stays on the page and nothing tells it; its comm is gone for good (the new kernel has no such
// widget), so requests would only time out. The widget manager anywidget hands us exposes the kernel
// connection and its Lumino signals; we listen to those. An interrupt does not close comms: the widget
// stays live. VS Code's manager (@vscode/jupyter-ipywidgets8) exposes its webview-side connection; on a
// restart VS Code disposes that connection instead of reporting "restarting" through it, so a
// connection that drops because it was disposed is gone for good too. Frontends without that object
// fall back to the request time-out message.

/** The part of a Jupyter kernel connection we use (duck-typed: not every frontend has one). */
interface KernelLike {
  status?: string;
  connectionStatus?: string;
  isDisposed?: boolean;
  statusChanged?: SignalLike<string>;
  connectionStatusChanged?: SignalLike<string>;
}

interface SignalLike<T> {
  connect(slot: (sender: unknown, value: T) => void): unknown;
  disconnect(slot: (sender: unknown, value: T) => void): unknown;
}

// "restored": the view came back from a saved notebook's widget state; no kernel ever held it here.
export type KernelLoss = "restarted" | "dead" | "connection-lost" | "restored";

/** Kernel states after which this widget's comm cannot come back. */
const GONE: Record<string, KernelLoss> = { restarting: "restarted", autorestarting: "restarted", dead: "dead" };

export function kernelOf(widgetManager: unknown): KernelLike | null {
  const kernel = (widgetManager as { kernel?: unknown } | null | undefined)?.kernel;
  return kernel && typeof kernel === "object" ? (kernel as KernelLike) : null;
}

/** Requests queue behind running cells: a busy kernel is waited for, not reported as gone. */
export function kernelBusy(widgetManager: unknown): boolean {
  return kernelOf(widgetManager)?.status === "busy";
}

/**
 * Calls `onLost` once the kernel restarts or dies (permanent), and `onConnection(false/true)` while
 * the connection to it drops and comes back (a remote kernel's network blip keeps its comms).
 * Returns the function that stops watching.
 */
export function watchKernel(
  widgetManager: unknown,
  onLost: (why: KernelLoss) => void,
  onConnection: (connected: boolean) => void,
): () => void {
  const kernel = kernelOf(widgetManager);
  if (!kernel) return () => {};
  let lost = false;
  const onStatus = (_sender: unknown, status: string) => {
    const why = GONE[status];
    if (why && !lost) {
      lost = true;
      onLost(why);
    }
  };
  const onConnectionStatus = (_sender: unknown, status: string) => {
    if (lost) return;
    if (status !== "connected" && kernel.isDisposed) {
      lost = true; // disposed by its frontend (VS Code, on a restart): it cannot come back
      onLost("connection-lost");
    } else onConnection(status === "connected");
  };
  kernel.statusChanged?.connect(onStatus);
  kernel.connectionStatusChanged?.connect(onConnectionStatus);
  if (kernel.status) onStatus(kernel, kernel.status); // already gone when this view was drawn
  return () => {
    kernel.statusChanged?.disconnect(onStatus);
    kernel.connectionStatusChanged?.disconnect(onConnectionStatus);
  };
}

export function lossMessage(why: KernelLoss): string {
  if (why === "restored") return "Run this cell for the live view: no kernel runs this widget yet (a reopened notebook).";
  const what = why === "restarted" ? "The kernel restarted" : why === "dead" ? "The kernel died" : "The kernel connection was lost";
  return `${what}: this view is read-only now. Re-run the cell for a live widget.`;
}
