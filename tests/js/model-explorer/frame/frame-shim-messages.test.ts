// @vitest-environment happy-dom
import { Window as HappyWindow } from "happy-dom";
import { afterAll, describe, expect, it, vi } from "vitest";
import { clearShimTimersAfterAll } from "./shim-timers";

// The Model Explorer app acts on select commands from any window; inside the widget's frame it must
// hear only its parent (the notebook page) and itself. Any other frame on the page can reach this one
// through window.top.frames, so a message from anywhere else never reaches the app's listeners.
//
// This window is the frame; its parent is a window of its own (the notebook page), as in a browser.
// happy-dom's top-level window is its own parent, where a message from the parent could not be told
// from the frame's own (which the guard lets through whatever its origin).
const notebookPage = new HappyWindow();
const anotherOutput = new HappyWindow(); // a sandboxed frame in another output of the notebook
afterAll(() => {
  notebookPage.close();
  anotherOutput.close();
});
Object.defineProperty(window, "parent", { configurable: true, value: notebookPage });
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
await import("../../../../js/model-explorer/frame/frame-shim");

const SELECT = { cmd: "model-explorer-select-node-by-node-id", nodeId: "forged" };
const message = (source: unknown, origin: string) =>
  new MessageEvent("message", { data: SELECT, origin, source: source as MessageEventSource });
/** As the notebook page sends it: from the parent window, with the origin the parent wrote into the frame. */
const fromParent = () => message(notebookPage, PARENT_ORIGIN);
/** Another output's sandboxed frame: its own window and its opaque origin. */
const forged = () => message(anotherOutput, "null");

describe("the Model Explorer frame shim's message guard", () => {
  it("lets the parent's messages from the parent's origin through", () => {
    expect(window.parent).not.toBe(window);
    const app = vi.fn();
    window.addEventListener("message", app);
    window.dispatchEvent(fromParent());
    expect(app).toHaveBeenCalledTimes(1);
    window.removeEventListener("message", app); // the app's own listener comes off, guard and all
    window.dispatchEvent(fromParent());
    expect(app).toHaveBeenCalledTimes(1);
  });

  it("refuses a message from the parent's window with another origin", () => {
    // The parent window navigated elsewhere (or another site framed the frame): the source alone is not enough.
    const app = vi.fn();
    window.addEventListener("message", app);
    for (const origin of ["http://127.0.0.1:9999", "https://example.com", "null"]) {
      window.dispatchEvent(message(notebookPage, origin));
    }
    expect(app).not.toHaveBeenCalled();
    window.removeEventListener("message", app);
  });

  it("refuses another frame's message, even one that carries the parent's origin", () => {
    const app = vi.fn();
    window.addEventListener("message", app);
    window.dispatchEvent(forged());
    window.dispatchEvent(message(anotherOutput, PARENT_ORIGIN)); // a same-origin frame of the notebook
    window.dispatchEvent(message(null, PARENT_ORIGIN));
    expect(app).not.toHaveBeenCalled();
    window.dispatchEvent(message(window, "null")); // the app may post to itself
    expect(app).toHaveBeenCalledTimes(1);
    window.removeEventListener("message", app);
  });

  it("guards listener objects too", () => {
    const handleEvent = vi.fn();
    window.addEventListener("message", { handleEvent });
    window.dispatchEvent(forged());
    window.dispatchEvent(message(notebookPage, "null"));
    expect(handleEvent).not.toHaveBeenCalled();
    window.dispatchEvent(fromParent());
    expect(handleEvent).toHaveBeenCalledTimes(1);
  });
});

describe("the Model Explorer frame shim's report of who selects", () => {
  const posted = () => vi.mocked(window.parent.postMessage).mock.calls.map(([data]) => (data as { cmd: string }).cmd);
  const press = (type: string, trusted = true) => {
    const event = new Event(type, { bubbles: true });
    Object.defineProperty(event, "isTrusted", { value: trusted }); // a browser's user input is trusted
    window.dispatchEvent(event);
  };

  it("says the parent's select was heard before the app hears it", () => {
    vi.mocked(window.parent.postMessage).mockClear();
    const app = vi.fn(() => expect(posted()).toEqual(["tlw-me-select-heard"]));
    window.addEventListener("message", app);
    window.dispatchEvent(fromParent());
    expect(app).toHaveBeenCalledTimes(1);
    window.dispatchEvent(forged()); // another frame's select is not the parent's
    expect(posted()).toEqual(["tlw-me-select-heard"]);
    window.removeEventListener("message", app);
  });

  it("says once that the user pressed after it, and again only after the next select", () => {
    window.dispatchEvent(fromParent());
    vi.mocked(window.parent.postMessage).mockClear();
    press("keydown", false); // the app's own synthetic key (the parent's fit)
    expect(posted()).toEqual([]);
    press("pointerdown");
    press("mousedown");
    press("keydown");
    expect(posted()).toEqual(["tlw-me-user-pressed"]);
    window.dispatchEvent(fromParent());
    press("touchstart");
    expect(posted()).toEqual(["tlw-me-user-pressed", "tlw-me-select-heard", "tlw-me-user-pressed"]);
  });
});
