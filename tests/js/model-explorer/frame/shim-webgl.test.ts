// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from "vitest";
import { SHIM_NO_WEBGL } from "../../../../js/model-explorer/protocol";
import { watchWebglContexts } from "../../../../js/model-explorer/frame/shim-reports";

// Inside the Model Explorer frame: the app asks for a WebGL context (its capability probe, then its
// renderer's). The browser's getContext is played here: `webgl` says whether it gives WebGL at all; a
// canvas holding a 2d context is refused WebGL whatever the browser gives, as in a browser.
let webgl = true;
const made: { lost: boolean }[] = [];
function browserGetContext(this: HTMLCanvasElement, kind: string): unknown {
  if (kind === "2d") {
    this.dataset.holds = "2d";
    return {};
  }
  if (!/webgl/.test(kind) || !webgl || this.dataset.holds === "2d") return null;
  const context = { lost: false, getExtension: () => ({ loseContext: () => Object.assign(context, { lost: true }) }) };
  made.push(context);
  return context;
}

const posted = vi.fn();
const cmds = () => posted.mock.calls.map(([message]) => (message as { cmd: string }).cmd);

beforeEach(() => {
  HTMLCanvasElement.prototype.getContext = browserGetContext as typeof HTMLCanvasElement.prototype.getContext;
  posted.mockClear();
  made.length = 0;
  watchWebglContexts(posted, EventTarget.prototype.addEventListener); // the shim, as the frame installs it
});

describe("the Model Explorer frame shim's WebGL report", () => {
  it("tells the parent, once, that the browser gives no WebGL", () => {
    webgl = false;
    expect(document.createElement("canvas").getContext("webgl")).toBeNull(); // the app's probe
    expect(document.createElement("canvas").getContext("experimental-webgl")).toBeNull();
    expect(cmds()).toEqual([SHIM_NO_WEBGL]);
  });

  it("says nothing when WebGL works", () => {
    webgl = true;
    expect(document.createElement("canvas").getContext("webgl")).not.toBeNull();
    expect(cmds()).toEqual([]);
  });

  it("says nothing when only a canvas holding another context was refused, and lets its probe go", () => {
    webgl = true;
    const canvas = document.createElement("canvas");
    canvas.getContext("2d");
    expect(canvas.getContext("webgl")).toBeNull();
    expect(cmds()).toEqual([]);
    expect(made).toHaveLength(1); // the shim's probe of a fresh canvas, lost at once (contexts are few)
    expect(made[0].lost).toBe(true);
  });
});
