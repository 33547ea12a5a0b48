"""Benchmark: explore() in a real JupyterLab + headless Chromium, on five traces, in one run.

    .venv/bin/python -m benchmarks.bench_explore            # the full matrix, 3 repeats (~20 min, 2 CPUs)
    .venv/bin/python -m benchmarks.bench_explore --quick    # 1 repeat, fewer clicks (~10 min)
    .venv/bin/python -m benchmarks.bench_explore --cases gpt2,bert --repeat 5

Cases (benchmarks/bench_models.py; transformers models from configs, random weights, nothing
downloaded): GPT-2 small, BERT base, ViT base, GPT-2 with 48 layers (64 wide), a synthetic
10,000-op trace. For each, in a kernel of its own:

  - Python: explore() and its first graph reply (where it exports) against the bare torchlens
    export it wraps (both viewers), best of 3;
  - cell execution -> graph rendered inline (first widget on a fresh page, where the viewer's assets
    cross the widget channel; a later one, its cell run as soon as the first drew; for Model Explorer
    also a next one, its cell run NEXT_CELL_PAUSE_S later, as a reader runs the next cell, by when
    an app is parked for it: js/model-explorer/parked-app.ts), against the same graph in the same
    viewer served by its own package (Model Explorer's server from ai-edge-model-explorer,
    netron.serve) and opened in a plain page (navigation -> rendered);
  - bytes: over the widget channel for the first and a later widget; HTTP bodies of the served page;
  - a click in the viewer -> on_select in the kernel -> status line updated in the browser;
  - kernel memory held per widget (tracemalloc and resident set), against the bare export;
  - the same Model Explorer cell in an emulated VS Code notebook (tests/helpers/vscode_host: VS Code's
    ipywidgets manager in a cross-site webview, fed as VS Code's IPC feeds it): cell -> rendered and
    the widget-message bytes its webview received, beside JupyterLab's kernel-socket bytes.

    .venv/bin/python -m benchmarks.bench_explore --cases gpt2 --quick --parts inline,vscode

Prints one table (medians; ratios inline/served and explore/export), and progress on stderr.
Figures, not assertions: nothing here fails on a slow machine; a step that fails prints why.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_models import CASES
from tests.helpers.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    JupyterServer,
    KernelAccess,
    free_port,
    is_loopback_url,
    open_notebook,
)
from tests.helpers.vscode_host.host import VSCodeHost, VSCodeNotebook

REPO = (
    Path(__file__).resolve().parents[1]
)  # the kernel imports benchmarks.bench_models and bench_kernel from here
RENDER_TIMEOUT_MS = 300_000

SETUP = """import sys, time, torch, torchlens as tl, torchlens_widgets as tlw
sys.path.insert(0, {repo!r})
from benchmarks.bench_kernel import best_ms, explored, held_mb, netron_export, shown, write_served_files
from benchmarks.bench_models import build
model, x = build({case!r})
with torch.no_grad():
    log = tl.trace(model, x)
clicks, started = [], {{}}"""


def widget_cell(key: str, call: str) -> str:
    return f"started[{key!r}] = time.time()\n{key} = {call}\n{key}"


CELLS = [widget_cell("me", "tlw.explore(log)"), widget_cell("nt", "tlw.explore(log, viewer='netron')")]
ME_CELL, NETRON_CELL = 0, 1

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

# Selection messages the viewer frame posts to the page (heard in the capture phase, before the
# widget's own listener forwards them to the kernel), and the status line of the widget in cell i.
WATCH_CLICKS = """([i, command]) => {
  window.__clickAt = [];
  window.addEventListener('message', (e) => {
    if (e.data && e.data.cmd === command) window.__clickAt.push(Date.now());
  }, true);
  window.__backAt = [];
  const status = document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelector('.tlw-status');
  new MutationObserver(() => window.__backAt.push([Date.now(), status.textContent]))
    .observe(status, {childList: true, characterData: true, subtree: true});
}"""

BACK_AT = """([label, after]) =>
  (window.__backAt.find(([at, text]) => at >= after && text.includes('selected ' + label)) || [null])[0]"""

# In the served pages (init scripts, polled over CDP: Netron's browser.js replaces window.eval, which
# Playwright's own evaluate relies on). Model Explorer: the same test the widget's frame shim uses.
ME_RENDERED = """(() => { const poll = setInterval(() => {
  const canvas = document.querySelector('webgl-renderer canvas');
  if (canvas && canvas.width > 0 && !document.querySelector('mat-spinner')) {
    window.__renderedAt = Date.now(); clearInterval(poll);
  }
}, 50); })();"""
# Netron: nodes exist (invisible) while it measures them; laid out, they have a position, and the page
# leaves its "welcome spinner" state (what view.open() awaits in the widget's frame).
NETRON_RENDERED = """(() => { const poll = setInterval(() => {
  if (document.body.classList.contains('default') && document.querySelector('#canvas g.node[transform]')) {
    window.__renderedAt = Date.now(); clearInterval(poll);
  }
}, 50); })();"""

NOTES = """\
- inline, cell -> rendered: from the cell's first line (so explore() included) to the graph drawn in the
  page; "graph in page -> drawn" is the browser's part once assets and graph arrived. Every repeat opens
  a fresh page, so the first widget's viewer assets cross the widget channel each time.
