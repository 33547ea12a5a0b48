"""A notebook saved with its widget state, reopened before the cells run again, in a real JupyterLab.

JupyterLab's "save widget state" setting keeps each widget's model in the notebook; reopened, the model
comes back with no kernel behind it. Each view shows the picture of its graph as it was last drawn
(js/view/saved-picture.ts) and says how to get the live view back; running the cells gives live widgets
again. Ten widgets, twice what a page keeps live, add a few KB each to the file: most of the saved state
is anywidget's copy of the widget's bundle (`_esm`, packed: widgets/bundle.py), one per widget; its size
is recorded beside the pictures' (test-artifacts/saved-size.json).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.helpers.harness import open_notebook, run_all_cells
from tests.helpers.notebook import SETTLED, RecordedPage
from tests.helpers.saved_notebooks import (
    STATE,
    assert_shows_a_drawn_graph,
    lab_saving_widget_state,
    save_notebook,
    saved_pictures,
)
from tests.helpers.warm_kernels import WarmKernels
from torchlens_widgets._protocol import PICTURE_MAX_CHARS, PICTURE_PREFIXES

# An explorer with a selection, a Netron explorer, and eight more explorers: ten widgets.
MORE = 8
COUNT = 2 + MORE
CELLS = [
    """import torch, transformers, torchlens as tl, torchlens_widgets as tlw
