"""Model Explorer in a browser that gives its frames no WebGL: the widget says so within seconds, not
after the draw time-out, and one click on its error box shows the trace in Netron, which draws SVG.

The module launches a Chromium of its own with WebGL turned off (`--disable-webgl`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer
from tests.helpers.notebook import NotebookSession as Session
from tests.helpers.notebook import notebook_session
from tests.helpers.pixels import shows_a_graph

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))""",
    "w = tlw.explore(log, height=420)\nw",
]

# Far below the draw time-out (RENDER_BUDGET_MS, 120 s) that a view without WebGL waited out before;
# a bound on what the user sees, with room for a busy machine, not a timing benchmark.
TOLD_WITHIN_S = 30


@pytest.fixture(scope="module")
def no_webgl_browser(browser: Any) -> Iterator[Any]:
    chromium = browser.browser_type.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--disable-webgl"])
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, no_webgl_browser: Any) -> Iterator[Session]:
    # Waits only for the widget to be on the page: how soon it reports is what the first test checks.
    def shown(page: Any) -> None:
        page.page.locator(".tlw-root").first.wait_for(timeout=120_000)

    with notebook_session(jupyter_lab, no_webgl_browser, "no_webgl.ipynb", CELLS, settled=shown) as (
        page,
        kernel,
    ):
        yield Session(page, kernel)


def test_no_webgl_is_reported_within_seconds_naming_webgl(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_for("w.status", "error", timeout=TOLD_WITHIN_S)
    assert "WebGL" in kernel.value("w.error")
    assert "Netron" in kernel.value("w.error")
    error_box = session.root(0).locator(".tlw-error")
    expect(error_box).to_contain_text("WebGL")
    expect(session.root(0).locator(".tlw-status")).to_have_attribute("data-state", "error")


def test_one_click_switches_to_netron_which_draws(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_for("w.status", "error", timeout=TOLD_WITHIN_S)
    draws = kernel.draws("w")
    session.root(0).locator(".tlw-error").get_by_role("button", name="Switch to Netron").click()
    kernel.wait_for("w.viewer", "netron")
    kernel.wait_drawn("w", since=draws, timeout=120)
    assert kernel.value("w.error") == ""
    expect(session.root(0).locator(".tlw-error")).to_be_hidden()
    assert shows_a_graph(session.page.page, 0), f"Netron shows no graph: {session.describe(0)}"


def test_no_console_errors(session: Session) -> None:
    assert session.page.console_errors == [], session.page.console_errors
