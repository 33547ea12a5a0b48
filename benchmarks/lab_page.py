"""A JupyterLab notebook open in headless Chromium, for the benchmark probes (figures, not tests)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers.harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer, KernelAccess, open_notebook

REPO = Path(__file__).resolve().parents[1]  # the kernel imports benchmarks.bench_models from here

# Runs cell i of the open notebook, as Shift+Enter on it would.
RUN_CELL = """i => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = i;
  return window.jupyterapp.commands.execute("notebook:run-cell");
}"""


def trace_cell(case: str, *extra_lines: str) -> str:
    """A notebook cell that imports the package and traces ``case`` of bench_models.py into ``log``
    (then ``extra_lines``): the probes' first cell."""
    lines = [
        "import sys, time, torch, torchlens as tl, torchlens_widgets as tlw",
        f"sys.path.insert(0, {str(REPO)!r})",
        "from benchmarks.bench_models import build",
        f"model, x = build({case!r})",
        "with torch.no_grad():",
        "    log = tl.trace(model, x)",
        *extra_lines,
    ]
    return "\n".join(lines)


@dataclass
class LabPage:
    browser: Any
    page: Any
    kernel: KernelAccess


@contextmanager
def lab_page(name: str, cells: list[str], width: int = 1400, height: int = 1000) -> Iterator[LabPage]:
    """A JupyterLab on 127.0.0.1 with notebook ``name`` (``cells``) open in a ``width`` x ``height`` page
    and its first cell run in the kernel; the server, browser and kernel client stop on exit."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as root, sync_playwright() as playwright:
        server = JupyterServer(Path(root))
        server.start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            server.write_notebook(name, cells)
            page = browser.new_context(viewport={"width": width, "height": height}).new_page()
            open_notebook(page, server, name)
            kernel = server.kernel_for(name)
            try:
                kernel.run(cells[0], timeout=1800)
                yield LabPage(browser, page, kernel)
            finally:
                kernel.close()
        finally:
            browser.close()
            server.stop()
