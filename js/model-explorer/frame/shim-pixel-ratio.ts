// Inside the Model Explorer frame (frame-shim.ts): the graph drawn at the screen's own resolution where
// WebGL runs in software.
//
// Where the screen has one device pixel per CSS pixel, the app draws its graph at 1.5 times that (its
// pixel-ratio helper: `devicePixelRatio === 1 ? 1.5 : devicePixelRatio`), with multisampling too, and the
// browser scales the picture back down. A graphics card does that for free; a software renderer
// (SwiftShader, llvmpipe: a machine, VM or remote desktop without a GPU) fills 2.25 times the pixels the
// screen shows on every redraw. There the frame tells the app a ratio a hair above 1, which its helper
// passes on and the canvas's size rounds away: the app draws at the screen's pixels, still multisampled.
// A real ratio other than 1 (a zoomed page, a high-density screen) and every hardware renderer are left
// as the app has them. tests/test_model_explorer_contract.py pins the helper.

/** Renderer names of WebGL in software: Chromium's SwiftShader, Mesa's llvmpipe and softpipe, Windows'. */
const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|software|basic render driver/i;

/** Not 1, so the app's helper keeps it; a canvas `width * ratio` pixels wide rounds it down to `width`. */
export const SCREEN_RATIO_FOR_THE_APP = 1.000001;

/** What Chromium and Safari answer as RENDERER: the renderer's name only behind WEBGL_debug_renderer_info. */
const MASKED_RENDERER = "WebKit WebGL";

/** Whether a WebGL context draws in software, from its renderer's name (Firefox gives it as RENDERER, and
 * warns when asked for the extension; Chromium only through WEBGL_debug_renderer_info). */
export function drawsInSoftware(context: WebGLRenderingContext): boolean {
  const named = String(context.getParameter(context.RENDERER));
  if (named !== MASKED_RENDERER) return SOFTWARE_RENDERER.test(named);
  const info = context.getExtension("WEBGL_debug_renderer_info");
  return info !== null && SOFTWARE_RENDERER.test(String(context.getParameter(info.UNMASKED_RENDERER_WEBGL)));
}

/**
 * From the frame's first WebGL context on (the app's capability probe, made before its renderers read
 * the ratio), `window.devicePixelRatio` answers SCREEN_RATIO_FOR_THE_APP instead of 1 when that context
 * draws in software. Installed before the app's first script.
 */
export function drawAtScreenPixelsInSoftware(): void {
  // The browser's own getter (on the window itself in Chromium and Firefox); without one the app keeps its choice.
  const ownRatio =
    Object.getOwnPropertyDescriptor(window, "devicePixelRatio")?.get ??
    Object.getOwnPropertyDescriptor(Window.prototype, "devicePixelRatio")?.get;
  if (!ownRatio) return;
  let software: boolean | undefined;
  const realGetContext = HTMLCanvasElement.prototype.getContext as (this: HTMLCanvasElement, ...args: unknown[]) => unknown;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, ...rest: unknown[]) {
    const context = realGetContext.call(this, kind, ...rest);
    if (software === undefined && context && /webgl/i.test(String(kind))) software = drawsInSoftware(context as WebGLRenderingContext);
    return context;
  } as typeof HTMLCanvasElement.prototype.getContext;
  Object.defineProperty(window, "devicePixelRatio", {
    configurable: true,
    get(): number {
      const ratio = ownRatio.call(window) as number;
      return software && ratio === 1 ? SCREEN_RATIO_FOR_THE_APP : ratio;
    },
  });
}
