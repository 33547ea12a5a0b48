// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { SHIM_BOOT, SHIM_START, type ShimBootMessage } from "../../../../js/model-explorer/protocol";
import { clearShimTimersAfterAll } from "./shim-timers";

// The Model Explorer frame boots before the graph has landed: it takes the app's files and has the
// browser compile the app's scripts, but runs them only once the start query (which names the graph)
// has come from its parent; the app reads that query as it starts.
// happy-dom runs no scripts here: an added script is loaded as an empty one, not reported as an error.
(window as unknown as { happyDOM: { settings: Record<string, unknown> } }).happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
vi.spyOn(window.parent, "postMessage").mockImplementation(() => {});
clearShimTimersAfterAll();
const PARENT_ORIGIN = "http://127.0.0.1:8888";
const config = { urls: {}, parentOrigin: PARENT_ORIGIN, query: "", extensions: [] };
Object.assign(window, { __TLW_ME__: config });
await import("../../../../js/model-explorer/frame/frame-boot");

const empty = new Uint8Array();
const BOOT: ShimBootMessage = {
  cmd: SHIM_BOOT,
  files: { "polyfills-A.js": empty, "main-B.js": empty },
  fonts: [],
  assets: [],
  styles: [],
  entries: ["polyfills-A.js", "main-B.js"],
  inlineStyles: ["@font-face{font-family:X;src:url(https://fonts.example/x.woff2)}body{margin:0}"],
};
const QUERY = "data=%7B%7D";
const fromParent = (data: unknown) => new MessageEvent("message", { data, origin: PARENT_ORIGIN, source: window.parent });
const fromElsewhere = (data: unknown) => new MessageEvent("message", { data, origin: "null", source: null });
const preloads = () => [...document.head.querySelectorAll<HTMLLinkElement>("link[rel=modulepreload]")].map((link) => link.href);
const scripts = () => [...document.body.querySelectorAll<HTMLScriptElement>("script[type=module]")].map((script) => script.src);

describe("the Model Explorer frame's boot", () => {
  it("compiles the app's scripts with its files, and runs them only with the start query from its parent", () => {
    window.dispatchEvent(fromParent(BOOT));
    expect(preloads()).toHaveLength(2);
    // index.html's own style is a blob: stylesheet: the frame's CSP lets no inline <style> apply but Angular's.
    expect(document.head.querySelectorAll("style")).toHaveLength(0);
    expect([...document.head.querySelectorAll<HTMLLinkElement>("link[rel=stylesheet]")].map((link) => link.href.slice(0, 5))).toEqual([
      "blob:",
    ]);
    expect(scripts()).toEqual([]); // the app would start with no graph to ask for

    window.dispatchEvent(fromElsewhere({ cmd: SHIM_START, query: "data=forged" }));
    expect(scripts()).toEqual([]);
    expect(config.query).toBe("");

    window.dispatchEvent(fromParent({ cmd: SHIM_START, query: QUERY }));
    expect(config.query).toBe(QUERY);
    expect(scripts()).toEqual(preloads()); // the compiled scripts, in index.html's order

    window.dispatchEvent(fromParent({ cmd: SHIM_START, query: "data=again" }));
    expect(config.query).toBe(QUERY); // the app started once, with the first query
    expect(scripts()).toHaveLength(2);
  });
});