- served, page -> rendered: a fresh browser context (empty cache) opens the page of a server already
  running on a file already written; "export + ..." adds the bare torchlens export (and for Model
  Explorer its server's start). Netron's page gets a consent cookie (a returning visitor), and does not
  load torchlens' metrics companion, which the widget does.
- rendered: Model Explorer's WebGL canvas drawn with no spinner left (the widget's frame uses the same
  test); Netron: nodes laid out and the page out of its spinner state.
- bytes: widget = buffers over the widget channel (gzip); served = HTTP response bodies of the page.
- click -> browser status: a search result Alt+clicked in Model Explorer (a root-graph box in Netron),
  until the status line shows the label the kernel sent back. Both viewers' frames are sandboxed and
  run in a process of their own, so their drawing after a click does not hold the page's status line.
- memory: per widget (its graph answered once, as when displayed), several alive at once, after one
  made and dropped (one-time caches not counted); tracemalloc = Python heap, RSS = resident growth.
- requests off this machine: none are let out; the served pages' are answered empty in the browser.
- VS Code host: VS Code's ipywidgets 8 manager (@vscode/jupyter-ipywidgets8) in a cross-site sandboxed
  webview; every kernel message reaches it as JSON (binary frames as arrays of byte values), as VS
  Code's IPC carries them. Cell -> rendered as for JupyterLab (first explorer on a fresh page). Bytes:
  JSON the webview received during that cell; JupyterLab: kernel websocket frames the page received
  during its first explorer's cell (both include every message of that window, not only buffers)."""

# ----- results -------------------------------------------------------------------------------------

