// Runs INSIDE the Model Explorer frame as its only classic inline script (bundled as an IIFE by
// build.mjs's `frame:` loader): the shim first (./frame-shim.ts), then the boot.
//
// The frame is sandboxed (an opaque origin, so Chromium runs it in a process of its own: the app's
// WebGL frames do not block the notebook page). It cannot load the page's blob: URLs, so it asks the
// parent for the app's files, mints its own URLs, hands them to the shim, and adds the app's styles
// and module scripts, which then start as they would from index.html.
import { rewriteFontFaces } from "./document";
import "./frame-shim";
import { SHIM_BOOT, SHIM_HELLO, type ShimBootMessage } from "./protocol";

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

function boot(message: ShimBootMessage): void {
  const bytes = (name: string) => message.files[name] ?? new Uint8Array();
  const text = (name: string) => new TextDecoder().decode(bytes(name));
  const fontUrls: Record<string, string> = {};
  for (const name of message.fonts) fontUrls[name] = mint(bytes(name), mimeOf(name));
  for (const name of message.assets) config.urls[bareName(name)] = mint(bytes(name), mimeOf(name));
  for (const css of message.inlineStyles) {
    const style = document.createElement("style");
    style.textContent = rewriteFontFaces(css, fontUrls);
    document.head.appendChild(style);
  }
  for (const name of message.styles) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = mint(new TextEncoder().encode(rewriteFontFaces(text(name), fontUrls)), "text/css");
    document.head.appendChild(link);
  }
  for (const name of message.entries) {
    const script = document.createElement("script");
    script.type = "module";
    script.async = false; // in index.html's order: polyfills before main
    script.src = mint(bytes(name), mimeOf(name));
    document.body.appendChild(script);
  }
}

const onBoot = (event: MessageEvent): void => {
  const data = event.data as ShimBootMessage | undefined;
  if (!fromParent(event) || !data || data.cmd !== SHIM_BOOT) return;
  window.removeEventListener("message", onBoot);
  // The app's scripts need its <app-root>: the files may arrive before the parser has reached it.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => boot(data), { once: true });
  else boot(data);
};
window.addEventListener("message", onBoot);
window.parent.postMessage({ cmd: SHIM_HELLO }, targetOrigin);
