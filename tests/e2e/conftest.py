"""Fixtures for the end-to-end tests: a real JupyterLab server and headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer
from tests.helpers.notebook import ARTIFACTS, OPEN_PAGES
from tests.helpers.warm_kernels import WarmKernels

# The suite runs on two workers (scripts/test.sh), so a page may wait its turn for the CPU: an
# assertion waits up to 30 s for what the user would see (it returns as soon as it holds).
expect.set_options(timeout=30_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call" and report.failed:
        for recorded in list(OPEN_PAGES):
            recorded.save_failure_picture()
    return report


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def warm_kernels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WarmKernels]:
    """Kernels that start with torch and transformers imported, for every JupyterLab of the tests
    (``extra_env=warm_kernels.env()``; tests/helpers/warm_kernels.py says why and what it leaves out)."""
    kernels = WarmKernels(tmp_path_factory.mktemp("kernels")).start()
    try:
        yield kernels
    finally:
        kernels.stop()


@pytest.fixture(scope="session")
def jupyter_lab(
    tmp_path_factory: pytest.TempPathFactory, warm_kernels: WarmKernels
) -> Iterator[JupyterServer]:
    server = JupyterServer(tmp_path_factory.mktemp("lab"), extra_env=warm_kernels.env()).start()
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
        # TLW_HEADED=1 shows the browser (under a display: xvfb-run, or a desktop) to watch a test run.
        headless = os.environ.get("TLW_HEADED", "") != "1"
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=headless)
        yield chromium
        chromium.close()
