// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";
import { drawAtScreenPixelsInSoftware, SCREEN_RATIO_FOR_THE_APP } from "../../../../js/model-explorer/frame/shim-pixel-ratio";

// Inside the Model Explorer frame: the browser's WebGL is played by a context naming its renderer as
// Chromium does (RENDERER masked, the real name behind WEBGL_debug_renderer_info) or as Firefox does
// (the name as RENDERER); the screen's ratio by a getter, as the browser's own.
const RENDERER = 0x1f01;
const UNMASKED_RENDERER_WEBGL = 0x9246;
let rendererName = "";
let masked = true;
let screenRatio = 1;

function browserGetContext(kind: string): unknown {
  if (kind === "2d") return {};
  return {
    RENDERER,
    getParameter: (name: number) => (name === RENDERER && masked ? "WebKit WebGL" : rendererName),
    getExtension: (name: string) => (name === "WEBGL_debug_renderer_info" && masked ? { UNMASKED_RENDERER_WEBGL } : null),
  };
}

/** What the app's pixel-ratio helper makes of the ratio it reads, and the canvas width that gives. */
const appRatio = () => (window.devicePixelRatio === 1 ? 1.5 : window.devicePixelRatio);
const canvasWidth = (cssWidth: number) => Math.floor(cssWidth * appRatio());

function makeContext(kind = "webgl2"): void {
  document.createElement("canvas").getContext(kind as "webgl2");
}

beforeEach(() => {
  HTMLCanvasElement.prototype.getContext = browserGetContext as typeof HTMLCanvasElement.prototype.getContext;
  Object.defineProperty(window, "devicePixelRatio", { configurable: true, get: () => screenRatio });
  rendererName = "";
  masked = true;
  screenRatio = 1;
  drawAtScreenPixelsInSoftware(); // the shim, as the frame installs it
});

describe("the Model Explorer frame at the screen's resolution in software WebGL", () => {
  it("draws at the screen's pixels under Chromium's SwiftShader, from the first WebGL context on", () => {
    rendererName = "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)";
    expect(canvasWidth(638)).toBe(957); // before any WebGL context: the app's own choice
    makeContext("2d"); // another kind of context decides nothing
    expect(canvasWidth(638)).toBe(957);
    makeContext();
    expect(window.devicePixelRatio).toBe(SCREEN_RATIO_FOR_THE_APP);
    expect(canvasWidth(638)).toBe(638);
    expect(canvasWidth(4096)).toBe(4096);
  });

  it("does so under Firefox's llvmpipe, named as RENDERER", () => {
    masked = false;
    rendererName = "llvmpipe, or similar";
    makeContext("webgl");
    expect(canvasWidth(638)).toBe(638);
  });

  it("asks Firefox's named renderer nothing more (it warns of the extension)", () => {
    masked = false;
    rendererName = "ANGLE (NVIDIA, NVIDIA GeForce GTX 980 Direct3D11 vs_5_0 ps_5_0), or similar";
    const asked: string[] = [];
    HTMLCanvasElement.prototype.getContext = ((kind: string) => {
      const context = browserGetContext(kind) as { getExtension: (name: string) => unknown };
      return { ...context, getExtension: (name: string) => asked.push(name) && context.getExtension(name) };
    }) as typeof HTMLCanvasElement.prototype.getContext;
    drawAtScreenPixelsInSoftware();
    makeContext();
    expect(asked).toEqual([]);
    expect(canvasWidth(638)).toBe(957);
  });

  it("leaves a graphics card's drawing as the app has it", () => {
    rendererName = "ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002503) Direct3D11 vs_5_0 ps_5_0, D3D11)";
    makeContext();
    expect(window.devicePixelRatio).toBe(1);
    expect(canvasWidth(638)).toBe(957);
  });

  it("leaves a real ratio other than 1 as it is, live as the page is zoomed", () => {
    rendererName = "SwiftShader";
    makeContext();
    screenRatio = 2;
    expect(window.devicePixelRatio).toBe(2);
    screenRatio = 1;
    expect(canvasWidth(638)).toBe(638);
  });
});
