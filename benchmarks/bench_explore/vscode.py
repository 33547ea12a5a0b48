"""The same Model Explorer cell in an emulated VS Code notebook (tests/helpers/vscode_host)."""

from __future__ import annotations

from typing import Any

from benchmarks.bench_explore.cells import REPO, SETUP, widget_cell
from benchmarks.bench_explore.page_scripts import RENDER_TIMEOUT_MS, VSCODE_RENDERED
from benchmarks.bench_explore.results import Results
from tests.helpers.harness import JupyterServer, KernelAccess
from tests.helpers.vscode_host.host import VSCodeHost, VSCodeNotebook


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
