"""The kernel <-> browser channel in a real JupyterLab + Chromium: several views of one widget, and a
viewer switch that races the first asset request.

Each view of a widget gets every custom message of its model; each view numbers its requests from 1.
These tests take the paths where that used to hand one view the other's reply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer
from tests.helpers.notebook import RecordedPage, notebook_session

SETUP = """import time, torch, torchlens as tl, torchlens_widgets as tlw
from IPython.display import display
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(2, 4))"""

# What the page cache holds: asset key -> the file names of the bundle stored under it.
PAGE_CACHE = """async () => {
  const cache = globalThis.__torchlensWidgetsAssets_v2 ?? new Map();
  const out = {};
  for (const [key, entry] of cache) out[key] = [...(await entry.promise).files.keys()].sort();
  return out;
}"""


def expect_all_ready(page: Any, count: int) -> None:
    statuses = page.locator(".tlw-status")
    expect(statuses).to_have_count(count, timeout=60_000)
    errors = page.locator(".tlw-status[data-state='error']")
    assert errors.count() == 0, page.locator(".tlw-error").all_inner_texts()
    for index in range(count):
        expect(statuses.nth(index)).to_have_attribute("data-state", "ready", timeout=120_000)
    assert page.locator(".tlw-error:visible").count() == 0


def test_two_views_of_one_widget_in_one_cell_both_draw(jupyter_lab: JupyterServer, browser: Any) -> None:
    cells = [SETUP, "w = tlw.explore(log, height=300)\ndisplay(w)\ndisplay(w)"]
    with notebook_session(jupyter_lab, browser, "two-views.ipynb", cells, widgets=2) as (page, kernel):
        expect_all_ready(page.page, 2)
        frames = page.page.locator("iframe.tlw-frame")
        for index in range(2):
            canvas = frames.nth(index).content_frame.locator("webgl-renderer canvas")
            expect(canvas.first).to_be_attached(timeout=60_000)
        kernel.wait_ready("w")
        # JupyterLab carries binary buffers as they are: its replies stay binary (no base64 growth).
        encodings = page.page.locator("[data-buffer-encoding]")
        assert [encodings.nth(i).get_attribute("data-buffer-encoding") for i in range(2)] == ["binary"] * 2
        assert page.console_errors == []


def test_a_view_shown_again_while_the_kernel_is_busy_draws(jupyter_lab: JupyterServer, browser: Any) -> None:
    # Run All: the first view's requests queue behind the later cells, and the second view (shown by
    # the next cell) asks while they are pending; the kernel answers both after the sleep.
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw", "w", "time.sleep(3)"]
    with notebook_session(jupyter_lab, browser, "busy-views.ipynb", cells, widgets=2) as (page, kernel):
        expect_all_ready(page.page, 2)
        # Both views still answer the kernel: a selection made in Python reaches both inspectors.
        label = kernel.value("log.layer_labels[1]")
        kernel.run(f"w.select({label!r})")
        for index in range(2):
            root = page.page.locator(".tlw-root").nth(index)
            expect(root.locator(".tlw-status")).to_contain_text(f"selected {label}", timeout=30_000)
        assert page.console_errors == []


# True once the page has asked for a Model Explorer bundle (its cache holds the key, the answer pending
# or not): the request is then on its way to the kernel, queued behind the running cell.
ASKED_FOR_MODEL_EXPLORER = """() => [...(globalThis.__torchlensWidgetsAssets_v2 ?? new Map()).keys()]
  .some((key) => key.startsWith("model-explorer@"))"""


def test_a_viewer_switch_racing_the_first_asset_request_leaves_the_cache_right(
    jupyter_lab: JupyterServer, browser: Any, tmp_path: Path
) -> None:
    # The view asks for Model Explorer's assets; the kernel switches to Netron before it answers. The
    # kernel must answer the bundle that was asked for, so the page caches it and switching back draws.
    # The switch waits in the kernel for the page's request (a file the test writes once the page
    # asked): without it, the view could render after the switch and never ask for Model Explorer.
    asked = tmp_path / "asked"
    switch = f"""import os
deadline = time.monotonic() + 120
while not os.path.exists({str(asked)!r}) and time.monotonic() < deadline:
    time.sleep(0.02)
w.viewer = 'netron'"""
    cells = [SETUP, "w = tlw.explore(log, height=300)\nw", switch]

    def once_asked(page: RecordedPage) -> None:
        page.page.wait_for_function(ASKED_FOR_MODEL_EXPLORER, timeout=120_000)
        asked.touch()

    session = notebook_session(jupyter_lab, browser, "switch-race.ipynb", cells, settled=once_asked)
    with session as (page, kernel):
        root = page.page.locator(".tlw-root")
        expect(root.locator(".tlw-title")).to_have_text("Netron", timeout=60_000)
        expect(root.locator(".tlw-status")).to_have_attribute("data-state", "ready", timeout=120_000)
        expected = kernel.value(
            "{b.key: sorted(b.files) for b in (tlw.viewers.model_explorer.model_explorer_assets(), "
            "tlw.viewers.netron.netron_assets())}"
        )
        # Both bundles, each under its own key: the raced Model Explorer one too (it was asked for).
        assert page.page.evaluate(PAGE_CACHE) == expected
        drawn = kernel.draws("w")
        kernel.run("w.viewer = 'model-explorer'")
        expect(root.locator(".tlw-title")).to_have_text("Model Explorer", timeout=60_000)
        kernel.wait_drawn("w", since=drawn, timeout=120)
        canvas = page.page.locator("iframe.tlw-frame").content_frame.locator("webgl-renderer canvas")
        expect(canvas.first).to_be_attached(timeout=60_000)
        assert page.console_errors == []
