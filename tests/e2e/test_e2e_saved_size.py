"""The size of a notebook of many explorers saved with its widget state, in a real JupyterLab.

Each explorer keeps one small picture of its graph in the saved state (js/view/saved-picture.ts): ten of
them (twice what a page keeps live) add a few KB each to the notebook, and reopened, each view still
shows its picture. The rest of the saved state is mostly anywidget's copy of the widget's bundle
(`_esm`, packed: widgets/bundle.py), one per widget; its size is recorded beside the pictures'
(test-artifacts/saved-size.json).
"""

from __future__ import annotations

import json
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
from torchlens_widgets._protocol import PICTURE_MAX_CHARS, PICTURE_PREFIXES

COUNT = 10
CELLS = [
    """import torch, transformers, torchlens as tl, torchlens_widgets as tlw
from IPython.display import display
torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16)
model = transformers.GPT2Model(config).eval()
log = tl.trace(model, torch.randint(0, 64, (1, 4)))""",
    f"ws = [tlw.explore(log, height=300) for _ in range({COUNT})]\ndisplay(*ws)",
]
# A page tall enough for four or five of the 300 px explorers at once (their frames draw only on
# screen): the notebook is read in half as many screens. Five explorers' WebGL contexts fit the page's
# budget (js/view/webgl-budget.ts), so none is paused while on screen.
TALL = 1600
# The bounds per explorer (measured with 22 of them: 400 KB of pictures as PNG before they were capped
# and encoded as WebP; the whole notebook 1.36 MB before the pictures, 3.3 MB with them uncapped,
# 2.28 MB with the bundle's 22 copies unpacked).
MAX_PICTURES_CHARS = 9_000 * COUNT
# The notebook without the bundle's copies: the cells, their outputs and every widget's state.
MAX_NOTEBOOK_BUT_BUNDLE_BYTES = 13_600 * COUNT
# The whole notebook: the bundle's copy in each widget (gzipped, base64: 68 KB since tlw.compare's run
# scrubber, small multiples and saved runs, 64 KB since the memory overlay, strip and inspector section,
# both 2026-12-06; 57 KB before) and the rest above.
MAX_NOTEBOOK_BYTES = 76_000 * COUNT


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


def test_a_notebook_of_ten_explorers_saves_small_and_reopens_with_their_pictures(
    tmp_path_factory: Any, browser: Any, artifacts: Path
) -> None:
    root = tmp_path_factory.mktemp("saved-size")
    server = lab_saving_widget_state(root)
    try:
        name = server.write_notebook("many.ipynb", CELLS)
        page = RecordedPage(browser, height=TALL)
        try:
            open_notebook(page.page, server, name)
            kernel = server.kernel_for(name)
            try:
                run_all_cells(page.page)
                roots = page.page.locator(".tlw-root")
                expect(roots).to_have_count(COUNT, timeout=120_000)
                # A view keeps its picture only on screen (off screen it may be paused, undrawn).
                for index in range(COUNT):
                    roots.nth(index).scroll_into_view_if_needed()
                    expect(roots.nth(index).locator(".tlw-status")).to_have_attribute(
                        "data-state", "ready", timeout=240_000
                    )
                    kernel.wait_for(f"bool(ws[{index}]._picture)", True, timeout=120)
                page.page.wait_for_function(SETTLED, arg=1, timeout=60_000)
            finally:
                kernel.close()
            pictures = save_notebook(page.page, root / name, pictures=COUNT, timeout=60)
            sizes = widget_state_sizes(root / name)
            (artifacts / "saved-size.json").write_text(json.dumps(sizes, indent=2))
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

        # Reopened with no kernel behind the widgets: each view shows its picture.
        page = RecordedPage(browser)
        try:
            open_notebook(page.page, server, name)
            images = page.page.locator("img.tlw-saved-picture")
            expect(images).to_have_count(COUNT)
            for index in (0, COUNT - 1):
                image = images.nth(index)
                image.scroll_into_view_if_needed()
                assert_shows_a_drawn_graph(page.page, image)
            assert page.console_errors == []
        finally:
            page.close()
            server.shut_down_notebook(name)
    finally:
        server.stop()
