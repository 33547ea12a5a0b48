"""torchlens-widgets in Voila (a notebook served as an app: no notebook UI, no second client), on
GPT-2 (tests/helpers/models.py, random weights), in headless Chromium. The kernel's side is read through the
page: a Label that the notebook links to ``w.selected_label``, as a Voila app would show it."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import expect

from tests.helpers.harness import (
    alt_click_search_result,
    free_port,
    is_loopback_url,
    stop_process,
    wait_until_serving,
)
from tests.helpers.notebook import RecordedPage

REPO = Path(__file__).resolve().parents[2]  # the kernel imports tests.helpers from here
CELLS = [
    f"""import sys, torch, torchlens as tl, torchlens_widgets as tlw, ipywidgets
sys.path.insert(0, {str(REPO)!r})
from tests.helpers.models import gpt2
model, tokens = gpt2(n_layer=2)
with torch.no_grad():
    log = tl.trace(model, tokens)""",
    "w = tlw.explore(log, height=560)\nw",
    """heard = ipywidgets.Label("kernel heard: nothing yet")
heard.add_class("kernel-heard")
def show(change):
    record = w.selected  # the live torchlens record, looked up in the kernel
    heard.value = f"kernel heard: {change['new']} ({type(record).__name__})"
w.observe(show, names="selected_label")
heard""",
]


class Voila:
    """``voila <notebook>`` on 127.0.0.1, stopped by the fixture."""

    def __init__(self, notebook: Path) -> None:
        self.port = free_port()
        self.log_path = notebook.with_suffix(".voila.log")
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voila",
                str(notebook),
                "--no-browser",
                f"--port={self.port}",
                "--Voila.ip=127.0.0.1",
                "--Voila.port_retries=0",
                # Notebook 7's lab extension (the test extra installs notebook) needs a module
                # Voila 0.5 does not share (@jupyterlab/docregistry) and fails to load there, with
                # a console error; it has nothing to do with widgets.
                '--VoilaConfiguration.extension_denylist=["@jupyter-notebook/lab-extension"]',
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=notebook.parent,
        )
        self.url = f"http://127.0.0.1:{self.port}/"

        def listening() -> None:  # enough: a GET of the page would already start a kernel
            socket.create_connection(("127.0.0.1", self.port), timeout=2).close()

        wait_until_serving(self.process, self.log_path, listening, "voila", 90)

    def stop(self) -> None:
        stop_process(self.process)
        self._log.close()


@pytest.fixture(scope="module")
def voila_page(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[RecordedPage]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path_factory.mktemp("voila") / "explore.ipynb"
    nbformat.write(notebook, path)
    server = Voila(path)
    page = RecordedPage(browser)
    # Voila's own lab template links Font Awesome from a CDN: answered empty here, never fetched.
    page.context.route(
        lambda url: not is_loopback_url(url),
        lambda route: route.fulfill(status=200, body="", content_type="text/css"),
    )
    try:
        page.page.goto(server.url, timeout=300_000)  # Voila runs every cell before it answers
        yield page
    finally:
        page.close()
        server.stop()


def test_model_explorer_draws_in_voila(voila_page: RecordedPage, artifacts: Any) -> None:
    status = voila_page.page.locator(".tlw-status").first
    expect(status).to_have_attribute("data-state", "ready", timeout=240_000)
    frame = voila_page.page.locator("iframe.tlw-frame").first.content_frame
    expect(frame.get_by_text("00-execution").first).to_be_visible(timeout=30_000)
    assert frame.locator("webgl-renderer canvas").first.evaluate("c => c.width * c.height") > 10_000
    voila_page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "voila-model-explorer.png"))


def test_click_in_voila_reaches_the_kernel(voila_page: RecordedPage) -> None:
    page = voila_page.page
    frame = page.locator("iframe.tlw-frame").first.content_frame
    # Any op of the second block's MLP, found with the app's own search box, Alt+clicked to select it.
    alt_click_search_result(frame, "^torchlens_label=addmm_")
    heard = page.locator(".kernel-heard").first
    expect(heard).to_contain_text(re.compile(r"kernel heard: addmm_\S+ \(\w+\)"), timeout=30_000)
    label = re.search(r"kernel heard: (\S+)", heard.inner_text())
    assert label
    # The widget's own status line shows what the kernel answered.
    expect(page.locator(".tlw-status").first).to_contain_text(f"selected {label.group(1)}")


# Voila's lab template (voila/templates/lab/index.html.j2), not this package.
VOILA_TEMPLATE_CDN = {
    "https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@%5E5/css/all.min.css",
    "https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@%5E5/css/v4-shims.min.css",
}


def test_voila_page_asks_nothing_off_this_machine_but_its_template_css(voila_page: RecordedPage) -> None:
    assert voila_page.requests
    assert set(voila_page.off_machine_requests()) <= VOILA_TEMPLATE_CDN
    assert voila_page.console_errors == []