# Rows of the table: key, title, unit ("ms", "MB", "B", "n", "x" for a ratio of two other rows).
ROWS: list[tuple[str, str, str]] = [
    ("nodes_me", "nodes: Model Explorer execution graph", "n"),
    ("nodes_netron", "nodes: Netron, module granularity", "n"),
    ("py_me", "Python: explore(log) + first graph reply, ms", "ms"),
    ("py_me_export", "Python: tl.export.to_model_explorer_dict, ms", "ms"),
    ("py_me_ratio", "  ratio explore / export", "x"),
    ("py_netron", "Python: explore(log, viewer='netron') + graph reply, ms", "ms"),
    ("py_netron_export", "Python: tl.export.netron(path), ms", "ms"),
    ("py_netron_ratio", "  ratio explore / export", "x"),
    ("me_first", "ME inline: cell -> rendered, first widget, ms", "ms"),
    ("me_first_browser", "  of which graph in page -> drawn", "ms"),
    ("me_later", "ME inline: cell -> rendered, later widget, ms", "ms"),
    ("me_later_browser", "  of which graph in page -> drawn", "ms"),
    ("me_next", "ME inline: cell -> rendered, next widget (3 s after), ms", "ms"),
    ("me_next_browser", "  of which graph in page -> drawn", "ms"),
    ("me_served", "ME served (model-explorer): page -> rendered, ms", "ms"),
    ("me_first_ratio", "  ratio first widget / served page", "x"),
    ("me_later_ratio", "  ratio later widget / served page", "x"),
    ("me_next_ratio", "  ratio next widget / served page", "x"),
    ("me_server_start", "ME served: server start, ms", "ms"),
    ("me_served_total", "ME served: export + server start + page, ms", "ms"),
    ("me_total_ratio", "  ratio first widget / export + server + page", "x"),
    ("netron_first", "Netron inline: cell -> rendered, first widget, ms", "ms"),
    ("netron_first_browser", "  of which graph in page -> drawn", "ms"),
    ("netron_later", "Netron inline: cell -> rendered, later widget, ms", "ms"),
    ("netron_later_browser", "  of which graph in page -> drawn", "ms"),
    ("netron_served", "Netron served (netron.serve): page -> rendered, ms", "ms"),
    ("netron_first_ratio", "  ratio first widget / served page", "x"),
    ("netron_later_ratio", "  ratio later widget / served page", "x"),
    ("netron_served_total", "Netron served: export + page, ms", "ms"),
    ("netron_total_ratio", "  ratio first widget / export + page", "x"),
    ("me_bytes_first", "ME bytes: first widget (assets + graph, gzip)", "B"),
    ("me_bytes_later", "ME bytes: later widget (graph, gzip)", "B"),
    ("me_bytes_served", "ME bytes: served page (HTTP bodies)", "B"),
    ("me_bytes_ratio", "  ratio first widget / served page", "x"),
    ("netron_bytes_first", "Netron bytes: first widget (assets + graph)", "B"),
    ("netron_bytes_later", "Netron bytes: later widget (graph)", "B"),
    ("netron_bytes_served", "Netron bytes: served page (HTTP bodies)", "B"),
    ("netron_bytes_ratio", "  ratio first widget / served page", "x"),
    ("me_click_kernel", "ME click -> kernel on_select, ms", "ms"),
    ("me_click_round", "ME click -> kernel -> browser status, ms", "ms"),
    ("netron_click_kernel", "Netron click -> kernel on_select, ms", "ms"),
    ("netron_click_round", "Netron click -> kernel -> browser status, ms", "ms"),
    ("mem_me", "kernel memory per ME widget, MB (tracemalloc)", "MB"),
    ("mem_me_rss", "kernel memory per ME widget, MB (RSS growth)", "MB"),
    ("mem_me_export", "kernel memory per bare export dict, MB (tracemalloc)", "MB"),
    ("mem_me_ratio", "  ratio ME widget / export dict", "x"),
    ("mem_netron", "kernel memory per Netron widget, MB (tracemalloc)", "MB"),
    ("mem_netron_rss", "kernel memory per Netron widget, MB (RSS growth)", "MB"),
    ("offline", "requests off this machine: notebook / ME page / Netron page", "n"),
    ("me_lab_ws_bytes", "ME JupyterLab: kernel-socket bytes received, first widget's cell", "B"),
    ("me_vscode_first", "ME VS Code host: cell -> rendered, first widget, ms", "ms"),
    ("me_vscode_first_browser", "  of which graph in page -> drawn", "ms"),
    ("me_vscode_time_ratio", "  ratio VS Code host / JupyterLab (first widget)", "x"),
    ("me_vscode_bytes", "ME VS Code host: widget-message bytes the webview received", "B"),
    ("me_vscode_largest", "  of which the largest message", "B"),
    ("me_vscode_bytes_ratio", "  ratio VS Code host / JupyterLab socket bytes", "x"),
    ("me_vscode_asset_requests", "ME VS Code host: viewer-app transfers for one explorer", "n"),
]

RATIOS = {
    "py_me_ratio": ("py_me", "py_me_export"),
    "py_netron_ratio": ("py_netron", "py_netron_export"),
    "me_first_ratio": ("me_first", "me_served"),
    "me_later_ratio": ("me_later", "me_served"),
    "me_next_ratio": ("me_next", "me_served"),
    "netron_first_ratio": ("netron_first", "netron_served"),
    "netron_later_ratio": ("netron_later", "netron_served"),
    "me_bytes_ratio": ("me_bytes_first", "me_bytes_served"),
    "netron_bytes_ratio": ("netron_bytes_first", "netron_bytes_served"),
    "mem_me_ratio": ("mem_me", "mem_me_export"),
    "me_total_ratio": ("me_first", "me_served_total"),
    "netron_total_ratio": ("netron_first", "netron_served_total"),
    "me_vscode_time_ratio": ("me_vscode_first", "me_first"),
    "me_vscode_bytes_ratio": ("me_vscode_bytes", "me_lab_ws_bytes"),
}
# A reader runs the next cell seconds after the last graph drew: by then a Model Explorer app is
# parked for it (js/model-explorer/parked-app.ts parks one once the page has been quiet for 1.5 s).
NEXT_CELL_PAUSE_S = 3.0
# Which widgets inline() times, per viewer: the first on a fresh page, a later one run at once, and
# (Model Explorer, which parks an app) a next one run NEXT_CELL_PAUSE_S after the last drew.
INLINE_ORDERS = {"me": ("first", "later", "next"), "netron": ("first", "later")}
# What inline() measures: cell -> rendered (and its browser part), bytes sent, per viewer and order.
INLINE_ROWS = tuple(
    f"{viewer}_{measure}{order}{part}"
    for viewer, orders in INLINE_ORDERS.items()
    for order in orders
    for measure, part in (("", ""), ("", "_browser"), ("bytes_", ""))
    if not (order == "next" and measure)
)
# The served viewers end to end, from a trace in the kernel (netron.serve starts in-process at once).
SUMS = {
    "me_served_total": ("py_me_export", "me_server_start", "me_served"),
    "netron_served_total": ("py_netron_export", "netron_served"),
}


