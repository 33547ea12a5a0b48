"""Helpers the benchmark runs inside the notebook's kernel (imported there, next to the trace)."""

from __future__ import annotations

import copy
import gc
import json
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torchlens as tl

import torchlens_widgets as tlw
from torchlens_widgets import _export_cache

MB = 2**20


def best_ms(
    function: Callable[[], object], repeat: int = 3, setup: Callable[[], object] | None = None
) -> float:
    """The fastest of ``repeat`` calls, in ms (the least disturbed by whatever else the machine does).
    Before each, untimed: ``setup`` and a garbage collection (freeing what an earlier call made is
    not this call's time)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        gc.collect()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times) * 1000


def netron_export(log: Any) -> None:
    """torchlens' bare Netron export with its metrics companion, as a user would write it to disk."""
    with tempfile.TemporaryDirectory() as folder:
        tl.export.netron(log, Path(folder) / "model.onnx.json", attachment=True)


def memory_strip_reply(log: Any) -> None:
    """A fresh widget's memory strip reply, torchlens' timeline built anew (not the cached one)."""
    _export_cache.clear()
    widget = tlw.explore(log, timeline="memory")
    widget._memory.strip({})
    widget.close()


def shown(widget: Any) -> Any:
    """``widget`` after answering the browser's graph request once, as a displayed widget has."""
    widget._answer_graph({})
    return widget


def explored(log: Any, **options: Any) -> None:
    """One explore() call and its first graph reply (torchlens exports then, when the view asks),
    its widget closed so the kernel's widget registry does not keep it. Re-run: the export is kept."""
    shown(tlw.explore(log, **options)).close()


def shown_first(make: Callable[[], Any]) -> Any:
    """shown(make()) for a trace explored for the first time: the widget exports, and keeps, its graph."""
    _export_cache.clear()
    return shown(make())


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _release(objects: list[Any]) -> None:
    for item in objects:
        if hasattr(item, "close"):
            item.close()
    objects.clear()
    gc.collect()


def held_mb(make: Callable[[], Any], count: int = 3) -> tuple[float, float]:
    """MB the kernel holds per object ``make()`` returns, with ``count`` of them alive at once.

    Returns (Python heap by tracemalloc, resident set growth); one object is made and released
    first so one-time caches (viewer assets, imports) are not counted.
    """
    _release([make()])
    before = _rss()
    kept = [make() for _ in range(count)]
    gc.collect()
    rss = (_rss() - before) / count / MB
    _release(kept)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        kept = [make() for _ in range(count)]
        gc.collect()
        traced = (tracemalloc.get_traced_memory()[0] - base) / count / MB
    finally:
        tracemalloc.stop()
    _release(kept)
    return traced, rss


def write_served_files(log: Any, folder: str) -> tuple[str, str]:
    """The graphs the widgets show, as files for the viewers' own servers: (Model Explorer, Netron).

    Model Explorer gets the validated collection explore() sends (torchlens' to_model_explorer_dict),
    Netron torchlens' ONNX JSON artifact at module granularity, both taken from a widget.
    """
    me = tlw.explore(log)
    netron = tlw.explore(log, viewer="netron")
    try:
        me_path = Path(folder) / "graph.json"
        me_path.write_text(json.dumps(me._source.payload.collection))
        artifact = netron._source.artifact
        netron_path = Path(folder) / artifact.identifier
        netron_path.write_text(artifact.model_json)
        return str(me_path), str(netron_path)
    finally:
        me.close()
        netron.close()


def me_expand_targets(collection: dict[str, Any], count: int) -> list[str]:
    """Ops in ``count`` different blocks (from a third of the way down the graph), each as deep as any
    in its block: revealing one expands layers none of the others did. A block is an op's namespace
    cut to its first three layers ("transformer/h/3", "encoder/layer/1"), or fewer where the model
    nests less ("blocks/7")."""
    nodes = [(node["id"], node.get("namespace", "")) for node in collection["graphs"][0]["nodes"]]
    for depth in (3, 2, 1):
        blocks: dict[str, list[tuple[str, str]]] = {}
        for node_id, namespace in nodes:
            layers = namespace.split("/")
            if namespace and len(layers) >= depth:
                blocks.setdefault("/".join(layers[:depth]), []).append((node_id, namespace))
        chosen = list(blocks.values())[len(blocks) // 3 :][:count]
        if len(chosen) == count:
            return [max(ops, key=lambda op: op[1].count("/"))[0] for ops in chosen]
    raise RuntimeError(f"the graph has too few layer groups to expand {count} of them")


def netron_expand_target(index: Any) -> str:
    """The module call on Netron's root graph with the most boxes inside: the biggest body to open."""
    inside = Counter(entry.graph for entry in index)
    calls = (entry for entry in index if not entry.graph and entry.module_address)
    return str(max(calls, key=lambda entry: inside[entry.node_id]).node_id)


def other_run(model: Any, x: Any, seed: int, scale: float = 1e-2) -> Any:
    """A trace of ``model`` on ``x`` with noise (of ``seed``) added to every floating parameter and to a
    floating input: a baseline a reader compares with, whose deltas are not zero (a trace of the same
    weights and input differs by nothing, so its delta overlay would draw no colour). Two seeds give two
    baselines whose deltas are spread differently over the graph."""
    generator = torch.Generator().manual_seed(seed)
    other = copy.deepcopy(model)
    with torch.no_grad():
        for parameter in other.parameters():
            if parameter.is_floating_point():
                parameter.add_(torch.randn(parameter.shape, generator=generator) * scale)
        if x.is_floating_point():
            x = x + torch.randn(x.shape, generator=generator) * scale
        return tl.trace(other, x)
