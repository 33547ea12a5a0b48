"""A notebook saved with its widget state, reopened before the cells run again, in a real JupyterLab.

JupyterLab's "save widget state" setting keeps each widget's model in the notebook; reopened, the
model comes back with no kernel behind it. Each view shows the picture of its graph as it was last
drawn and says how to get the live view back; running the cells gives live widgets again.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import open_notebook, run_all_cells
from tests.helpers.notebook import SETTLED, RecordedPage
from tests.helpers.saved_notebooks import assert_shows_a_drawn_graph, lab_saving_widget_state, save_notebook
from torchlens_widgets._protocol import PICTURE_MAX_CHARS, PICTURE_PREFIXES

CELLS = [
    """import torch, transformers, torchlens as tl, torchlens_widgets as tlw
torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=128, n_positions=32)
model = transformers.GPT2Model(config).eval()
log = tl.trace(model, torch.randint(0, 128, (1, 8)))""",
    "w = tlw.explore(log, height=360)\nw.select('h.1.mlp.c_fc')\nw",
    "n = tlw.explore(log, viewer='netron', height=360)\nn",
]


def test_a_reopened_notebook_shows_each_graph_as_last_drawn_until_its_cells_run(
    tmp_path_factory: Any, browser: Any, artifacts: Path
) -> None:
    root = tmp_path_factory.mktemp("saved-state")
    server = lab_saving_widget_state(root)
    try:
        name = server.write_notebook("saved.ipynb", CELLS)
        page = RecordedPage(browser)
        try:
            open_notebook(page.page, server, name)
            kernel = server.kernel_for(name)
            try:
                run_all_cells(page.page)
                page.page.wait_for_function(SETTLED, arg=2, timeout=240_000)
                # Each view keeps a picture of what it drew, a moment after the draw settles.
                kernel.wait_for("bool(w._picture) and bool(n._picture)", True, timeout=60)
                assert kernel.value(f"w._picture.startswith({PICTURE_PREFIXES!r})") is True
            finally:
                kernel.close()
            pictures = save_notebook(page.page, root / name, pictures=2, timeout=30)
            assert len(pictures) == 2
            assert all(p.startswith(PICTURE_PREFIXES) and len(p) <= PICTURE_MAX_CHARS for p in pictures)
            shutil.copy(root / name, artifacts / "saved-state.ipynb")  # what nbconvert is measured on
            assert page.console_errors == []
        finally:
            page.close()
        server.shut_down_notebook(name)

        # Reopened: JupyterLab starts a fresh kernel, which holds none of these widgets.
        page = RecordedPage(browser)
        try:
            open_notebook(page.page, server, name)
            images = page.page.locator("img.tlw-saved-picture")
            expect(images).to_have_count(2)
            for index in range(2):
                assert_shows_a_drawn_graph(page.page, images.nth(index))
            statuses = page.page.locator(".tlw-status")
            for index in range(2):
                expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected")
                expect(statuses.nth(index)).to_contain_text("Run this cell for the live view")
            expect(page.page.locator(".tlw-title")).to_have_text(["Model Explorer", "Netron"])
            expect(page.page.locator(".tlw-overlay-select").first).to_be_disabled()
            assert page.page.locator("iframe.tlw-frame").count() == 0  # nothing waits for a kernel
            page.page.locator(".jp-Notebook").screenshot(path=str(artifacts / "saved-state-reopened.png"))

            # Running the cells gives live widgets in place of the pictures.
            run_all_cells(page.page)
            page.page.wait_for_function(SETTLED, arg=2, timeout=240_000)
            expect(page.page.locator("iframe.tlw-frame")).to_have_count(2)
            expect(images).to_have_count(0)
            assert page.off_machine_requests() == []
            assert page.console_errors == []
        finally:
            page.close()
            server.shut_down_notebook(name)
    finally:
        server.stop()
