"""One case in a kernel of its own, each part in turn; all cases on one server and browser."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_explore.cells import CELLS, REPO, SETUP
from benchmarks.bench_explore.clicks import clicks
from benchmarks.bench_explore.expand import expand
from benchmarks.bench_explore.in_place import in_place
from benchmarks.bench_explore.kernel_side import kernel_memory, python_side
from benchmarks.bench_explore.notebook import Notebook, count_socket_bytes, inline
from benchmarks.bench_explore.results import Results, log, step
from benchmarks.bench_explore.rows import INLINE_ROWS
from benchmarks.bench_explore.served import served
from benchmarks.bench_explore.vscode import vscode_host
from benchmarks.bench_models import CASES
from tests.helpers.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    JupyterServer,
    KernelAccess,
    is_loopback_url,
    open_notebook,
)
from tests.helpers.vscode_host.host import VSCodeHost

# The kernel-side rows of each viewer: explore() first, re-run, and torchlens' bare export.
PY = ("", "_rerun", "_export")
PARTS = ("python", "memory", "inline", "inplace", "expand", "served", "vscode")


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
                ("nodes_me", "nodes_netron", *(f"py_{v}{m}" for v in ("me", "netron") for m in PY)),
            ):
                python_side(results, case, kernel, settings.repeat)
        if "memory" in parts:
            rows = ("mem_me", "mem_me_rss", "mem_me_later", "mem_me_export", "mem_netron", "mem_netron_rss")
            rows = (*rows, "mem_netron_later")
            with step(results, case, rows):
                kernel_memory(results, case, kernel, settings.widgets)
        if "inline" in parts:
            with step(results, case, (*INLINE_ROWS, "me_lab_ws_bytes")):
                inline(results, case, notebook, server, name, settings.repeat)
        # On the widgets inline() drew last, as they first drew (before clicks expand layers).
        if "inplace" in parts:
            changes = ("overlay", "baseline", "unbaseline", "highlight")
            with step(results, case, tuple(f"{v}_{c}" for v in ("me", "netron") for c in changes)):
                in_place(results, case, notebook, settings.repeat)
        # Module groups opened on the drawn graphs, then the same in the served pages (below).
        expand_targets = expand(results, case, notebook, settings.repeat) if "expand" in parts else None
        if "inline" in parts:
            clicks(results, case, notebook, settings.clicks)
        off_notebook = len({url for url in requests if not is_loopback_url(url)})
        off_me, off_netron = (
            served(results, case, browser, kernel, settings.repeat, expand_targets)
            if "served" in parts
            else (0, 0)
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
