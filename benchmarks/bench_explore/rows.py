"""The rows of the table, and how ratios and sums derive from measured rows."""

from __future__ import annotations

# Rows of the table: key, title, unit ("ms", "MB", "B", "n", "x" for a ratio of two other rows).
ROWS: list[tuple[str, str, str]] = [
    ("nodes_me", "nodes: Model Explorer execution graph", "n"),
    ("nodes_netron", "nodes: Netron, module granularity", "n"),
    ("py_me", "Python: explore(log) + first graph reply, ms", "ms"),
    ("py_me_export", "Python: tl.export.to_model_explorer_dict, ms", "ms"),
    ("py_me_ratio", "  ratio explore / export", "x"),
    ("py_me_rerun", "Python: the same, re-run (the export kept), ms", "ms"),
    ("py_netron", "Python: explore(log, viewer='netron') + graph reply, ms", "ms"),
    ("py_netron_export", "Python: tl.export.netron(path), ms", "ms"),
    ("py_netron_ratio", "  ratio explore / export", "x"),
    ("py_netron_rerun", "Python: the same, re-run (the export kept), ms", "ms"),
    ("me_first", "ME inline: cell -> rendered, first widget, ms", "ms"),
    ("me_first_kernel", "  of which the kernel: cell start -> explore() returned", "ms"),
    ("me_first_display", "  of which -> the view asks for its graph (display, widget made)", "ms"),
    ("me_first_fetch", "  of which -> graph in page (reply, assets, transfer, decode)", "ms"),
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
    ("netron_first_kernel", "  of which the kernel: cell start -> explore() returned", "ms"),
    ("netron_first_display", "  of which -> the view asks for its graph (display, widget made)", "ms"),
    ("netron_first_fetch", "  of which -> graph in page (reply, assets, transfer, decode)", "ms"),
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
    ("mem_me_later", "  a later ME widget of the same trace, MB (tracemalloc)", "MB"),
    ("mem_me_export", "kernel memory per bare export dict, MB (tracemalloc)", "MB"),
    ("mem_me_ratio", "  ratio ME widget / export dict", "x"),
    ("mem_netron", "kernel memory per Netron widget, MB (tracemalloc)", "MB"),
    ("mem_netron_rss", "kernel memory per Netron widget, MB (RSS growth)", "MB"),
    ("mem_netron_later", "  a later Netron widget of the same trace, MB (tracemalloc)", "MB"),
    ("offline", "requests off this machine: notebook / ME page / Netron page", "n"),
    ("me_lab_ws_bytes", "ME JupyterLab: kernel-socket bytes received, first widget's cell", "B"),
    ("me_vscode_first", "ME VS Code host: cell -> rendered, first widget, ms", "ms"),
    ("me_vscode_first_browser", "  of which graph in page -> drawn", "ms"),
    ("me_vscode_time_ratio", "  ratio VS Code host / JupyterLab (first widget)", "x"),
    ("me_vscode_bytes", "ME VS Code host: widget-message bytes the webview received", "B"),
    ("me_vscode_largest", "  of which the largest message", "B"),
    ("me_vscode_bytes_ratio", "  ratio VS Code host / JupyterLab socket bytes", "x"),
    ("me_vscode_asset_requests", "ME VS Code host: viewer-app transfers for one explorer", "n"),
    ("me_overlay", "ME drawn graph: overlay switch -> drawn, ms", "ms"),
    ("me_overlay_ratio", "  ratio / first widget", "x"),
    ("me_overlay_kept", "  drawn in the same frame", "n"),
    ("me_overlay_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("me_overlay_browser", "  of which graph in page -> drawn", "ms"),
    ("me_baseline", "ME drawn graph: baseline set -> drawn, ms", "ms"),
    ("me_baseline_ratio", "  ratio / first widget", "x"),
    ("me_baseline_kept", "  drawn in the same frame", "n"),
    ("me_baseline_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("me_baseline_browser", "  of which graph in page -> drawn", "ms"),
    ("me_unbaseline", "ME drawn graph: baseline cleared -> drawn, ms", "ms"),
    ("me_unbaseline_ratio", "  ratio / first widget", "x"),
    ("me_unbaseline_kept", "  drawn in the same frame", "n"),
    ("me_unbaseline_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("me_unbaseline_browser", "  of which graph in page -> drawn", "ms"),
    ("me_highlight", "ME drawn graph: highlight (12 ops) or clear -> drawn, ms", "ms"),
    ("me_highlight_ratio", "  ratio / first widget", "x"),
    ("me_highlight_kept", "  drawn in the same frame", "n"),
    ("netron_overlay", "Netron drawn graph: overlay switch -> drawn, ms", "ms"),
    ("netron_overlay_ratio", "  ratio / first widget", "x"),
    ("netron_overlay_kept", "  drawn in the same frame", "n"),
    ("netron_overlay_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("netron_overlay_browser", "  of which graph in page -> drawn", "ms"),
    ("netron_baseline", "Netron drawn graph: baseline set -> drawn, ms", "ms"),
    ("netron_baseline_ratio", "  ratio / first widget", "x"),
    ("netron_baseline_kept", "  drawn in the same frame", "n"),
    ("netron_baseline_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("netron_baseline_browser", "  of which graph in page -> drawn", "ms"),
    ("netron_unbaseline", "Netron drawn graph: baseline cleared -> drawn, ms", "ms"),
    ("netron_unbaseline_ratio", "  ratio / first widget", "x"),
    ("netron_unbaseline_kept", "  drawn in the same frame", "n"),
    ("netron_unbaseline_kernel", "  of which the kernel ran the change (torchlens' work)", "ms"),
    ("netron_unbaseline_browser", "  of which graph in page -> drawn", "ms"),
    ("netron_highlight", "Netron drawn graph: highlight (12 ops) or clear -> drawn, ms", "ms"),
    ("netron_highlight_ratio", "  ratio / first widget", "x"),
    ("netron_highlight_kept", "  drawn in the same frame", "n"),
    ("me_expand", "ME inline: layers expanded to an op inside (its select) -> drawn, ms", "ms"),
    ("me_expand_served", "ME served page: the same -> drawn, ms", "ms"),
    ("me_expand_ratio", "  ratio widget / served page", "x"),
    ("netron_expand", "Netron inline: a module call's body opened -> drawn, ms", "ms"),
    ("netron_expand_served", "Netron served page: the same -> drawn, ms", "ms"),
    ("netron_expand_ratio", "  ratio widget / served page", "x"),
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
    "me_expand_ratio": ("me_expand", "me_expand_served"),
    "netron_expand_ratio": ("netron_expand", "netron_expand_served"),
    **{
        f"{viewer}_{change}_ratio": (f"{viewer}_{change}", f"{viewer}_first")
        for viewer in ("me", "netron")
        for change in ("overlay", "baseline", "unbaseline", "highlight")
    },
}
# A reader runs the next cell seconds after the last graph drew: by then a Model Explorer app is
# parked for it (js/model-explorer/parked-app.ts parks one once the page has been quiet for 1.5 s).
NEXT_CELL_PAUSE_S = 3.0
# Which widgets inline() times, per viewer: the first on a fresh page, a later one run at once, and
# (Model Explorer, which parks an app) a next one run NEXT_CELL_PAUSE_S after the last drew.
INLINE_ORDERS = {"me": ("first", "later", "next"), "netron": ("first", "later")}
# The parts of a first widget's cell -> rendered before its graph is in the page (notebook.py).
FIRST_PARTS = ("_kernel", "_display", "_fetch")
# What inline() measures: cell -> rendered (and its browser part), bytes sent, per viewer and order.
INLINE_ROWS = tuple(
    f"{viewer}_{measure}{order}{part}"
    for viewer, orders in INLINE_ORDERS.items()
    for order in orders
    for measure, part in (("", ""), ("", "_browser"), ("bytes_", ""), *(("", p) for p in FIRST_PARTS))
    if not (order == "next" and measure) and (part not in FIRST_PARTS or order == "first")
)
# The served viewers end to end, from a trace in the kernel (netron.serve starts in-process at once).
SUMS = {
    "me_served_total": ("py_me_export", "me_server_start", "me_served"),
    "netron_served_total": ("py_netron_export", "netron_served"),
}