@dataclass
class Results:
    """Values by row key and case: a number, a list of samples (shown as their median), or text."""

    values: dict[str, dict[str, float | list[float] | str]] = field(default_factory=dict)

    def put(self, row: str, case: str, value: float | list[float] | str) -> None:
        self.values.setdefault(row, {})[case] = value
        log(f"  {case} {row}: {describe(value)}")

    def number(self, row: str, case: str) -> float | None:
        if row in SUMS:
            parts = [self.number(key, case) for key in SUMS[row]]
            return None if None in parts else sum(p for p in parts if p is not None)
        if row in RATIOS:
            top, bottom = (self.number(key, case) for key in RATIOS[row])
            return top / bottom if top is not None and bottom else None
        value = self.values.get(row, {}).get(case)
        if isinstance(value, list):
            return statistics.median(value) if value else None
        return float(value) if isinstance(value, int | float) else None

    def cell(self, row: str, unit: str, case: str) -> str:
        value = self.values.get(row, {}).get(case)
        if isinstance(value, str):
            return value
        number = self.number(row, case)
        if number is None:
            return "-"
        return {"x": f"{number:.2f}x", "MB": f"{number:,.1f}"}.get(unit, f"{number:,.0f}")


def describe(value: float | list[float] | str) -> str:
    if isinstance(value, list):
        return ", ".join(f"{v:.0f}" for v in value)
    return str(value)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@contextmanager
def step(results: Results, case: str, rows: tuple[str, ...]) -> Iterator[None]:
    """Runs a measurement; if it fails, its rows say why instead of stopping the run."""
    try:
        yield
    except Exception as error:  # a figure missing, not a run lost
        reason = f"failed: {type(error).__name__}"
        log(f"  {case} {rows}: {reason}: {str(error)[:300]}")
        for row in rows:
            results.values.setdefault(row, {}).setdefault(case, reason)


# ----- the notebook ---------------------------------------------------------------------------------


@dataclass
class Notebook:
    page: Any
    kernel: KernelAccess
    socket_bytes: list[int] = field(default_factory=lambda: [0])  # kernel websocket frames received

    def cell_to_render_ms(self, cell: int, key: str) -> tuple[float, float]:
        """Runs ``cell`` from the page: ms from the cell's first line to the graph drawn, and the part of
        that spent in the browser once the viewer's assets and graph were in the page."""
        self.page.evaluate(FORGET_TIMINGS, cell)
        self.page.evaluate(RUN_CELL, cell)
        timings = self.page.wait_for_function(
            WIDGET_TIMINGS, arg=cell, timeout=RENDER_TIMEOUT_MS
        ).json_value()
        if "error" in timings:
            raise RuntimeError(timings["error"])
        total = float(timings["renderedAt"]) - self.kernel.value(f"started[{key!r}]") * 1000
        return total, float(timings["renderMs"])


def python_side(results: Results, case: str, kernel: KernelAccess, repeat: int) -> None:
    kernel.run("_me = tlw.explore(log); _nt = tlw.explore(log, viewer='netron')", timeout=900)
    results.put("nodes_me", case, kernel.value("_me._source.payload.graph_sizes['00-execution']"))
    results.put("nodes_netron", case, kernel.value("len(_nt._source.index)"))
    kernel.run("_me.close(); _nt.close(); del _me, _nt")
    timed = {
        "py_me": "explored(log)",
        "py_me_export": "tl.export.to_model_explorer_dict(log)",
        "py_netron": "explored(log, viewer='netron')",
        "py_netron_export": "netron_export(log)",
    }
    for row, call in timed.items():
        results.put(row, case, kernel.value(f"best_ms(lambda: {call}, {repeat})", timeout=1800))


