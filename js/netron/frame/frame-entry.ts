// Runs INSIDE the Netron frame as its only classic inline script (bundled as an IIFE by build.mjs's
// `frame:` loader): boots Netron with this widget's host (netron-host.ts) and hands the parent's
// requests to navigation.ts.
//
// Boot: post "hello"; the parent answers with the module texts (already rewritten to bare
// `netron/x.js` specifiers); mint a blob: URL per module (a sandboxed frame cannot load the
// parent's blob: URLs, so it makes its own), add the import map, import view.js and base.js, start
// Netron's View, post "ready". The host is a classic script rather than a blob module so that the
// import map can be added before the first module import: once a module load starts, a page's
// import map can no longer change.
import { forwardEscape, keepFocusWithUser } from "../../frame/frame-manners";
import { importMap, MODULE_PREFIX, rewriteModule } from "../document";
import { errorText } from "../../shared/error-text";
import { fromParent, post } from "./frame-messages";
import { WidgetFrame } from "./navigation";
import { FrameHost, load } from "./netron-host";
import type { BaseModule, ViewModule } from "./netron-view";
import { NETRON_BOOT, NETRON_ESCAPE, NETRON_FAILED, NETRON_HELLO, NETRON_READY, type NetronBootMessage } from "../protocol";

/** The nonce of this script, the only inline script the frame's CSP lets run (the import map needs it). */
const NONCE = document.currentScript?.nonce ?? "";

/** A module worker for dagre layout, if this frame can run one; null otherwise (main-thread layout). */
async function layoutWorker(workerSource: string | null, dagreUrl: string): Promise<string | null> {
  // An opaque-origin (sandboxed) frame cannot start a *module* worker from its own blob: URLs
  // (measured in Chromium 156: an error event, no message; a classic worker from the same URL runs),
  // and Netron's worker.js is a module that imports dagre.js: do not spend the attempt.
  if (!workerSource || window.origin === "null") return null;
  // Workers do not see the document's import map: point worker.js straight at dagre's blob URL.
  const url = URL.createObjectURL(new Blob([rewriteModule(workerSource, () => dagreUrl)], { type: "text/javascript" }));
  try {
    const worker = new Worker(url, { type: "module" });
    const works = await new Promise<boolean>((resolve) => {
      const timer = window.setTimeout(() => resolve(false), 3000);
      worker.onmessage = (event: MessageEvent) => {
        window.clearTimeout(timer);
        resolve((event.data as { type?: string }).type === "dagre.layout");
      };
      worker.onerror = () => {
        window.clearTimeout(timer);
        resolve(false);
      };
      worker.postMessage({ type: "dagre.layout", nodes: [], edges: [], layout: {}, state: {} });
    });
    worker.terminate();
    return works ? url : null;
  } catch {
    return null;
  }
}

async function boot(message: NetronBootMessage): Promise<void> {
  const urls: Record<string, string> = {};
  for (const [file, text] of Object.entries(message.modules)) {
    urls[file] = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  }
  const map = document.createElement("script");
  map.type = "importmap";
  map.nonce = NONCE; // an import map is an inline script to the CSP
  map.textContent = JSON.stringify(importMap(urls));
  document.head.appendChild(map);

  const [base, viewModule, workerUrl] = await Promise.all([
    load<BaseModule>(`${MODULE_PREFIX}base.js`),
    load<ViewModule>(`${MODULE_PREFIX}view.js`),
    urls["dagre.js"] ? layoutWorker(message.worker, urls["dagre.js"]) : Promise.resolve(null),
  ]);
  const host = new FrameHost(message.version, new Set(Object.keys(urls)), base.BinaryStream, workerUrl);
  const view = new viewModule.View(host);
  await view.start();
  const frame = new WidgetFrame(view, host);
  window.addEventListener("message", (event: MessageEvent) => {
    if (fromParent(event)) frame.receive(event.data);
  });
  post({ cmd: NETRON_READY, worker: workerUrl !== null });
}

// Links: off-page ones (About page, welcome page) would navigate the frame to the network, and
// Netron's `javascript:void(0)` buttons would run a URL (the CSP refuses it, loudly). Only in-page
// fragments follow their default; Netron's own click handlers still run.
document.addEventListener(
  "click",
  (event) => {
    const link = (event.target as Element | null)?.closest?.("a[href]");
    if (link && !(link.getAttribute("href") ?? "").startsWith("#")) event.preventDefault();
  },
  true,
);

// Netron focuses its graph on every open: only where the user is (../frame-manners.ts).
keepFocusWithUser();
// Escape inside the frame reaches the page too: the page takes the focus back (and a maximized widget restores).
forwardEscape(() => post({ cmd: NETRON_ESCAPE }));

window.addEventListener("error", (event) => post({ cmd: NETRON_FAILED, message: String(event.message || event.error) }));
window.addEventListener("unhandledrejection", (event) => post({ cmd: NETRON_FAILED, message: errorText(event.reason) }));

const onBoot = (event: MessageEvent): void => {
  const data = event.data as NetronBootMessage | undefined;
  if (!fromParent(event) || !data || data.cmd !== NETRON_BOOT) return;
  window.removeEventListener("message", onBoot);
  // `start`: Netron never started in this frame, nothing will be drawn (the parent fails at once).
  boot(data).catch((error: unknown) =>
    post({ cmd: NETRON_FAILED, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error), start: true }),
  );
};
window.addEventListener("message", onBoot);
post({ cmd: NETRON_HELLO });
