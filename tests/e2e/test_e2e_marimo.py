"""torchlens-widgets in marimo (another anywidget host): ``mo.ui.anywidget(tlw.explore(log))`` in an app
served by ``marimo run`` on 127.0.0.1, on GPT-2 (tests/helpers/models.py, random weights), in headless
Chromium. marimo reruns the cells that read the widget when it changes: one shows ``selected_label``
from Python."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import alt_click_search_result, free_port
from tests.helpers.notebook import RecordedPage

REPO = Path(__file__).resolve().parents[2]  # the kernel imports tests.helpers from here
MARIMO_RUN = [sys.executable, "-m", "marimo", "run", "--headless", "--no-token"]
APP = f"""import marimo

app = marimo.App()


@app.cell
def _():
    import sys

    import marimo as mo
    import torch
    import torchlens as tl
    import torchlens_widgets as tlw

    sys.path.insert(0, {str(REPO)!r})
    from tests.helpers.models import gpt2

    model, tokens = gpt2(n_layer=2)
    with torch.no_grad():
        log = tl.trace(model, tokens)
    return log, mo, tlw


@app.cell
def _(log, mo, tlw):
    explorer = mo.ui.anywidget(tlw.explore(log, height=560))
    explorer
    return (explorer,)


@app.cell
def _(explorer, mo):
    mo.md(f"kernel heard: [{{explorer.widget.selected_label}}]")
    return
"""


@pytest.fixture(scope="module")
def marimo_page(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[RecordedPage]:
    app = tmp_path_factory.mktemp("marimo") / "explore_app.py"
    app.write_text(APP)
    port = free_port()
    log_path = app.with_suffix(".log")
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*MARIMO_RUN, str(app), "--host", "127.0.0.1", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    page = RecordedPage(browser)
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"marimo did not serve: {log_path.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                time.sleep(0.3)
        page.page.goto(f"http://127.0.0.1:{port}/", timeout=120_000)
        yield page
    finally:
        page.close()
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


def test_model_explorer_draws_in_marimo(marimo_page: RecordedPage, artifacts: Any) -> None:
    status = marimo_page.page.locator(".tlw-status").first  # (locators reach into marimo's shadow roots)
    expect(status).to_have_attribute("data-state", "ready", timeout=240_000)
    frame = marimo_page.page.locator("iframe.tlw-frame").first.content_frame
    expect(frame.get_by_text("00-execution").first).to_be_visible(timeout=30_000)
    assert frame.locator("webgl-renderer canvas").first.evaluate("c => c.width * c.height") > 10_000
    marimo_page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "marimo-model-explorer.png"))


def test_click_in_marimo_reaches_python(marimo_page: RecordedPage) -> None:
    page = marimo_page.page
    frame = page.locator("iframe.tlw-frame").first.content_frame
    alt_click_search_result(frame, "^torchlens_label=addmm_")
    heard = page.get_by_text(re.compile(r"kernel heard: \[addmm_\S+\]")).first
    expect(heard).to_be_visible(timeout=30_000)
    label = re.search(r"\[(\S+)\]", heard.inner_text())
    assert label
    expect(page.locator(".tlw-status").first).to_contain_text(f"selected {label.group(1)}")


def test_marimo_page_stays_on_this_machine_without_console_errors(marimo_page: RecordedPage) -> None:
    assert marimo_page.requests
    assert marimo_page.off_machine_requests() == []
    assert marimo_page.console_errors == []
