"""Measured in the kernel: explore() and its first graph reply against the bare export, memory held."""

from __future__ import annotations

from benchmarks.bench_explore.results import Results
from tests.helpers.harness import KernelAccess


def python_side(results: Results, case: str, kernel: KernelAccess, repeat: int) -> None:
    kernel.run("_me = tlw.explore(log); _nt = tlw.explore(log, viewer='netron')", timeout=900)
    results.put("nodes_me", case, kernel.value("_me._source.payload.graph_sizes['00-execution']"))
    results.put("nodes_netron", case, kernel.value("len(_nt._source.index)"))
    kernel.run("_me.close(); _nt.close(); del _me, _nt")
    # A trace explored the first time: no export kept (cleared before each call, untimed).
    first = "setup=_export_cache.clear"
    timed = {
        "py_me": f"lambda: explored(log), {repeat}, {first}",
        "py_me_rerun": f"lambda: explored(log), {repeat}",
        "py_me_export": f"lambda: tl.export.to_model_explorer_dict(log), {repeat}",
        "py_netron": f"lambda: explored(log, viewer='netron'), {repeat}, {first}",
        "py_netron_rerun": f"lambda: explored(log, viewer='netron'), {repeat}",
        "py_netron_export": f"lambda: netron_export(log), {repeat}",
        # The memory picture: torchlens' own calls, then all the strip's reply costs a fresh widget.
        "py_memory": f"lambda: observe.estimated_liveness(observe.memory_timeline_v2(log)), {repeat}",
        "py_memory_strip": f"lambda: memory_strip_reply(log), {repeat}",
    }
    for row, arguments in timed.items():
        results.put(row, case, kernel.value(f"best_ms({arguments})", timeout=1800))


def kernel_memory(results: Results, case: str, kernel: KernelAccess, count: int) -> None:
    # A widget of a trace explored the first time holds its export; a later one of the same trace
    # shares it (the per-trace export cache).
    made = {
        ("mem_me", "mem_me_rss"): "shown_first(lambda: tlw.explore(log))",
        ("mem_me_later", ""): "shown(tlw.explore(log))",
        ("mem_netron", "mem_netron_rss"): "shown_first(lambda: tlw.explore(log, viewer='netron'))",
        ("mem_netron_later", ""): "shown(tlw.explore(log, viewer='netron'))",
        ("mem_me_export", ""): "tl.export.to_model_explorer_dict(log)",
    }
    for (traced_row, rss_row), make in made.items():
        traced, rss = kernel.value(f"held_mb(lambda: {make}, {count})", timeout=1800)
        results.put(traced_row, case, traced)
        if rss_row:
            results.put(rss_row, case, rss)
