// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { clearShimTimersAfterAll } from "./shim-timers";

// The Model Explorer app acts on select commands from any window; inside the widget's frame it must
// hear only its parent (the notebook page) and itself. Any other frame on the page can reach this one
// through window.top.frames, so a message from anywhere else never reaches the app's listeners.
vi.spyOn(window.parent, "postMessage").mockImplementation(() => {});
clearShimTimersAfterAll();
// happy-dom gives its window copies of addEventListener/removeEventListener of its own; a browser's
// window takes them from EventTarget.prototype, where the shim wraps them. As in a browser:
const ownAdd = window.addEventListener.bind(window);
const ownRemove = window.removeEventListener.bind(window);
EventTarget.prototype.addEventListener = function (this: EventTarget, ...args: Parameters<typeof ownAdd>) {
  return ownAdd(...args);
} as typeof EventTarget.prototype.addEventListener;
EventTarget.prototype.removeEventListener = function (this: EventTarget, ...args: Parameters<typeof ownRemove>) {
  return ownRemove(...args);
} as typeof EventTarget.prototype.removeEventListener;
for (const name of ["addEventListener", "removeEventListener"] as const) {
  Object.defineProperty(window, name, {
    configurable: true,
    value(this: Window, ...args: unknown[]) {
      return (EventTarget.prototype[name] as (...a: unknown[]) => void).apply(this, args);
    },
  });
}
const PARENT_ORIGIN = "http://127.0.0.1:8888";
Object.assign(window, { __TLW_ME__: { urls: {}, parentOrigin: PARENT_ORIGIN, query: "", extensions: [] } });
await import("../../js/model-explorer/frame-shim");

const SELECT = { cmd: "model-explorer-select-node-by-node-id", nodeId: "forged" };
/** A message as another frame's window would send it (its window is not this one, nor the parent). */
const forged = () => new MessageEvent("message", { data: SELECT, origin: "null", source: null });
const own = () => new MessageEvent("message", { data: SELECT, origin: PARENT_ORIGIN, source: window });

describe("the Model Explorer frame shim's message guard", () => {
  it("keeps another frame's commands from the app's message listeners", () => {
    const app = vi.fn();
    window.addEventListener("message", app);
    window.dispatchEvent(forged());
    expect(app).not.toHaveBeenCalled();
    window.dispatchEvent(own());
    expect(app).toHaveBeenCalledTimes(1);
    window.removeEventListener("message", app); // the app's own listener comes off, guard and all
    window.dispatchEvent(own());
    expect(app).toHaveBeenCalledTimes(1);
  });

  it("guards listener objects too", () => {
    const handleEvent = vi.fn();
    window.addEventListener("message", { handleEvent });
    window.dispatchEvent(forged());
    expect(handleEvent).not.toHaveBeenCalled();
    window.dispatchEvent(own());
    expect(handleEvent).toHaveBeenCalledTimes(1);
  });
});
