// Inside the Model Explorer frame (frame-shim.ts): what the shim tells the parent page about the
// app's drawing: a lost WebGL context, the graph painted, an error.
import { nextPaint } from "../../frame/frame-manners";
import { SHIM_CONTEXT_LOST, SHIM_FAILED, SHIM_NO_WEBGL, SHIM_RENDERED, type ShimConfig, type ShimPost } from "../protocol";

/** Whether a canvas shows anything but one colour (read small: this runs until the graph is painted). */
function holdsAPicture(canvas: HTMLCanvasElement): boolean {
  const probe = document.createElement("canvas");
  probe.width = probe.height = 64;
  const context = probe.getContext("2d", { willReadFrequently: true });
  if (!context) return true; // nothing to read it with: the canvas's existence is all there is
  context.drawImage(canvas, 0, 0, probe.width, probe.height);
  const pixels = context.getImageData(0, 0, probe.width, probe.height).data;
  for (let i = 4; i < pixels.length; i += 4) {
    if (pixels[i] !== pixels[0] || pixels[i + 1] !== pixels[1] || pixels[i + 2] !== pixels[2] || pixels[i + 3] !== pixels[3]) return true;
  }
  return false;
}

/**
 * Whether this browser gives the frame WebGL at all, asked once the app was refused a WebGL context:
 * that refusal alone can mean only that its canvas already holds another kind of context, a fresh
 * canvas cannot. A context made to tell is let go at once (the page's WebGL contexts are few).
 */
function webglAvailable(realGetContext: (this: HTMLCanvasElement, ...args: unknown[]) => unknown): boolean {
  const probe = document.createElement("canvas");
  const context = (realGetContext.call(probe, "webgl2") ?? realGetContext.call(probe, "webgl")) as WebGLRenderingContext | null;
  context?.getExtension("WEBGL_lose_context")?.loseContext();
  return context !== null;
}

/**
 * Watches every WebGL context this frame makes (on a canvas or an OffscreenCanvas) and tells the
 * parent when one is lost (SHIM_CONTEXT_LOST), which pauses the view and redraws it when it is on
 * screen again. A lost context leaves the renderer's canvas blank for good: Chromium drops the oldest
 * context past its per-page limit and every context on a GPU reset, and the app does not redraw.
 * When the app is refused a WebGL context and the browser has none to give (SHIM_NO_WEBGL), the app
 * only shows its own message inside the frame: the parent says so at once, with the remedy, instead
 * of waiting for the draw time-out. `realAdd` is the browser's own addEventListener.
 */
export function watchWebglContexts(post: ShimPost, realAdd: typeof EventTarget.prototype.addEventListener): void {
  const watched = new WeakSet<object>();
  const watch = (target: HTMLCanvasElement | OffscreenCanvas, kind: unknown) => {
    if (typeof kind !== "string" || !/webgl/i.test(kind) || watched.has(target)) return;
    watched.add(target);
    realAdd.call(target, "webglcontextlost", () => {
      const shown = target instanceof HTMLCanvasElement && target.isConnected;
      post({ cmd: SHIM_CONTEXT_LOST, shown });
    });
  };
  const realGetContext = HTMLCanvasElement.prototype.getContext as (this: HTMLCanvasElement, ...args: unknown[]) => unknown;
  let askedWhetherWebgl = false;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, ...rest: unknown[]) {
    const webgl = /webgl/i.test(String(kind));
    // The graph's canvas keeps its last frame, so "save image" can read it whenever it is asked.
    if (webgl && this.classList.contains("main")) {
      rest[0] = { ...((rest[0] as object | undefined) ?? {}), preserveDrawingBuffer: true };
    }
    const context = realGetContext.call(this, kind, ...rest);
    if (context) watch(this, kind);
    else if (webgl && !askedWhetherWebgl) {
      askedWhetherWebgl = true;
      if (!webglAvailable(realGetContext)) post({ cmd: SHIM_NO_WEBGL });
    }
    return context;
  } as typeof HTMLCanvasElement.prototype.getContext;
  if (typeof OffscreenCanvas !== "undefined") {
    const realOffscreen = OffscreenCanvas.prototype.getContext;
    OffscreenCanvas.prototype.getContext = function (this: OffscreenCanvas, kind: string, ...rest: unknown[]) {
      const context = (realOffscreen as (...args: unknown[]) => unknown).call(this, kind, ...rest);
      if (context) watch(this, kind);
      return context;
    } as typeof OffscreenCanvas.prototype.getContext;
  }
}

/**
 * Reports when the graph is painted (SHIM_RENDERED, with the time since this call). "model-explorer-ready"
 * comes seconds earlier, and the renderer's canvas exists (sized, the "Processing graph..." spinner gone)
 * before the browser has painted it: a frame off screen runs no animation frame. So the graph counts as
 * drawn once an animation frame has run since and the canvas holds more than its background: never
 * "ready" over a blank canvas.
 */
export function reportPaint(post: ShimPost): void {
  const started = performance.now();
  let checking = false;
  const poll = window.setInterval(() => {
    const canvas =
      document.querySelector<HTMLCanvasElement>("webgl-renderer canvas.main") ??
      document.querySelector<HTMLCanvasElement>("webgl-renderer canvas");
    if (checking || !canvas || canvas.width === 0 || document.querySelector("mat-spinner")) return;
    checking = true;
    void nextPaint().then(() => {
      checking = false;
      if (!canvas.isConnected || !holdsAPicture(canvas)) return;
      window.clearInterval(poll);
      post({ cmd: SHIM_RENDERED, ms: performance.now() - started });
    });
  }, 100);
}

/** Reports the frame's uncaught errors and the errors the app only logs (SHIM_FAILED). */
export function reportErrors(config: ShimConfig, post: ShimPost): void {
  // An uncaught error of the layout worker reaches this window with the worker's URL: the graph will
  // never be drawn, so say so now instead of after the draw time-out.
  // (config.urls is filled in once the frame has its files: read it when an error comes.)
  const isWorkerUrl = (url: string) => Object.keys(config.urls).some((name) => name.startsWith("worker-") && config.urls[name] === url);
  window.addEventListener("error", (event) => {
    const fatal = isWorkerUrl(String(event.filename ?? ""));
    post({ cmd: SHIM_FAILED, message: String(event.message || event.error), fatal });
  });
  // The app's own error handler (Angular's) catches what its components throw and only logs it:
  // report those too, so a draw time-out names the error instead of guessing at WebGL.
  const realConsoleError = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    realConsoleError(...args);
    const text = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(" ");
    post({ cmd: SHIM_FAILED, message: text.slice(0, 500), fatal: false });
  };
}