def kernel_memory(results: Results, case: str, kernel: KernelAccess, count: int) -> None:
    made = {
        ("mem_me", "mem_me_rss"): "shown(tlw.explore(log))",
        ("mem_netron", "mem_netron_rss"): "shown(tlw.explore(log, viewer='netron'))",
        ("mem_me_export", ""): "tl.export.to_model_explorer_dict(log)",
    }
    for (traced_row, rss_row), make in made.items():
        traced, rss = kernel.value(f"held_mb(lambda: {make}, {count})", timeout=1800)
        results.put(traced_row, case, traced)
        if rss_row:
            results.put(rss_row, case, rss)


def inline(
    results: Results, case: str, notebook: Notebook, server: JupyterServer, name: str, repeat: int
) -> None:
    """Each repeat on a fresh page (its asset cache empty): each viewer's cell in INLINE_ORDERS."""
    samples: dict[str, list[float]] = {}
    kernel = notebook.kernel
    for attempt in range(repeat):
        if attempt:
            open_notebook(notebook.page, server, name)
        for viewer, cell, key in (("me", ME_CELL, "me"), ("netron", NETRON_CELL, "nt")):
            for order in INLINE_ORDERS[viewer]:
                if order == "next":
                    time.sleep(NEXT_CELL_PAUSE_S)
                socket_before = notebook.socket_bytes[0]
                total, browser = notebook.cell_to_render_ms(cell, key)
                if (viewer, order) == ("me", "first"):
                    samples.setdefault("me_lab_ws_bytes", []).append(notebook.socket_bytes[0] - socket_before)
                samples.setdefault(f"{viewer}_{order}", []).append(total)
                samples.setdefault(f"{viewer}_{order}_browser", []).append(browser)
                if order != "next":  # the same graph as the later widget's
                    results.values.setdefault(f"{viewer}_bytes_{order}", {})[case] = kernel.value(
                        f"{key}.bytes_sent"
                    )
    for row, values in samples.items():
        results.put(row, case, values)


def count_socket_bytes(page: Any, counter: list[int]) -> None:
    """Adds the size of every frame the page receives on a kernel websocket to ``counter[0]``."""

    def on_socket(socket: Any) -> None:
        if "/channels" in socket.url:
            socket.on("framereceived", lambda payload: counter.__setitem__(0, counter[0] + len(payload)))

    page.on("websocket", on_socket)


VSCODE_RENDERED = """() => {
  const root = document.querySelector('.tlw-root');
  const status = root?.querySelector('.tlw-status');
  if (!status || status.dataset.state === 'loading' || !root.parentElement.dataset.renderedAt) return null;
  if (status.dataset.state === 'error') return {error: root.innerText};
  return {...root.parentElement.dataset};
}"""


def vscode_host(
    results: Results, case: str, host: VSCodeHost, server: JupyterServer, browser: Any, repeat: int
) -> None:
    """The first explorer of a fresh emulated VS Code notebook, each repeat on a kernel of its own."""
    samples: dict[str, list[float]] = {}
    for _ in range(repeat):
        kernel_id = server.api("POST", "/api/kernels", {"name": "python3"})["id"]
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        kernel: KernelAccess | None = None
        try:
            page = context.new_page()
            page.goto(host.url(server.base_url, server.token, kernel_id))
            notebook = VSCodeNotebook(page, host.webview_origin)
            kernel = KernelAccess(server.runtime_dir / f"kernel-{kernel_id}.json")
            notebook.run(SETUP.format(repo=str(REPO), case=case))
            before = notebook.counters()
            notebook.run(widget_cell("me", "tlw.explore(log)"))
            timings = notebook.webview.wait_for_function(
                VSCODE_RENDERED, timeout=RENDER_TIMEOUT_MS
            ).json_value()
            if "error" in timings:
                raise RuntimeError(timings["error"])
            after = notebook.counters()
            started = kernel.value("started['me']") * 1000
            samples.setdefault("me_vscode_first", []).append(float(timings["renderedAt"]) - started)
            samples.setdefault("me_vscode_first_browser", []).append(float(timings["renderMs"]))
            samples.setdefault("me_vscode_bytes", []).append(after["kernelBytes"] - before["kernelBytes"])
            samples.setdefault("me_vscode_largest", []).append(after["largestMessage"])
            samples.setdefault("me_vscode_asset_requests", []).append(float(timings.get("assetRequests", 0)))
        finally:
            if kernel is not None:
                kernel.close()
            context.close()
            server.api("DELETE", f"/api/kernels/{kernel_id}")
    for row, values in samples.items():
        results.put(row, case, values)


