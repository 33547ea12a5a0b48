"""Hostile module and class names render as text in both viewers and the inspector, never as markup."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, open_notebook, run_all_cells
from tests.helpers.notebook import SETTLED, RecordedPage

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from torch import nn
Evil = type('<img src=x onerror=alert(1)>', (nn.Module,), {'forward': lambda self, x: x * 2})
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.add_module('<script>alert("x")</script>', nn.Linear(4, 4))
        self.add_module("it's %s / \\x01 \\"q\\"", Evil())
        self.add_module("😀 face", nn.Sequential(nn.Linear(4, 4), nn.ReLU()))
    def forward(self, x):
        for child in self.children():
            x = child(x)
        return x
log = tl.trace(Model(), torch.randn(2, 4))""",
    "w = tlw.explore(log, height=480)\nw.select('linear_1_1')\nw",
    "n = tlw.explore(log, viewer='netron', height=420)\nn.select('mul_1_2')\nn",
]

# Markup from the names, had it been parsed: an <img> with src "x", or a script with the payload.
INJECTED = """() => Boolean(document.querySelector('img[src="x"]'))
  || [...document.scripts].some((script) => script.textContent.includes('alert("x")'))"""


def test_hostile_names_render_as_text(jupyter_lab: JupyterServer, browser: Any, artifacts: Any) -> None:
    notebook = jupyter_lab.write_notebook("hostile.ipynb", CELLS)
    page = RecordedPage(browser)
    dialogs: list[str] = []
    page.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        open_notebook(page.page, jupyter_lab, notebook)
        kernel = jupyter_lab.kernel_for(notebook)
        run_all_cells(page.page)
        # Scrolls to each widget in turn, as a reader does: a viewer frame draws only on screen.
        page.page.wait_for_function(SETTLED, arg=2, timeout=240_000)
        kernel.wait_ready("w")
        kernel.wait_ready("n")
        inspector = page.page.locator(".tlw-inspector").first
        expect(inspector).to_have_attribute("data-state", "node", timeout=30_000)
        # The hostile module address is shown literally in the inspector's facts.
        expect(inspector).to_contain_text('<script>alert("x")</script>')
        for frame in page.page.frames:  # the page, Model Explorer's frame and Netron's sandboxed frame
            assert frame.evaluate(INJECTED) is False, frame.url
        assert dialogs == []
        page.page.locator(".jp-Notebook").screenshot(path=str(artifacts / "hostile-labels.png"))
        assert page.off_machine_requests() == []
        # "Copy" on a module whose name is beyond the BMP (an emoji): the copied expression, run in
        # the kernel, gives back the selected record.
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=jupyter_lab.base_url)
        kernel.run("n.select('😀 face')")
        netron_inspector = page.page.locator(".tlw-inspector").nth(1)
        expect(netron_inspector.locator(".tlw-insp-expr")).to_contain_text("log.modules[", timeout=30_000)
        netron_inspector.locator(".tlw-insp-copy").click()
        page.page.wait_for_function("async () => (await navigator.clipboard.readText()).startsWith('log')")
        copied = page.page.evaluate("navigator.clipboard.readText()")
        assert copied == netron_inspector.locator(".tlw-insp-expr").inner_text()
        assert kernel.value(f"{copied} is n.selected is log.modules['😀 face']") is True, copied
        kernel.close()
    finally:
        page.close()
