"""Kernel interrupt and restart with explorers on the page, in a real JupyterLab + Chromium.

An interrupt keeps the widget's comm: the widget stays live. A restart ends it: the view says so,
stays readable, and re-running the cell gives a live widget again.
"""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import KERNEL, JupyterServer, run_all_cells
from tests.helpers.notebook import SETTLED, notebook_session

CELLS = [
    """import time, torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))""",
    "w = tlw.explore(log, height=320)\nw",
    "n = tlw.explore(log, viewer='netron', height=320)\nn",
]


def test_interrupt_keeps_the_widget_live_and_restart_says_it_is_disconnected(
    jupyter_lab: JupyterServer, browser: Any, artifacts: Any
) -> None:
    with notebook_session(jupyter_lab, browser, "lifecycle.ipynb", CELLS, widgets=2) as (page, kernel):
        kernel.wait_ready("w")
        statuses = page.page.locator(".tlw-status")

        # Interrupt a busy kernel: its comms survive, so a selection still round-trips afterwards.
        page.page.evaluate(f"() => {{ {KERNEL}.requestExecute({{code: 'time.sleep(60)'}}); }}")
        page.page.wait_for_function(f"() => {KERNEL}.status === 'busy'", timeout=30_000)
        page.page.evaluate(f"() => {KERNEL}.interrupt()")
        page.page.wait_for_function(f"() => {KERNEL}.status === 'idle'", timeout=30_000)
        kernel.run("w.select('linear_1_1')")
        expect(statuses.nth(0)).to_contain_text("selected linear_1_1", timeout=30_000)
        expect(statuses.nth(0)).to_have_attribute("data-state", "ready")

        # Restart: both views say they are no longer live and keep showing the graph.
        page.page.evaluate(f"() => {KERNEL}.restart()")
        for index in range(2):
            expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected", timeout=30_000)
            expect(statuses.nth(index)).to_contain_text("Re-run the cell")
        frames = page.page.locator("iframe.tlw-frame")
        assert frames.count() == 2
        expect(frames.nth(0)).to_be_visible()
        assert frames.nth(0).content_frame.locator("webgl-renderer canvas").count() >= 1
        expect(page.page.locator(".tlw-overlay-select").first).to_be_disabled()
        page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "kernel-restarted.png"))
        time.sleep(2)  # anything the views would still throw after the restart lands here
        assert page.console_errors == []

        # Re-running the notebook gives live widgets again (the new kernel has the trace again).
        page.page.wait_for_function(f"() => {KERNEL}.status === 'idle'", timeout=60_000)
        run_all_cells(page.page)
        page.page.wait_for_function(
            "() => document.querySelectorAll(\".tlw-status[data-state='disconnected']\").length === 0",
            timeout=120_000,
        )
        page.page.wait_for_function(SETTLED, arg=2, timeout=240_000)
        # A new client for the restarted kernel: the old one's IOPub subscription can miss the new
        # kernel's first messages (seen in CI as "Timeout waiting for output").
        fresh = jupyter_lab.kernel_for("lifecycle.ipynb")
        try:
            fresh.wait_ready("w")
            fresh.run("w.select('linear_2_3')")
        finally:
            fresh.close()
        expect(statuses.nth(0)).to_contain_text("selected linear_2_3", timeout=30_000)
