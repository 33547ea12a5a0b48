"""Benchmark: explore() in a real JupyterLab + headless Chromium, on GPT-2 (random weights).

Prints one table, for one run on this machine:
  - explore() in Python against the bare torchlens export it wraps;
  - Model Explorer: cell execution -> rendered graph, first widget on the page (assets cross the
    channel) and a later one (assets cached); the bytes each widget sent;
  - a click in the viewer -> kernel (on_select fired) -> back in the browser (status line updated);
  - Netron: cell execution -> rendered graph at each granularity, inline, against the same artifact
    served by Netron's own package (netron.serve) and opened in a plain page; asset bytes.

    .venv/bin/python benchmarks/bench_explore.py [--repeat 3]

Figures, not assertions: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer, KernelAccess, is_loopback_url, open_notebook

SETUP = """import gzip, time, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
from torchlens_widgets._netron import netron_artifact
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=12, n_embd=768, n_head=12)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 50257, (1, 16)))
clicks = []
started = {}

def best_ms(function, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        function()
        times.append(time.perf_counter() - t)
    return min(times) * 1000"""

GRANULARITIES = ("module", "op", "rolled")
SERVE = False  # --serve


def widget_cell(key: str, call: str) -> str:
    return f"started[{key!r}] = time.time()\n{key} = {call}\n{key}"


CELLS = [
    SETUP,
    widget_cell("me", "tlw.explore(log)"),
    *(widget_cell(f"n_{g}", f"tlw.explore(log, viewer='netron', granularity={g!r})") for g in GRANULARITIES),
]

RUN_CELL = """i => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = i;
  return window.jupyterapp.commands.execute('notebook:run-cell');
}"""

# The data-* timings of the widget in cell i once it is ready (null while loading).
WIDGET_TIMINGS = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  const status = root?.querySelector('.tlw-status');
  if (!status || status.dataset.state === 'loading' || !root.parentElement.dataset.renderedAt) return null;
  if (status.dataset.state === 'error') return {error: root.innerText};
  return {...root.parentElement.dataset};
}"""