def click_round_trips(
    notebook: Notebook, cell: int, command: str, key: str, targets: list[tuple[str, str]], count: int
) -> tuple[list[float], list[float]]:
    """Clicks ``targets`` ((selector in the frame, node label) pairs) in turn: ms to kernel, and back."""
    page, kernel = notebook.page, notebook.kernel
    kernel.run(f"{key}.on_select(lambda record: clicks.append(time.time()))")
    page.evaluate(WATCH_CLICKS, [cell, command])
    frame = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("iframe.tlw-frame").content_frame
    to_kernel, round_trip = [], []
    for i in range(count):
        target, label = targets[i % len(targets)]
        before = kernel.value("len(clicks)")
        clicked_after = page.evaluate("Date.now()")
        click = frame.locator(target).first
        if key == "me":  # found through Model Explorer's search bar, Alt+click selects without zooming
            frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(
                f"^torchlens_label={label}$".replace("(", r"\(").replace(")", r"\)")
            )
            click.wait_for(timeout=30_000)
            click.click(modifiers=["Alt"])
        else:
            click.click()
        kernel.wait_for(f"len(clicks) > {before}", True, timeout=30)
        page.wait_for_function(f"() => ({BACK_AT})([{label!r}, {clicked_after}]) !== null", timeout=30_000)
        clicked = page.evaluate("window.__clickAt[window.__clickAt.length - 1]")
        to_kernel.append(kernel.value("clicks[-1]") * 1000 - clicked)
        round_trip.append(page.evaluate(BACK_AT, [label, clicked_after]) - clicked)
    return to_kernel, round_trip


def me_click_targets(kernel: KernelAccess, count: int) -> list[tuple[str, str]]:
    """Nodes from the second half of the execution graph: their search result, their label."""
    nodes = "me._source.payload.collection['graphs'][0]['nodes']"
    labels = kernel.value(
        f"[a['value'] for n in {nodes}[len({nodes}) // 2:] for a in n['attrs'] "
        "if a['key'] == 'torchlens_label']"
    )[:count]
    ids = [kernel.value(f"me._source.index.id_of_label({label!r})") for label in labels]
    return [
        (f'search-bar mat-tree-node[data-id="{i}"] .edge-node', label)
        for i, label in zip(ids, labels, strict=True)
    ]


def netron_click_targets(kernel: KernelAccess) -> list[tuple[str, str]]:
    """Two boxes of the root graph (module calls first), clicked in turn: a repeat is no new selection."""
    entries = kernel.value(
        "sorted(((not e.module_address, e.node_id, e.label) for e in nt._source.index if not e.graph))[:2]"
    )
    return [(f'g.node[id="node-name-{node_id}"] .node-item-type', label) for _, node_id, label in entries]


def clicks(results: Results, case: str, notebook: Notebook, count: int) -> None:
    kernel = notebook.kernel
    with step(results, case, ("me_click_kernel", "me_click_round")):
        me = click_round_trips(
            notebook, ME_CELL, "model-explorer-node-selected", "me", me_click_targets(kernel, count), count
        )
        results.put("me_click_kernel", case, me[0])
        results.put("me_click_round", case, me[1])
    with step(results, case, ("netron_click_kernel", "netron_click_round")):
        targets = netron_click_targets(kernel)
        netron = click_round_trips(notebook, NETRON_CELL, "tlw-netron-selected", "nt", targets, count)
        results.put("netron_click_kernel", case, netron[0])
        results.put("netron_click_round", case, netron[1])


# ----- the viewers served by their own packages ----------------------------------------------------


@dataclass
class PageLoad:
    ms: float
    body_bytes: int
    off_machine: int


