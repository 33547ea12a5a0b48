"""Both viewers follow JupyterLab's light/dark theme live, and the widget fits the cell on resize."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer
from tests.helpers.notebook import RecordedPage, notebook_session
from tests.helpers.pixels import shows_a_graph

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))""",
    "w = tlw.explore(log, height=360)\nw",
    "n = tlw.explore(log, viewer='netron', height=360)\nn",
]

# Luminance (0-255) of an element's computed background colour.
BACKGROUND = """el => {
  const [r, g, b] = getComputedStyle(el).backgroundColor.match(/[\\d.]+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""


@pytest.fixture(scope="module")
def page(jupyter_lab: JupyterServer, browser: Any) -> Iterator[RecordedPage]:
    with notebook_session(
        jupyter_lab, browser, "theme.ipynb", CELLS, widgets=2, color_scheme="no-override"
    ) as (page, _kernel):
        yield page


def change_theme(page: RecordedPage, theme: str, light: bool) -> None:
    page.page.evaluate(
        f"() => window.jupyterapp.commands.execute('apputils:change-theme', {{theme: '{theme}'}})"
    )
    page.page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{str(light).lower()}'")


def frame(page: RecordedPage, index: int) -> Any:
    """The index-th viewer frame on the page, as a Playwright Frame (evaluate runs inside it)."""
    return page.page.locator("iframe.tlw-frame").nth(index).element_handle().content_frame()


def prefers_dark(viewer_frame: Any) -> bool:
    return viewer_frame.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")


def test_both_viewers_follow_the_notebook_theme_live(page: RecordedPage, artifacts: Any) -> None:
    model_explorer, netron = frame(page, 0), frame(page, 1)
    roots = page.page.locator(".tlw-root")
    expect(model_explorer.locator("body[data-metheme='light']")).to_be_attached(timeout=30_000)
    change_theme(page, "JupyterLab Dark", light=False)
    # Model Explorer redraws in its own dark theme; Netron's dark stylesheet applies; our chrome too.
    expect(model_explorer.locator("body[data-metheme='dark']")).to_be_attached(timeout=30_000)
    assert prefers_dark(netron) is True and prefers_dark(model_explorer) is True
    for index in range(2):
        expect(roots.nth(index)).to_have_attribute("data-theme", "dark")
        assert roots.nth(index).evaluate(BACKGROUND) < 100
    roots.nth(0).screenshot(path=str(artifacts / "theme-dark-model-explorer.png"))
    roots.nth(1).screenshot(path=str(artifacts / "theme-dark-netron.png"))
    change_theme(page, "JupyterLab Light", light=True)
    expect(model_explorer.locator("body[data-metheme='light']")).to_be_attached(timeout=30_000)
    assert prefers_dark(netron) is False
    assert roots.nth(0).evaluate(BACKGROUND) > 200


def test_widget_fits_the_cell_width_on_resize(page: RecordedPage, artifacts: Any) -> None:
    root = page.page.locator(".tlw-root").first
    body = root.locator(".tlw-body")
    viewer = root.locator("iframe.tlw-frame")
    canvas = viewer.content_frame.locator("webgl-renderer canvas").first
    canvas_widths = {}
    for width in (900, 1400):
        page.page.set_viewport_size({"width": width, "height": 1000})
        page.page.wait_for_function(
            "w => document.querySelector('.tlw-root').getBoundingClientRect().right <= w", arg=width
        )
        page.page.wait_for_timeout(1_000)  # Model Explorer redraws on its own resize observer
        cell = page.page.locator(".jp-OutputArea-output").filter(has=page.page.locator(".tlw-root")).first
        cell = cell.bounding_box()
        box, body_box, frame_box = root.bounding_box(), body.bounding_box(), viewer.bounding_box()
        assert cell and box and body_box and frame_box
        # The widget stays inside its cell; the viewer frame fills the widget's body; the app follows.
        assert box["x"] + box["width"] <= cell["x"] + cell["width"] + 1
        assert abs(frame_box["width"] - body_box["width"]) < 2
        canvas_box = canvas.bounding_box()
        assert canvas_box is not None and canvas_box["width"] <= frame_box["width"] + 1
        canvas_widths[width] = canvas_box["width"]
        root.screenshot(path=str(artifacts / f"resized-{width}.png"))
    assert canvas_widths[1400] > canvas_widths[900]  # the graph canvas grew with the cell


HIDE_AND_RERUN = """async () => {
  const app = window.jupyterapp;
  app.shell.currentWidget.content.activeCellIndex = 1;
  await app.commands.execute("notebook:hide-cell-outputs");
  await app.commands.execute("notebook:run-cell");
}"""


def test_widget_run_while_hidden_draws_once_shown(page: RecordedPage, artifacts: Any) -> None:
    # A collapsed output has no layout: nothing can draw, and the wait must not count as a failure.
    page.page.locator(".tlw-root").first.evaluate("root => { root.dataset.before = 'rerun'; }")
    page.page.evaluate(HIDE_AND_RERUN)
    root = page.page.locator(".tlw-root:not([data-before])").first
    expect(root).to_be_attached(timeout=60_000)  # the re-run cell's new widget, hidden
    status = root.locator(".tlw-status")
    expect(status).to_have_attribute("data-state", "loading")
    assert root.evaluate("root => root.parentElement.dataset.draws ?? '0'") == "0"  # nothing drawn hidden
    page.page.evaluate("() => window.jupyterapp.commands.execute('notebook:show-cell-outputs')")
    root.scroll_into_view_if_needed()
    page.page.wait_for_function(
        "root => Number(root.parentElement.dataset.draws ?? 0) >= 1",
        arg=root.element_handle(),
        timeout=120_000,
    )
    index = page.page.evaluate(
        "root => [...document.querySelectorAll('.tlw-root')].indexOf(root)", root.element_handle()
    )
    assert shows_a_graph(page.page, index), status.text_content()
    expect(status).not_to_have_attribute("data-state", "error")
    root.screenshot(path=str(artifacts / "drawn-after-hidden.png"))
