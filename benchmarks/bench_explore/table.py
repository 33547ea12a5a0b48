"""The printed table (one column per case) and the notes under it."""

from __future__ import annotations

from benchmarks.bench_explore.results import Results
from benchmarks.bench_explore.rows import ROWS

NOTES = """\
- inline, cell -> rendered: from the cell's first line (so explore() included) to the graph drawn in the
  page; "graph in page -> drawn" is the browser's part once assets and graph arrived. Every repeat opens
  a fresh page, so the first widget's viewer assets cross the widget channel each time. A first
  widget's time is split: the kernel until explore() returned; until the view asked for its graph (the
  display message, the widget model, the view made); until the graph and the viewer's assets were in
  the page (the kernel's graph reply, the transfer, gunzip); until drawn.
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
  made and dropped (one-time caches not counted); each of a trace explored the first time (it exports
  and keeps its graph), and "later" of a trace already explored (it shares that export);
  tracemalloc = Python heap, RSS = resident growth.
- requests off this machine: none are let out; the served pages' are answered empty in the browser.
- VS Code host: VS Code's ipywidgets 8 manager (@vscode/jupyter-ipywidgets8) in a cross-site sandboxed
  webview; every kernel message reaches it as JSON (binary frames as arrays of byte values), as VS
  Code's IPC carries them. Cell -> rendered as for JupyterLab (first explorer on a fresh page). Bytes:
  JSON the webview received during that cell; JupyterLab: kernel websocket frames the page received
  during its first explorer's cell (both include every message of that window, not only buffers).
- drawn graph (overlay, baseline, highlight): from the kernel running the change to the view's next
  draw (its draw counter; a highlight: until its marks are painted), on the widgets first drawn, each
  after the page was quiet 4 s; "same frame": the frame element marked before the change is still
  there (no new frame, no app boot). A baseline is another run of the model (noise on its weights
  and float input: its deltas are not zero), set with its delta overlay shown (untimed), then switched
  to a second such run and back, then cleared. Each is
  split: the kernel running the change (torchlens' work: building an overlay the first time, a
  baseline's diff_report); until the view asked for the graph; until the graph was in the page (the
  kernel's reply); the browser's paint.
- expanded / opened: the same script in the widget's frame and in the served page, on the graph as
  first drawn, each after the page was quiet 4 s. Model Explorer: its own select-node message for an op
  inside collapsed layers (in a different block each time) until those layers are expanded in the graph
  its renderer draws and two frames painted; Netron: a click on the "show function" icon of the root
  graph's biggest module call until its body is laid out and painted (then back). Then, on Model
  Explorer's graph left opened, overlays, a baseline and a highlight, timed as on the first view and
  also read from the page's pixels: the tab's composited frames (Chromium's screencast, each stamped
  when made) until the first whose pixels over the canvas differ from the last frame before the change.
  "apart": that time minus the widget's own figure, for each change the pixels showed."""


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
