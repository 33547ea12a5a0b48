// Runs INSIDE the Model Explorer frame as its only classic inline script (bundled as an IIFE by
// build.mjs's `frame:` loader): the shim first (./frame-shim.ts), then the boot.
//
// The frame is sandboxed (an opaque origin, so Chromium runs it in a process of its own: the app's
// WebGL frames do not block the notebook page). It cannot load the page's blob: URLs, so it asks the
// parent for the app's files, mints its own URLs, hands them to the shim, and adds the app's styles
// and asks the browser to compile the app's module scripts (modulepreload) while the kernel is still
// sending the graph. The scripts run when the start query arrives (SHIM_START), as they would from
// index.html.
import { rewriteFontFaces } from "../document";
import "./frame-shim";
import { SHIM_BOOT, SHIM_HELLO, SHIM_START, type ShimBootMessage, type ShimStartMessage } from "../protocol";

const config = window.__TLW_ME__;
const targetOrigin = config.parentOrigin === "null" ? "*" : config.parentOrigin;
const fromParent = (event: MessageEvent) => event.source === window.parent && event.origin === config.parentOrigin;

// An opaque origin has no cookies: reading document.cookie throws a SecurityError.
Object.defineProperty(Document.prototype, "cookie", { configurable: true, get: () => "", set: () => {} });

const MIME: Record<string, string> = {
  js: "text/javascript",
  css: "text/css",
  png: "image/png",
  json: "application/json",
  woff2: "font/woff2",
  svg: "image/svg+xml",
};
const mint = (bytes: Uint8Array, type: string) => URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
const mimeOf = (name: string) => MIME[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream";
/** The app asks for its atlases and worker by bare name; the bundle keeps some under static_files/. */
const bareName = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/** The app's module scripts' URLs, in index.html's order, once minted (null before SHIM_BOOT). */
let entryUrls: string[] | null = null;
let started = false;

function boot(message: ShimBootMessage): void {
  const bytes = (name: string) => message.files[name] ?? new Uint8Array();
  const text = (name: string) => new TextDecoder().decode(bytes(name));
  const fontUrls: Record<string, string> = {};
  for (const name of message.fonts) fontUrls[name] = mint(bytes(name), mimeOf(name));
  for (const name of message.assets) config.urls[bareName(name)] = mint(bytes(name), mimeOf(name));
  // index.html's own <style>s, as blob: stylesheets in their place: the frame's CSP lets no inline
  // <style> apply but Angular's (its nonce), and their fonts' URLs are only known here.
  for (const css of message.inlineStyles) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = mint(new TextEncoder().encode(rewriteFontFaces(css, fontUrls)), "text/css");
    document.head.appendChild(link);
  }
  for (const name of message.styles) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = mint(new TextEncoder().encode(rewriteFontFaces(text(name), fontUrls)), "text/css");
    document.head.appendChild(link);
  }
  entryUrls = message.entries.map((name) => mint(bytes(name), mimeOf(name)));
  for (const url of entryUrls) {
    // Fetched and compiled now, run later: compiling the app's 2 MB overlaps the graph's journey.
    const preload = document.createElement("link");
    preload.rel = "modulepreload";
    preload.href = url;
    document.head.appendChild(preload);
  }
  run();
}

/** Runs the app's scripts once it has both its files and its start query. */
function run(): void {
  if (!entryUrls || !config.query || started) return;
  started = true;
  for (const url of entryUrls) {
    const script = document.createElement("script");
    script.type = "module";
    script.async = false; // in index.html's order: polyfills before main
    script.src = url;
    document.body.appendChild(script);
  }
}

const onMessage = (event: MessageEvent): void => {
  const data = event.data as ShimBootMessage | ShimStartMessage | undefined;
  if (!fromParent(event) || !data) return;
  if (data.cmd === SHIM_BOOT && !entryUrls) {
    // The app's scripts need its <app-root>: the files may arrive before the parser has reached it.
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => boot(data), { once: true });
    else boot(data);
  } else if (data.cmd === SHIM_START && !config.query && data.query) {
    config.query = data.query;
    run();
  }
  if (started) window.removeEventListener("message", onMessage);
};
window.addEventListener("message", onMessage);
window.parent.postMessage({ cmd: SHIM_HELLO }, targetOrigin);