FORGET_TIMINGS = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  if (root) root.parentElement.dataset.renderedAt = '';
}"""

WATCH_CLICKS = """() => {
  window.__clickAt = [];
  window.addEventListener('message', (e) => {
    if (e.data && e.data.cmd === 'model-explorer-node-selected') window.__clickAt.push(Date.now());
  });
  window.__backAt = [];
  const status = document.querySelector('.tlw-status');
  new MutationObserver(() => window.__backAt.push([Date.now(), status.textContent]))
    .observe(status, {childList: true, characterData: true, subtree: true});
}"""

WATCH_NETRON = """new MutationObserver((_, observer) => {
  if (document.querySelector('#canvas g.node')) { window.__tlwDrawnAt = Date.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true});"""

BACK_AT = "l => (window.__backAt.find(([, text]) => text.includes('selected ' + l)) || [null])[0]"


class Notebook:
    def __init__(self, page: Any, kernel: KernelAccess) -> None:
        self.page = page
        self.kernel = kernel

    def cell_to_render_ms(self, cell: int, key: str) -> float:
        """Runs ``cell`` from the page; ms from the cell's first line to the graph drawn."""
        self.page.evaluate(FORGET_TIMINGS, cell)
        self.page.evaluate(RUN_CELL, cell)
        timings = self.page.wait_for_function(WIDGET_TIMINGS, arg=cell, timeout=300_000).json_value()
        if "error" in timings:
            raise RuntimeError(timings["error"])
        return float(timings["renderedAt"]) - self.kernel.value(f"started[{key!r}]") * 1000


def summary(values: list[float]) -> str:
    listed = ", ".join(f"{v:.0f}" for v in values)
    return f"{statistics.median(values):.0f} ms (median of {len(values)}: {listed})"


def click_round_trips(page: Any, kernel: KernelAccess, count: int) -> tuple[list[float], list[float]]:
    """Alt+click nodes in Model Explorer's search results: message -> kernel -> browser, in ms."""
    kernel.run("me.on_select(lambda record: clicks.append(time.time()))")
    page.evaluate(WATCH_CLICKS)
    frame = page.locator("iframe.tlw-frame").first.content_frame
    nodes = "me._source.payload.collection['graphs'][0]['nodes']"
    labels = kernel.value(
        f"[a['value'] for n in {nodes}[100:] for a in n['attrs'] if a['key'] == 'torchlens_label']"
    )
    to_kernel, round_trip = [], []
    for label in labels[:count]:
        node_id = kernel.value(f"me._source.index.id_of_label({label!r})")
        frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(
            f"^torchlens_label={label}$".replace("(", r"\(").replace(")", r"\)")
        )
        result = frame.locator(f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node')
        result.wait_for(timeout=30_000)
        before = kernel.value("len(clicks)")
        result.click(modifiers=["Alt"])
        page.wait_for_function(f"() => ({BACK_AT})({label!r}) !== null", timeout=30_000)
        kernel.wait_for(f"len(clicks) > {before}", True, timeout=30)
        clicked = page.evaluate("window.__clickAt[window.__clickAt.length - 1]")
        to_kernel.append(kernel.value("clicks[-1]") * 1000 - clicked)
        round_trip.append(page.evaluate(BACK_AT, label) - clicked)
    return to_kernel, round_trip


def netron_serve_ms(browser: Any, kernel: KernelAccess, granularity: str, repeat: int) -> list[float] | str:
    """The same artifact served by netron.serve and opened in a plain page: navigation -> drawn.

    Returns the timings, or why there are none (the served page did not draw within a minute).
    """
    import netron

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"gpt2-{granularity}.onnx.json"
        kernel.run(
            f"open({str(path)!r}, 'wb').write(gzip.decompress(netron_artifact(log, {granularity!r}).wire[0]))"
        )
        address = netron.serve(str(path), None, address=("127.0.0.1", 0), browse=False)
        times: list[float] = []
        try:
            for _ in range(repeat):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                # Netron's browser.js replaces window.eval, which Playwright's own probes use: watch from
                # an init script and read the result over CDP instead.
                page.add_init_script(WATCH_NETRON)
                cdp = context.new_cdp_session(page)
                # Netron's own page asks the internet (consent, analytics): answered at once, empty.
                page.route(
                    lambda url: not is_loopback_url(url), lambda route: route.fulfill(status=200, body="{}")
                )
                started = time.time() * 1000
                page.goto(f"http://{address[0]}:{address[1]}/")
                drawn = 0.0
                deadline = time.monotonic() + 60
                while not drawn and time.monotonic() < deadline:
                    answer = cdp.send(
                        "Runtime.evaluate", {"expression": "window.__tlwDrawnAt || 0", "returnByValue": True}
                    )
                    drawn = float(answer["result"]["value"])
                    time.sleep(0.05)
                context.close()
                if not drawn:
                    return "not drawn within 60 s"
                times.append(drawn - started)
        finally:
            netron.stop(address)
    return times


def run(repeat: int) -> list[tuple[str, str]]:
    from playwright.sync_api import sync_playwright

    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as root, sync_playwright() as playwright:
        server = JupyterServer(Path(root)).start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            notebook = server.write_notebook("bench.ipynb", CELLS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            requests: list[str] = []
            context.on("request", lambda request: requests.append(request.url))
            open_notebook(page, server, notebook)
            kernel = server.kernel_for(notebook)
            page.evaluate(RUN_CELL, 0)
            kernel.wait_for("'best_ms' in globals()", True, timeout=600)
            nb = Notebook(page, kernel)

            collection = "tlw.explore(log)._source.payload.collection"
            nodes = kernel.value(f"sum(len(g['nodes']) for g in {collection}['graphs'])")
            python_ms = kernel.value("best_ms(lambda: tlw.explore(log))")
            export_ms = kernel.value("best_ms(lambda: tl.export.to_model_explorer_dict(log))")
            cold, warm, first_bytes, later_bytes = [], [], 0, 0
            for attempt in range(repeat):
                if attempt:  # a fresh page: its asset cache is empty again
                    open_notebook(page, server, notebook)
                cold.append(nb.cell_to_render_ms(1, "me"))
                first_bytes = kernel.value("me.bytes_sent")
                warm.append(nb.cell_to_render_ms(1, "me"))
                later_bytes = kernel.value("me.bytes_sent")
            assets = "tlw._assets.model_explorer_assets()"
            wire, raw = kernel.value(f"{assets}.wire_bytes"), kernel.value(f"{assets}.raw_bytes")
            to_kernel, round_trip = click_round_trips(page, kernel, max(5, repeat))
            rows += [
                ("GPT-2 graph (Model Explorer payload)", f"{nodes} nodes (execution + rolled graphs)"),
                ("explore() in Python vs bare tl.export", f"{python_ms:.0f} ms vs {export_ms:.0f} ms"),
                ("ME: cell -> rendered, first widget on page", summary(cold)),
                ("ME: cell -> rendered, later widget", summary(warm)),
                ("ME: bytes sent, first widget", f"{first_bytes:,} B (assets {wire:,} B gzip of {raw:,} B)"),
                ("ME: bytes sent, later widget", f"{later_bytes:,} B (graph only)"),
                ("ME: click -> kernel on_select", summary(to_kernel)),
                ("ME: click -> kernel -> browser", summary(round_trip)),
            ]
            for offset, granularity in enumerate(GRANULARITIES):
                key = f"n_{granularity}"
                inline = [nb.cell_to_render_ms(2 + offset, key) for _ in range(repeat)]
                count = kernel.value(f"{key}._graph_info['graphs'][{granularity!r}]")
                served = (
                    netron_serve_ms(browser, kernel, granularity, repeat) if SERVE else "not run (--serve)"
                )
                rows.append(
                    (f"Netron {granularity} ({count} nodes): inline, cell -> rendered", summary(inline))
                )
                served_text = summary(served) if isinstance(served, list) else served
                rows.append((f"Netron {granularity}: netron.serve page -> rendered", served_text))
            netron_wire = kernel.value("tlw._netron.netron_assets().wire_bytes")
            rows.append(("Netron: asset bytes, first Netron widget", f"{netron_wire:,} B gzip"))
            off_machine = {url for url in requests if not is_loopback_url(url)}
            rows.append(("requests off this machine (notebook page)", str(len(off_machine))))
            kernel.close()
        finally:
            browser.close()
            server.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="torchlens-widgets benchmark (JupyterLab + Chromium)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--serve",
        action="store_true",
        help="also time netron.serve's own page (its browser.js replaces window.eval; see README)",
    )
    arguments = parser.parse_args()
    global SERVE
    SERVE = arguments.serve
    rows = run(arguments.repeat)
    import torch

    print(
        f"\ntorchlens-widgets benchmark, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch {torch.__version__}, Chromium headless (software WebGL)\n"
    )
    width = max(len(name) for name, _ in rows)
    print(f"| {'measure'.ljust(width)} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {value} |")


if __name__ == "__main__":
    main()
