// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { SHIM_FAILED } from "../../../../js/model-explorer/protocol";
import { clearShimTimersAfterAll } from "./shim-timers";

// Before the shim runs, this window behaves as a third-party frame without storage does in Chromium
// with third-party cookies blocked: reading localStorage or sessionStorage throws a SecurityError.
for (const name of ["localStorage", "sessionStorage"]) {
  Object.defineProperty(window, name, {
    configurable: true,
    get() {
      throw new DOMException(`Failed to read the '${name}' property from 'Window'`, "SecurityError");
    },
  });
}
const posted: Record<string, unknown>[] = [];
vi.spyOn(window.parent, "postMessage").mockImplementation((message: unknown) => {
  posted.push(message as Record<string, unknown>);
});
vi.spyOn(console, "error").mockImplementation(() => {}); // the shim wraps it: a quiet test output
clearShimTimersAfterAll();
Object.assign(window, { __TLW_ME__: { urls: {}, parentOrigin: "null", query: "", extensions: [] } });
await import("../../../../js/model-explorer/frame/frame-shim");

describe("the Model Explorer frame shim where the browser blocks storage", () => {
  it("answers localStorage and sessionStorage from memory", () => {
    window.localStorage.setItem("theme", "dark");
    expect(window.localStorage.getItem("theme")).toBe("dark");
    expect(window.localStorage.length).toBe(1);
    window.sessionStorage.setItem("search", "addmm");
    expect(window.sessionStorage.getItem("search")).toBe("addmm");
    expect(window.localStorage.getItem("search")).toBeNull(); // two stores, as in a browser
  });

  it("reports errors the app only logs, so a draw time-out names them instead of WebGL", () => {
    // What Angular's ErrorHandler does with an error a component threw.
    console.error("ERROR", new DOMException("Access is denied for this document.", "SecurityError"));
    const failure = posted.find((message) => message.cmd === SHIM_FAILED);
    expect(failure).toMatchObject({ fatal: false });
    expect(String(failure?.message)).toContain("SecurityError: Access is denied");
  });
});
