"""The JupyterLab page: a cell run from the page, timed to its graph drawn; the inline repeats."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks.bench_explore.cells import ME_CELL, NETRON_CELL
from benchmarks.bench_explore.page_scripts import FORGET_TIMINGS, RENDER_TIMEOUT_MS, RUN_CELL, WIDGET_TIMINGS
from benchmarks.bench_explore.results import Results
from benchmarks.bench_explore.rows import INLINE_ORDERS, NEXT_CELL_PAUSE_S
from tests.helpers.harness import JupyterServer, KernelAccess, open_notebook


@dataclass
class Notebook:
    page: Any
    kernel: KernelAccess
    socket_bytes: list[int] = field(default_factory=lambda: [0])  # kernel websocket frames received

    def cell_to_render_ms(self, cell: int, key: str) -> dict[str, float]:
        """Runs ``cell`` from the page: ms from the cell's first line to the graph drawn ("") and its
        parts: the kernel until explore() returned ("_kernel"), until the view asked for its graph
        ("_display"), until the graph (and the viewer's assets) were in the page ("_fetch"), until
        drawn ("_browser")."""
        self.page.evaluate(FORGET_TIMINGS, cell)
        self.page.evaluate(RUN_CELL, cell)
        timings = self.page.wait_for_function(
            WIDGET_TIMINGS, arg=cell, timeout=RENDER_TIMEOUT_MS
        ).json_value()
        if "error" in timings:
            raise RuntimeError(timings["error"])
        started, made = (self.kernel.value(f"started[{k!r}]") * 1000 for k in (key, f"{key}_made"))
        asked, landed = float(timings["drawStartedAt"]), float(timings["graphLandedAt"])
        return {
            "": float(timings["renderedAt"]) - started,
            "_kernel": made - started,
            "_display": asked - made,
            "_fetch": landed - asked,
            "_browser": float(timings["renderMs"]),
        }


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
                if order == "first":  # a trace explored for the first time: torchlens exports it
                    kernel.run("_export_cache.clear()")
                socket_before = notebook.socket_bytes[0]
                parts = notebook.cell_to_render_ms(cell, key)
                if (viewer, order) == ("me", "first"):
                    samples.setdefault("me_lab_ws_bytes", []).append(notebook.socket_bytes[0] - socket_before)
                for part, ms in parts.items():
                    if part in ("", "_browser") or order == "first":
                        samples.setdefault(f"{viewer}_{order}{part}", []).append(ms)
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
