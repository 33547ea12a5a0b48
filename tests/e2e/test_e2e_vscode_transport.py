"""What the first explorer costs in widget messages in the emulated VS Code notebook (vscode_host/).

VS Code's extension host relays a kernel frame with binary buffers to the output webview as a JSON
array of numbers (about 3.6 bytes per byte of gzip data); the view there asks for base64 text
instead, so the viewer app and the graph cost about 4/3 of their bytes, as in JupyterLab plus a third.
"""

from __future__ import annotations

from typing import Any

from harness import JupyterServer
from playwright.sync_api import expect
from test_e2e_vscode import jupyter_for_vscode, open_session, vscode_host  # noqa: F401 (fixtures)
from vscode_host.host import VSCodeHost

SETUP = """import torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(2, 4))"""


def test_the_first_explorer_costs_at_most_one_and_a_half_times_its_bytes(
    jupyter_for_vscode: JupyterServer,  # noqa: F811
    vscode_host: VSCodeHost,  # noqa: F811
    browser: Any,
) -> None:
    page, notebook, kernel = open_session(jupyter_for_vscode, vscode_host, browser)
    try:
        notebook.run(SETUP)
        before = notebook.counters()
        notebook.run("w = tlw.explore(log, height=300)\nw")
        status = notebook.cell(1).locator(".tlw-status")
        expect(status).to_have_attribute("data-state", "ready", timeout=240_000)
        after = notebook.counters()
        # The assets and the graph, as the kernel sent them (JupyterLab's socket carries these bytes).
        sent = kernel.value("w.bytes_sent")
        carried = after["kernelBytes"] - before["kernelBytes"]
        assert sent > 500_000  # the Model Explorer app crossed the channel
        assert carried <= 1.5 * sent, f"{carried} bytes of widget messages for {sent} bytes of replies"
        assert after["binaryMessages"] == before["binaryMessages"]  # no frame became an array of numbers
        encoding = notebook.cell(1).locator("[data-buffer-encoding]").first
        assert encoding.get_attribute("data-buffer-encoding") == "base64"
        assert page.console_errors == []
    finally:
        kernel.close()
        page.close()