from IPython.display import display
torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16)
model = transformers.GPT2Model(config).eval()
log = tl.trace(model, torch.randint(0, 64, (1, 4)))""",
    "w = tlw.explore(log, height=300)\nw.select('h.0.mlp.c_fc')\nw",
    "n = tlw.explore(log, viewer='netron', height=300)\nn",
    f"ws = [tlw.explore(log, height=300) for _ in range({MORE})]\ndisplay(*ws)",
]
WIDGETS = ["w", "n", *(f"ws[{index}]" for index in range(MORE))]
TITLES = ["Model Explorer", "Netron", *["Model Explorer"] * MORE]
# A page tall enough for four or five of the 300 px explorers at once (their frames draw only on
# screen): the notebook is read in half as many screens. Five explorers' WebGL contexts fit the page's
# budget (js/view/webgl-budget.ts), so none is paused while on screen.
TALL = 1600
# The bounds per widget (measured with 22 explorers: 400 KB of pictures as PNG before they were capped
# and encoded as WebP; the whole notebook 1.36 MB before the pictures, 3.3 MB with them uncapped,
# 2.28 MB with the bundle's 22 copies unpacked).
MAX_PICTURES_CHARS = 9_000 * COUNT
# The notebook without the bundle's copies: the cells, their outputs and every widget's state.
MAX_NOTEBOOK_BUT_BUNDLE_BYTES = 13_600 * COUNT
# The whole notebook: the bundle's copy in each widget (gzipped, base64: 72.8 KB since colours shown
# again are kept in the page and the frame, 72 KB since Model Explorer's in-place set and clear of an
# overlay, 71 KB before it, 2026-12-07; 68 KB since tlw.compare's run
# scrubber, small multiples and saved runs, 64 KB since the memory overlay, strip and inspector section,
# both 2026-12-06; 57 KB before) and the rest above.
MAX_NOTEBOOK_BYTES = 79_000 * COUNT
# Runs the cells above the widgets' last cell (the trace, `w` and `n`), as "Run All Above" does.
RUN_FIRST_THREE = """() => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = 3;
  window.jupyterapp.commands.execute('notebook:run-all-above');
}"""


def widget_state_sizes(path: Path) -> dict[str, int]:
    """Bytes of the saved notebook, of its widget state, and of the pictures in it."""
    text = path.read_text()
    state = json.loads(text)["metadata"].get("widgets", {}).get(STATE, {})
    pictures = saved_pictures(path)
    models = state.get("state", {}).values()
    return {
        "notebook": len(text.encode()),
        "widget_state": len(json.dumps(state).encode()),
        "bundle_copies": sum(len(json.dumps(m["state"].get("_esm", ""))) for m in models),
        "pictures": sum(len(p) for p in pictures),
        "largest_picture": max((len(p) for p in pictures), default=0),
        "count": len(pictures),
    }


def test_a_saved_notebook_is_small_and_reopens_with_each_graph_as_last_drawn_until_its_cells_run(
    tmp_path_factory: Any, browser: Any, artifacts: Path, warm_kernels: WarmKernels
) -> None:
    root = tmp_path_factory.mktemp("saved-notebook")
    server = lab_saving_widget_state(root, warm_kernels.env())
    try:
        name = server.write_notebook("saved.ipynb", CELLS)
        page = RecordedPage(browser, height=TALL)
        try:
            open_notebook(page.page, server, name)
            kernel = server.kernel_for(name)
            try:
                run_all_cells(page.page)
                roots = page.page.locator(".tlw-root")
                expect(roots).to_have_count(COUNT, timeout=120_000)
                # A view keeps a picture of what it drew, a moment after the draw settles; only on screen
                # (off screen it may be paused, undrawn).
                for index, widget in enumerate(WIDGETS):
                    roots.nth(index).scroll_into_view_if_needed()
                    expect(roots.nth(index).locator(".tlw-status")).to_have_attribute(
                        "data-state", "ready", timeout=240_000
                    )
                    kernel.wait_for(f"bool({widget}._picture)", True, timeout=120)
                page.page.wait_for_function(SETTLED, arg=1, timeout=60_000)
                for widget in ("w", "n"):
                    assert kernel.value(f"{widget}._picture.startswith({PICTURE_PREFIXES!r})") is True
            finally:
                kernel.close()
            pictures = save_notebook(page.page, root / name, pictures=COUNT, timeout=60)
            sizes = widget_state_sizes(root / name)
            (artifacts / "saved-size.json").write_text(json.dumps(sizes, indent=2))
            shutil.copy(root / name, artifacts / "saved-state.ipynb")
            print("saved notebook sizes:", sizes)
            assert len(pictures) == COUNT
            assert all(p.startswith(PICTURE_PREFIXES) for p in pictures)
            assert sizes["largest_picture"] <= PICTURE_MAX_CHARS <= 40_000
            assert sizes["pictures"] <= MAX_PICTURES_CHARS, sizes
            assert sizes["notebook"] - sizes["bundle_copies"] <= MAX_NOTEBOOK_BUT_BUNDLE_BYTES, sizes
            assert sizes["notebook"] <= MAX_NOTEBOOK_BYTES, sizes
            assert page.console_errors == []
        finally:
            page.close()
        server.shut_down_notebook(name)

        # Reopened: JupyterLab starts a fresh kernel, which holds none of these widgets.
        page = RecordedPage(browser, height=TALL)
        try:
            open_notebook(page.page, server, name)
            images = page.page.locator("img.tlw-saved-picture")
            expect(images).to_have_count(COUNT)
            for index in (0, 1, COUNT - 1):
                images.nth(index).scroll_into_view_if_needed()
                assert_shows_a_drawn_graph(page.page, images.nth(index))
            statuses = page.page.locator(".tlw-status")
            for index in range(COUNT):
                expect(statuses.nth(index)).to_have_attribute("data-state", "disconnected")
                expect(statuses.nth(index)).to_contain_text("Run this cell for the live view")
            expect(page.page.locator(".tlw-title")).to_have_text(TITLES)
            expect(page.page.locator(".tlw-overlay-select").first).to_be_disabled()
            assert page.page.locator("iframe.tlw-frame").count() == 0  # nothing waits for a kernel
            page.page.locator(".jp-Notebook").screenshot(path=str(artifacts / "saved-state-reopened.png"))

            # Running the first cells gives live widgets in place of their pictures; the rest stay.
            page.page.locator(".jp-Notebook").scroll_into_view_if_needed()
            page.page.evaluate(RUN_FIRST_THREE)
            page.page.wait_for_function(SETTLED, arg=2, timeout=240_000)
            expect(page.page.locator("iframe.tlw-frame")).to_have_count(2)
            expect(images).to_have_count(MORE)
            expect(page.page.locator(".tlw-title")).to_have_text(TITLES)
            assert page.off_machine_requests() == []
            assert page.console_errors == []
        finally:
            page.close()
            server.shut_down_notebook(name)
    finally:
        server.stop()