def plain_page_load(browser: Any, url: str, watch: str, *, consent_cookie: bool = False) -> PageLoad:
    """Opens ``url`` in a fresh context (empty cache): navigation -> ``watch`` sets __renderedAt."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        if consent_cookie:  # Netron asks a first-time visitor to accept cookies before it opens anything
            context.add_cookies([{"name": "consent", "value": str(int(time.time() * 1000)), "url": url}])
        page = context.new_page()
        page.add_init_script(watch)
        off_machine: list[str] = []
        # Both apps ask the internet for something (fonts; consent, analytics): answered at once, empty.
        page.route(
            lambda address: not is_loopback_url(address),
            lambda route: (off_machine.append(route.request.url), route.fulfill(status=200, body="{}")),
        )
        finished: list[Any] = []
        page.on("requestfinished", lambda request: finished.append(request))
        cdp = context.new_cdp_session(page)
        started = time.time() * 1000
        page.goto(url)
        rendered = 0.0
        deadline = time.monotonic() + RENDER_TIMEOUT_MS / 1000
        while not rendered:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} not rendered within {RENDER_TIMEOUT_MS / 1000:.0f} s")
            answer = cdp.send(
                "Runtime.evaluate", {"expression": "window.__renderedAt || 0", "returnByValue": True}
            )
            rendered = float(answer["result"]["value"])
            time.sleep(0.05)
        body = sum(
            request.sizes()["responseBodySize"] for request in finished if is_loopback_url(request.url)
        )
        return PageLoad(rendered - started, body, len(off_machine))
    finally:
        context.close()


@contextmanager
def model_explorer_server(graph: str, folder: str) -> Iterator[tuple[str, float]]:
    """``model-explorer <graph.json>`` on 127.0.0.1: (the page URL it prints, ms to start serving)."""
    port = free_port()
    command = [sys.executable, "-m", "model_explorer", graph, "--host=127.0.0.1", f"--port={port}"]
    # Its version check (PyPI, GitHub) gets a dead proxy: nothing leaves the machine, nothing waits.
    dead = "http://127.0.0.1:9"
    env = {**os.environ, "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "NO_PROXY": "127.0.0.1,localhost"}
    output = Path(folder) / "model-explorer.log"
    started = time.monotonic()
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--no_open_in_browser"], env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        prefix = f"http://127.0.0.1:{port}/"
        url = ""
        while not url:
            if process.poll() is not None or time.monotonic() - started > 120:
                raise RuntimeError(f"model-explorer did not serve: {output.read_text()[-1000:]}")
            url = next((line for line in output.read_text().splitlines() if line.startswith(prefix)), "")
            time.sleep(0.05)
        yield url, (time.monotonic() - started) * 1000
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def served(results: Results, case: str, browser: Any, kernel: KernelAccess, repeat: int) -> list[int]:
    """Both viewers' own servers on the same graphs; returns off-machine request counts (ME, Netron)."""
    import netron

    offline = [0, 0]
    with tempfile.TemporaryDirectory() as folder:
        me_path, netron_path = kernel.value(f"write_served_files(log, {folder!r})", timeout=900)
        with step(results, case, ("me_served", "me_server_start", "me_bytes_served")):
            with model_explorer_server(me_path, folder) as (url, start_ms):
                results.put("me_server_start", case, start_ms)
                loads = [plain_page_load(browser, url, ME_RENDERED) for _ in range(repeat)]
            results.put("me_served", case, [load.ms for load in loads])
            results.put("me_bytes_served", case, loads[-1].body_bytes)
            offline[0] = loads[-1].off_machine
        with step(results, case, ("netron_served", "netron_bytes_served")):
            address = netron.serve(netron_path, None, address=("127.0.0.1", 0), browse=False)
            try:
                url = f"http://{address[0]}:{address[1]}/"
                loads = [
                    plain_page_load(browser, url, NETRON_RENDERED, consent_cookie=True) for _ in range(repeat)
                ]
            finally:
                netron.stop(address)
            results.put("netron_served", case, [load.ms for load in loads])
            results.put("netron_bytes_served", case, loads[-1].body_bytes)
            offline[1] = loads[-1].off_machine
    return offline


# ----- one case, all cases --------------------------------------------------------------------------


PARTS = ("python", "memory", "inline", "served", "vscode")


@dataclass(frozen=True)
class Settings:
    repeat: int
    clicks: int
    widgets: int  # alive at once when measuring kernel memory
    parts: tuple[str, ...] = PARTS


