"""Fixtures for the end-to-end tests: a real JupyterLab server and headless Chromium."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    JupyterServer,
    KernelAccess,
    is_loopback_url,
    open_notebook,
    run_all_cells,
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer(tmp_path_factory.mktemp("lab")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def jupyter_notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer(tmp_path_factory.mktemp("nb7"), app="notebook").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/test.sh`, which installs Debian's chromium.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class RecordedPage:
    """A Chromium page that records every request it (and its frames and workers) makes."""

    def __init__(
        self, browser: object, width: int = 1400, height: int = 1000, color_scheme: str = "light"
    ) -> None:
        # color_scheme="no-override" lets frames follow their own color-scheme (Playwright's default
        # emulates "light" in every frame, whatever the page asks for).
        self.context = browser.new_context(  # type: ignore[attr-defined]
            viewport={"width": width, "height": height}, color_scheme=color_scheme
        )
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda msg: msg.type == "error" and self.console_errors.append(msg.text))
        self.page.on("pageerror", lambda error: self.console_errors.append(f"uncaught: {error}"))

    def off_machine_requests(self) -> list[str]:
        return [url for url in self.requests if not is_loopback_url(url)]

    def close(self) -> None:
        self.context.close()


# True once n widgets on the page have finished loading, drawn or failed.
SETTLED = """n => document.querySelectorAll(
  ".tlw-status[data-state='ready'], .tlw-status[data-state='error']").length >= n"""


@contextmanager
def notebook_session(
    server: JupyterServer,
    browser: object,
    name: str,
    cells: list[str],
    widgets: int = 1,
    color_scheme: str = "light",
) -> Iterator[tuple[RecordedPage, KernelAccess]]:
    """Writes ``cells`` as a notebook, opens it, runs every cell and waits for ``widgets`` widgets."""
    notebook = server.write_notebook(name, cells)
    page = RecordedPage(browser, color_scheme=color_scheme)
    try:
        open_notebook(page.page, server, notebook)
        kernel = server.kernel_for(notebook)
        try:
            run_all_cells(page.page)
            page.page.wait_for_function(SETTLED, arg=widgets, timeout=240_000)
            yield page, kernel
        finally:
            kernel.close()
    finally:
        page.close()
