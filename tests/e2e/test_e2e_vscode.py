"""torchlens-widgets in VS Code's notebook, reproduced from VS Code's published parts (vscode_host/):
its ipywidgets 8 manager (@vscode/jupyter-ipywidgets8) in a cross-site sandboxed webview, fed the
kernel's messages by the host page as VS Code's IPC carries them, on a real kernel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import RecordedPage
from harness import JupyterServer, KernelAccess
from playwright.sync_api import expect
from vscode_host.host import VSCodeHost, VSCodeNotebook


@pytest.fixture(scope="module")
def vscode_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VSCodeHost]:
    host = VSCodeHost.start(tmp_path_factory.mktemp("vscode-host"))
    try:
        yield host
    finally:
        host.stop()


@pytest.fixture(scope="module")
def jupyter_for_vscode(
    vscode_host: VSCodeHost, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[JupyterServer]:
    # VS Code's side (the host page) is another origin than the server: let it in, and only it.
    server = JupyterServer(
        tmp_path_factory.mktemp("vscode-jupyter"),
        extra_args=[f"--ServerApp.allow_origin={vscode_host.origin}"],
    ).start()
    try:
        yield server
    finally:
        server.stop()


class Session:
    def __init__(self, page: RecordedPage, notebook: VSCodeNotebook, kernel: KernelAccess) -> None:
        self.page, self.notebook, self.kernel = page, notebook, kernel


def open_session(
    server: JupyterServer, host: VSCodeHost, browser: Any
) -> tuple[RecordedPage, VSCodeNotebook, KernelAccess]:
    """A new kernel, the host page connected to it, and the tests' own client on it."""
    kernel_id = server.api("POST", "/api/kernels", {"name": "python3"})["id"]
    page = RecordedPage(browser)
    page.page.goto(host.url(server.base_url, server.token, kernel_id))
    notebook = VSCodeNotebook(page.page, host.webview_origin)  # waits for the kernel connection
    return page, notebook, KernelAccess(server.runtime_dir / f"kernel-{kernel_id}.json")


@pytest.fixture(scope="module")
def slider(jupyter_for_vscode: JupyterServer, vscode_host: VSCodeHost, browser: Any) -> Iterator[Session]:
    page, notebook, kernel = open_session(jupyter_for_vscode, vscode_host, browser)
    try:
        yield Session(page, notebook, kernel)
    finally:
        kernel.close()
        page.close()


def test_webview_is_a_cross_site_sandboxed_frame(slider: Session) -> None:
    frame = slider.page.page.locator("iframe").first
    assert frame.get_attribute("sandbox") == (
        "allow-same-origin allow-pointer-lock allow-scripts allow-downloads allow-forms"
    )
    assert slider.notebook.webview.url.startswith("http://localhost:")
    assert slider.page.page.url.startswith("http://127.0.0.1:")


def test_ipywidgets_slider_round_trips(slider: Session) -> None:
    notebook, kernel = slider.notebook, slider.kernel
    notebook.run("import ipywidgets as widgets\ns = widgets.IntSlider(value=3, max=10)\ns")
    handle = notebook.cell(0).locator(".widget-slider .noUi-handle, .widget-slider [role=slider]").first
    expect(handle).to_be_visible(timeout=60_000)
    readout = notebook.cell(0).locator(".widget-readout").first
    expect(readout).to_have_text("3")
    # The browser changes it: the kernel hears.
    handle.focus()
    handle.press("ArrowRight")
    kernel.wait_for("s.value", 4, timeout=30)
    # The kernel changes it: the browser shows it.
    kernel.run("s.value = 8")
    expect(readout).to_have_text("8", timeout=30_000)
    assert slider.page.console_errors == []
