"""What Chromium allows in a sandboxed (opaque-origin) srcdoc frame, measured; figures, not a test.

1. Workers started from a URL the frame minted itself: classic and module, blob: and data:, with and
   without the Model Explorer frame's CSP.
2. Model Explorer itself in a ``sandbox="allow-scripts"`` frame that receives the web app's files by
   postMessage, mints its own blob: URLs (its layout worker's included), runs our frame shim and draws
   a small torchlens graph; storage and cookies are replaced by memory, as an opaque origin forbids them.

    .venv/bin/python benchmarks/probe_isolated_frames.py

Needs the test set-up (chromium, playwright) and Node (the shim is bundled with esbuild). Nothing leaves
the machine: the page is served by Playwright's router on 127.0.0.1:9.
"""

from __future__ import annotations

import base64
import html
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import torch
import torchlens as tl
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from harness import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

ORIGIN = "http://127.0.0.1:9"
ME_CSP = (
    "default-src 'none'; script-src blob: 'unsafe-inline'; style-src blob: 'unsafe-inline'; "
    "img-src blob: data:; "
    "font-src blob: data:; worker-src blob:; connect-src blob: data:"
)

WORKERS = r"""
const results = { origin: window.origin };
const body = "onmessage = (e) => postMessage('pong ' + self.origin);";
const attempt = (name, make) => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(results[name] = "no answer in 5 s"), 5000);
  let worker;
  try { worker = make(); } catch (error) {
    clearTimeout(timer);
    return resolve(results[name] = "throws " + error);
  }
  worker.onmessage = (e) => { clearTimeout(timer); resolve(results[name] = "runs: " + e.data); };
  worker.onerror = () => { clearTimeout(timer); resolve(results[name] = "error event"); };
  worker.postMessage("ping");
});
(async () => {
  const blob = URL.createObjectURL(new Blob([body], { type: "text/javascript" }));
  const data = "data:text/javascript," + encodeURIComponent(body);
  await attempt("classic worker, own blob: URL", () => new Worker(blob));
  await attempt("module worker, own blob: URL", () => new Worker(blob, { type: "module" }));
  await attempt("classic worker, data: URL", () => new Worker(data));
  await attempt("module worker, data: URL", () => new Worker(data, { type: "module" }));
  parent.postMessage({ probe: results }, "*");
})();
"""

# The isolated frame's boot: storage in memory, then mint a URL per file, run the shim, start the app.
BOOT = r"""
const post = (message) => parent.postMessage(message, "*");
const notes = {};
const memory = () => { const m = new Map(); return { getItem: (k) => (m.has(k) ? m.get(k) : null),
  setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k), clear: () => m.clear(),
  key: (i) => [...m.keys()][i] ?? null, get length() { return m.size; } }; };
for (const name of ["localStorage", "sessionStorage"]) {
  try { window[name]; notes[name] = "readable"; } catch (error) { notes[name] = "throws " + error.name; }
  Object.defineProperty(window, name, { configurable: true, value: memory() });
}
try { document.cookie; notes.cookie = "readable"; } catch (error) { notes.cookie = "throws " + error.name; }
Object.defineProperty(Document.prototype, "cookie", { configurable: true, get: () => "", set: () => {} });
try { indexedDB.open("probe"); notes.indexedDB = "opens"; }
catch (error) { notes.indexedDB = "throws " + error.name; }
post({ cmd: "probe-notes", notes });
window.addEventListener("message", function boot(event) {
  if (event.source !== parent || !event.data || event.data.cmd !== "boot") return;
  window.removeEventListener("message", boot);
  const { files, entries, shim, config } = event.data;
  const types = { js: "text/javascript", css: "text/css", png: "image/png", json: "application/json",
    woff2: "font/woff2", svg: "image/svg+xml" };
  const urls = {};
  for (const [name, bytes] of Object.entries(files)) {
    urls[name] = URL.createObjectURL(new Blob([bytes], { type: types[name.split(".").pop()] || "" }));
  }
  const shimUrls = {};
  for (const name of Object.keys(urls)) {
    if (name.startsWith("static_files/")) shimUrls[name.slice("static_files/".length)] = urls[name];
    else if (name.startsWith("worker-")) shimUrls[name] = urls[name];
  }
  window.__TLW_ME__ = { ...config, urls: shimUrls };
  const script = document.createElement("script");
  script.src = URL.createObjectURL(new Blob([shim], { type: "text/javascript" }));
  script.onload = () => {
    for (const name of entries) {
      if (name.endsWith(".css")) {
        const css = new TextDecoder().decode(files[name])
          .replace(/url\(\/?(static_files\/[^)]+\.woff2)\)/g,
            (all, file) => (urls[file] ? `url(${urls[file]})` : "url(data:,)"));
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = URL.createObjectURL(new Blob([css], { type: "text/css" }));
        document.head.appendChild(link);
      } else {
        const module = document.createElement("script");
        module.type = "module";
        module.async = false;
        module.src = urls[name];
        document.body.appendChild(module);
      }
    }
  };
  document.head.appendChild(script);
});
post({ cmd: "hello" });
"""