def run_case(
    case: str, settings: Settings, server: JupyterServer, host: VSCodeHost, browser: Any, results: Results
) -> None:
    started = time.monotonic()
    log(f"{case}: {CASES[case].description}")
    name = server.write_notebook(f"bench-{case}.ipynb", CELLS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    kernel: KernelAccess | None = None
    try:
        page = context.new_page()
        notebook = Notebook(page, None)  # type: ignore[arg-type]  (the kernel once the page started it)
        count_socket_bytes(page, notebook.socket_bytes)
        open_notebook(page, server, name)
        kernel = notebook.kernel = server.kernel_for(name)
        kernel.run(SETUP.format(repo=str(REPO), case=case), timeout=1800)
        log(f"  {case}: traced in {time.monotonic() - started:.0f} s")
        parts = settings.parts
        if "python" in parts:
            with step(
                results,
                case,
                ("nodes_me", "nodes_netron", "py_me", "py_me_export", "py_netron", "py_netron_export"),
            ):
                python_side(results, case, kernel, settings.repeat)
        if "memory" in parts:
            rows = ("mem_me", "mem_me_rss", "mem_me_export", "mem_netron", "mem_netron_rss")
            with step(results, case, rows):
                kernel_memory(results, case, kernel, settings.widgets)
        if "inline" in parts:
            with step(results, case, (*INLINE_ROWS, "me_lab_ws_bytes")):
                inline(results, case, notebook, server, name, settings.repeat)
                clicks(results, case, notebook, settings.clicks)
        off_notebook = len({url for url in requests if not is_loopback_url(url)})
        off_me, off_netron = (
            served(results, case, browser, kernel, settings.repeat) if "served" in parts else (0, 0)
        )
        results.put("offline", case, f"{off_notebook} / {off_me} / {off_netron}")
        if "vscode" in parts:
            rows = ("me_vscode_first", "me_vscode_first_browser", "me_vscode_bytes", "me_vscode_largest")
            with step(results, case, (*rows, "me_vscode_asset_requests")):
                vscode_host(results, case, host, server, browser, settings.repeat)
    finally:
        if kernel is not None:
            kernel.close()
        context.close()
        for session in server.api("GET", "/api/sessions"):  # this case's kernel: its memory back
            if session.get("path") == name:
                server.api("DELETE", f"/api/sessions/{session['id']}")
    log(f"{case}: done in {time.monotonic() - started:.0f} s")


def run(cases: list[str], settings: Settings) -> Results:
    from playwright.sync_api import sync_playwright

    results = Results()
    with tempfile.TemporaryDirectory() as root, sync_playwright() as playwright:
        host = VSCodeHost.start(Path(root) / "vscode-host")
        (Path(root) / "jupyter").mkdir()
        # The VS Code host's page (another origin) talks to this server too.
        server = JupyterServer(Path(root) / "jupyter", extra_args=[f"--ServerApp.allow_origin={host.origin}"])
        server.start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for case in cases:
                try:
                    run_case(case, settings, server, host, browser, results)
                except Exception as error:  # e.g. the trace itself failed: the other cases still run
                    log(f"{case}: failed: {type(error).__name__}: {str(error)[:500]}")
        finally:
            browser.close()
            server.stop()
            host.stop()
    return results


def table(results: Results, cases: list[str]) -> str:
    headers = ["measure (median)", *cases]
    body = [[title, *(results.cell(key, unit, case) for case in cases)] for key, title, unit in ROWS]
    widths = [max(len(row[i]) for row in [headers, *body]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        padded = [
            cells[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)),
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), rule, *map(line, body)])


def main() -> None:
    parser = argparse.ArgumentParser(description="torchlens-widgets benchmark (JupyterLab + Chromium)")
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats of each measure (default 3)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 2 clicks, 2 widgets for memory")
    parser.add_argument(
        "--cases", default=",".join(CASES), help=f"comma-separated subset of {','.join(CASES)}"
    )
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)} (default all)"
    )
    arguments = parser.parse_args()
    parts = tuple(part.strip() for part in arguments.parts.split(",") if part.strip())
    if set(parts) - set(PARTS):
        parser.error(f"unknown parts {sorted(set(parts) - set(PARTS))}; choose from {', '.join(PARTS)}")
    cases = [case.strip() for case in arguments.cases.split(",") if case.strip()]
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; choose from {', '.join(CASES)}")
    repeat = 1 if arguments.quick else arguments.repeat
    settings = Settings(
        repeat=repeat,
        clicks=2 if arguments.quick else max(5, repeat),
        widgets=2 if arguments.quick else 3,
        parts=parts,
    )
    started = time.monotonic()
    results = run(cases, settings)
    import torch

    minutes = (time.monotonic() - started) / 60
    print(
        f"\ntorchlens-widgets benchmark, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch {torch.__version__}, Chromium headless (software WebGL); "
        f"medians of {settings.repeat} (clicks: {settings.clicks}), wall time {minutes:.1f} min\n"
    )
    for case in cases:
        print(f"- {case}: {CASES[case].description}")
    print()
    print(table(results, cases))
    print()
    print(NOTES)


if __name__ == "__main__":
    main()
