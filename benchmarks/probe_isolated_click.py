"""Does an out-of-process (sandboxed) Model Explorer frame free the page after a click? Figures only.

    .venv/bin/python benchmarks/probe_isolated_click.py --case gpt2 --clicks 10

The same page twice: Model Explorer in a srcdoc frame WITH ``sandbox="allow-scripts"`` (an opaque
origin: Chromium runs it in a renderer process of its own) and WITHOUT (the page's origin, its main
thread: how the widget runs it today). The frame boots as in probe_isolated_frames.py (files by
postMessage, blob: URLs minted inside, our frame shim). Each click is a search result Alt+clicked
(as bench_explore.py does); the page answers ``model-explorer-node-selected`` as the widget would
after a fast kernel: 15 ms later it writes a status line, and the next animation frame after that is
when it can be painted. Timed from the selection message reaching the page.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from harness import CHROMIUM, CHROMIUM_ARGS
from probe_isolated_frames import BOOT, ME_CSP, ORIGIN, frame_page, model_explorer_payload, serve

# The parent's stand-in for the widget: status line 15 ms after the selection (a fast kernel).
WATCH = """() => {
  window.__rounds = [];
  const status = document.createElement('div');
  status.id = 'status';
  document.body.prepend(status);
  window.addEventListener('message', (e) => {
    if (!e.data || e.data.cmd !== 'model-explorer-node-selected') return;
    const clicked = performance.now();
    setTimeout(() => {
      status.textContent = 'selected ' + e.data.nodeId;
      const written = performance.now();
      requestAnimationFrame(() => window.__rounds.push([written - clicked, performance.now() - clicked]));
    }, 15);
  }, true);
}"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="gpt2")
    parser.add_argument("--clicks", type=int, default=10)
    parser.add_argument("--width", type=int, default=740, help="frame width, px (the widget's at 1,100 px)")
    args = parser.parse_args()

    import torch
    import torchlens as tl
    from bench_models import build

    model, x = build(args.case)
    with torch.no_grad():
        collection = tl.export.to_model_explorer_dict(tl.trace(model, x))
    payload = model_explorer_payload()
    payload["graph"] = json.dumps(collection)
    nodes = collection["graphs"][0]["nodes"]
    targets = [
        (node["id"], attr["value"])
        for node in nodes[len(nodes) // 2 :]
        for attr in node["attrs"]
        if attr["key"] == "torchlens_label"
    ][: args.clicks]
    results = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for sandboxed in (True, False, True, False):
            doc = (
                '<!doctype html><html><head><base href="about:srcdoc">'
                f'<meta http-equiv="Content-Security-Policy" '
                f'content="{ME_CSP}"><script>{BOOT}</script></head><body><app-root></app-root></body></html>'
            )
            body = frame_page(doc, payload).replace("width:1200px", f"width:{args.width}px")
            if not sandboxed:
                body = body.replace('sandbox="allow-scripts" ', "")
            page = browser.new_page(viewport={"width": args.width + 100, "height": 800})
            page.route(f"{ORIGIN}/", serve(body))
            page.goto(f"{ORIGIN}/")
            page.wait_for_function(
                "window.__log.some((m) => m.cmd === 'tlw-me-rendered' ||"
                " (m.cmd === 'tlw-me-failed' && m.fatal))",
                timeout=300_000,
            )
            page.wait_for_timeout(1000)
            page.evaluate(WATCH)
            frame = page.frame_locator("iframe")
            for node_id, label in targets:
                before = page.evaluate("window.__rounds.length")
                frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(
                    f"^torchlens_label={label}$".replace("(", r"\(").replace(")", r"\)")
                )
                result = frame.locator(f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node').first
                result.wait_for(timeout=30_000)
                result.click(modifiers=["Alt"])
                page.wait_for_function(f"window.__rounds.length > {before}", timeout=60_000)
                page.wait_for_timeout(300)
            rounds = page.evaluate("window.__rounds")
            key = "sandboxed (own process)" if sandboxed else "same origin (page's process)"
            results.setdefault(key, {"written": [], "painted": []})
            results[key]["written"] += [round(w) for w, _ in rounds]
            results[key]["painted"] += [round(p) for _, p in rounds]
            page.close()
        browser.close()
    for key, value in results.items():
        print(
            f"{key}: status written median {statistics.median(value['written']):.0f} ms, "
            f"next frame median {statistics.median(value['painted']):.0f} ms; samples {value['painted']}"
        )


if __name__ == "__main__":
    main()