PARENT = """<!doctype html><html><body style="margin:0"><script>
window.__log = [];
const payload = PAYLOAD;
const files = {};
for (const [name, b64] of Object.entries(payload.files)) {
  files[name] = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}
const started = performance.now();
window.addEventListener("message", (event) => {
  const frame = document.querySelector("iframe").contentWindow;
  if (event.source !== frame || !event.data) return;
  if (event.data.probe) window.__probe = event.data.probe;
  const message = event.data;
  window.__log.push({ t: Math.round(performance.now() - started), origin: event.origin, ...message });
  if (message.cmd === "hello") {
    const { entries, shim, config } = payload;
    frame.postMessage({ cmd: "boot", files, entries, shim, config }, "*");
  } else if (message.cmd === "tlw-me-fetch") {
    frame.postMessage({ cmd: "tlw-me-fetch-reply", id: message.id, status: 200, body: payload.graph }, "*");
  }
});
</script><iframe style="width:1200px;height:700px;border:0" sandbox="allow-scripts" srcdoc="SRCDOC">
</iframe></body></html>"""


def frame_page(frame_html: str, payload: dict[str, object]) -> str:
    data = json.dumps(payload).replace("</", "<\\/")
    return PARENT.replace("PAYLOAD", data).replace("SRCDOC", html.escape(frame_html, quote=True))


def serve(body: str) -> Callable[[Any], None]:
    """A route handler answering ``body`` (a two-argument handler would get the request as well)."""
    return lambda route: route.fulfill(body=body, content_type="text/html")


def shim_source() -> str:
    """js/model-explorer/frame-shim.ts as a classic script. In an opaque-origin frame the parent's
    origin is not the frame's own: the shim is told it (what a config field would carry)."""
    out = subprocess.run(
        ["npx", "esbuild", "js/model-explorer/frame-shim.ts", "--bundle", "--format=iife"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.replace("event.origin === window.origin", f"event.origin === {ORIGIN!r}").replace(
        "event.origin !== window.origin", f"event.origin !== {ORIGIN!r}"
    )


def model_explorer_payload() -> dict[str, object]:
    web = resources.files("model_explorer") / "web_app"
    files: dict[str, str] = {}
    for item in [*web.iterdir(), *(web / "static_files").iterdir()]:
        if item.is_file():
            name = item.name if item.parent.name == "web_app" else f"static_files/{item.name}"
            files[name] = base64.b64encode(item.read_bytes()).decode()
    index = (web / "index.html").read_text()
    entries = re.findall(
        r'(?:src|href)="((?:main|polyfills)-[A-Za-z0-9]+\.js|styles-[A-Za-z0-9]+\.css)"', index
    )
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    graph = json.dumps(tl.export.to_model_explorer_dict(tl.trace(model, torch.randn(1, 4))))
    adapter = {
        "fileExts": ["json"],
        "type": "adapter",
        "id": "builtin_json",
        "name": "JSON adapter",
        "description": "",
    }
    query = "data=" + quote(json.dumps({"models": [{"url": "graphs://g/0"}]}), safe="")
    return {
        "files": files,
        "entries": entries,
        "graph": graph,
        "shim": shim_source(),
        "config": {"extensions": [adapter], "query": query},
    }


def main() -> None:
    payload = model_explorer_payload()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        print("Chromium", browser.version)
        for csp in (False, True):
            head = f'<meta http-equiv="Content-Security-Policy" content="{ME_CSP}">' if csp else ""
            page = browser.new_page()
            doc = f"<!doctype html><html><head>{head}</head><body><script>{WORKERS}</script></body></html>"
            body = frame_page(doc, {"files": {}})
            page.route(f"{ORIGIN}/", serve(body))
            page.goto(f"{ORIGIN}/")
            page.wait_for_function("window.__probe", timeout=60_000)
            print(f"workers in a sandboxed frame{' under the Model Explorer CSP' if csp else ''}:")
            for key, value in page.evaluate("window.__probe").items():
                print(f"  {key}: {value}")
            page.close()

        page = browser.new_page(viewport={"width": 1300, "height": 800})
        console: list[str] = []
        workers: list[str] = []
        page.on("console", lambda message: console.append(f"{message.type}: {message.text[:200]}"))
        page.on("worker", lambda worker: workers.append(worker.url[:40]))
        doc = (
            '<!doctype html><html><head><base href="about:srcdoc">'
            f'<meta http-equiv="Content-Security-Policy" '
            f'content="{ME_CSP}"><script>{BOOT}</script></head><body><app-root></app-root></body></html>'
        )
        body = frame_page(doc, payload)
        page.route(f"{ORIGIN}/", serve(body))
        started = time.monotonic()
        page.goto(f"{ORIGIN}/")
        page.wait_for_function(
            "window.__log.some((m) => m.cmd === 'tlw-me-rendered' || (m.cmd === 'tlw-me-failed' && m.fatal))",
            timeout=120_000,
        )
        log = page.evaluate("window.__log")
        drawn = next((m for m in log if m.get("cmd") == "tlw-me-rendered"), None)
        print("Model Explorer in a sandboxed frame minting its own blob: URLs:")
        print(
            f"  outcome: {'drawn' if drawn else 'failed'}",
            f"({time.monotonic() - started:.1f} s after navigation)",
        )
        print(f"  frame origin (as the parent sees it): {log[0]['origin']}")
        print(f"  opaque origin forbids: {next(m['notes'] for m in log if m.get('cmd') == 'probe-notes')}")
        print(f"  workers started: {workers}")
        canvas = page.frames[1].evaluate(
            "(() => { const c = document.querySelector('webgl-renderer canvas');"
            " return c && [c.width, c.height]; })()"
        )
        print(f"  renderer canvas: {canvas}")
        print(f"  console errors: {[line for line in console if line.startswith('error')]}")
        page.screenshot(path=str(ROOT / "test-artifacts" / "probe-isolated-model-explorer.png"))
        browser.close()


if __name__ == "__main__":
    main()
