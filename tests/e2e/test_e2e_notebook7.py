"""The same widgets in Jupyter Notebook 7 (not only JupyterLab): both viewers render and select."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer
from tests.helpers.notebook import notebook_session

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(3, 4))""",
    "w = tlw.explore(log, height=460)\nw",
    "n = tlw.explore(log, viewer='netron', height=420)\nn",
]


def test_both_viewers_render_and_select_in_notebook7(
    jupyter_notebook7: JupyterServer, browser: Any, artifacts: Any
) -> None:
    with notebook_session(jupyter_notebook7, browser, "nb7.ipynb", CELLS, widgets=2) as (page, kernel):
        kernel.wait_ready("w")
        kernel.wait_ready("n")
        kernel.run("w.select('linear_2_3')\nn.select('linear_2_3')")
        statuses = page.page.locator(".tlw-status")
        expect(statuses.nth(0)).to_contain_text("selected linear_2_3:1", timeout=30_000)
        expect(statuses.nth(1)).to_contain_text("selected linear_2_3", timeout=30_000)
        page.page.screenshot(path=str(artifacts / "notebook7.png"), full_page=True)
        assert page.off_machine_requests() == []
