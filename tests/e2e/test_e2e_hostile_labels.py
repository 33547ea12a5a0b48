"""Hostile module and class names render as text in both viewers and the inspector, never as markup."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, open_info_panel, open_notebook, run_all_cells
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


# The address of the module named like a script tag (linear_1_1 runs in it).
SCRIPT_NAME = '<script>alert("x")</script>'

# That module as a Model Explorer layer (the node's namespace: "/" separates layers, so the exporter
# writes a "/" in a name as %2F). The app shows the namespace as given; attribute values it shows without
# their double quotes (its worker's processAttrValue), so the module attribute is not compared.
SCRIPT_LAYER = '<script>alert("x")<%2Fscript>'

# The texts of the elements under `root` that hold `text` and no element of their own.
LEAF_TEXTS = """(root, text) => [...root.querySelectorAll("*")]
  .filter((element) => element.childElementCount === 0 && element.textContent.includes(text))
  .map((element) => element.textContent)"""


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
        expect(inspector).to_contain_text("linear_1_1")
        # Where a node's facts are shown, the hostile module address is text: an element with no element
        # inside holds it exactly (parsed as markup, it would be a <script> element, its text gone).
        me = page.page.locator("iframe.tlw-frame").first.content_frame
        open_info_panel(me)  # the app's own panel, closed at start, lists the selected node's attributes
        info = me.locator("info-panel").first
        expect(info).to_contain_text("linear_1_1")
        kernel.run("n.select('linear_1_1')")  # Netron opens its sidebar on the node selected
        sidebar = page.page.locator("iframe.tlw-frame").nth(1).content_frame.locator("#sidebar")
        expect(sidebar).to_contain_text("linear_1_1")
        shown = {
            "the inspector": (inspector, f"{SCRIPT_NAME}:1"),  # its module call row
            "Model Explorer's info panel": (info, SCRIPT_LAYER),
            "Netron's sidebar": (sidebar, SCRIPT_NAME),
        }
        wrong: dict[str, list[str]] = {}
        for where, (element, expected) in shown.items():
            texts = element.evaluate(LEAF_TEXTS, "alert")  # whatever became of the name
            if expected not in texts:
                wrong[where] = texts
        assert wrong == {}, f"not shown as its text: {wrong}"
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
