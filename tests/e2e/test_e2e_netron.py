"""Netron inline in a real JupyterLab, driven by headless Chromium, on BERT (random weights)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, KernelAccess, open_info_panel
from tests.helpers.notebook import RecordedPage, notebook_session

BERT_CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from transformers import BertConfig, BertModel
torch.manual_seed(0)
config = BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128,
                    vocab_size=1000)
model = BertModel(config).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 1000, (1, 12)))""",
    'wn = tlw.explore(log, viewer="netron", height=640)\nwn',
]


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    @property
    def frame(self) -> Any:
        return self.page.page.locator("iframe.tlw-frame").first.content_frame


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "bert.ipynb", BERT_CELLS, widgets=1) as (page, kernel):
        yield Session(page, kernel)


def test_renders_module_boxes_in_an_isolated_frame(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    kernel.wait_ready("wn")
    frame = session.frame
    expect(frame.locator("g.node", has_text="encoder").first).to_be_visible(timeout=30_000)
    assert session.page.page.locator("iframe.tlw-frame").first.get_attribute("sandbox") == "allow-scripts"
    handle = session.page.page.locator("iframe.tlw-frame").first.element_handle()
    assert handle is not None
    content = handle.content_frame()
    assert content is not None
    assert content.evaluate("window.origin") == "null"  # no access to the notebook's origin
    session.page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "netron-bert-module.png"))


def test_click_on_a_module_box_reaches_the_kernel(session: Session) -> None:
    kernel = session.kernel
    session.frame.locator("g.node", has_text="encoder").first.locator(".node-item-type").first.click()
    kernel.wait_for("wn.selected_label", "encoder", timeout=30)
    assert kernel.value("wn.selected is log.modules['encoder']") is True


def test_select_an_op_inside_a_module_call_drills_in_and_shows_its_properties(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    label = kernel.value("log.modules['encoder.layer.1.attention.self.query'].output_ops[0]")
    kernel.run(f"wn.select({label!r})")
    assert kernel.value("wn.selected_label") == label
    frame = session.frame
    # The breadcrumb shows the module calls it drilled through; the sidebar shows the node.
    expect(frame.locator("#toolbar-path")).to_contain_text("attention.self", timeout=30_000)
    sidebar = frame.locator("#sidebar-content")
    expect(sidebar).to_contain_text(kernel.value("wn.selected_node"), timeout=30_000)
    expect(sidebar).to_contain_text("METRICS", ignore_case=True)
    session.page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "netron-bert-select.png"))


def test_granularity_switches_live_and_keeps_the_selection(session: Session, artifacts: Any) -> None:
    kernel = session.kernel
    label = kernel.value("wn.selected_label")
    drawn = kernel.draws("wn")
    kernel.run("wn.granularity = 'op'")
    kernel.wait_drawn("wn", since=drawn, timeout=120)
    assert kernel.value("wn.selected_label") == label  # the op exists at op granularity too
    op_nodes = kernel.value("wn._graph_info['graphs']['op']")
    assert op_nodes > 40
    # torchlens' legibility warning for the tall op graph reaches the status line.
    expect(session.page.page.locator(".tlw-status").first).to_contain_text("⚠")
    session.page.page.locator(".tlw-root").first.screenshot(path=str(artifacts / "netron-bert-op.png"))
    drawn = kernel.draws("wn")
    kernel.run("wn.granularity = 'module'")
    kernel.wait_drawn("wn", since=drawn, timeout=120)


def test_viewer_switches_live_to_model_explorer_and_back(session: Session) -> None:
    kernel = session.kernel
    label = kernel.value("wn.selected_label")
    title = session.page.page.locator(".tlw-title").first
    drawn = kernel.draws("wn")
    kernel.run("wn.viewer = 'model-explorer'")
    expect(title).to_have_text("Model Explorer", timeout=30_000)
    kernel.wait_drawn("wn", since=drawn, timeout=120)
    assert kernel.value("wn.selected_label") == label
    open_info_panel(session.frame)  # the widget starts the app's own panel closed
    expect(session.frame.locator("info-panel .section .header", has_text="Node info").first).to_be_visible(
        timeout=30_000
    )
    drawn = kernel.draws("wn")
    kernel.run("wn.viewer = 'netron'")
    expect(title).to_have_text("Netron", timeout=30_000)
    kernel.wait_drawn("wn", since=drawn, timeout=120)
    assert kernel.value("wn.selected_label") == label


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.requests
    assert session.page.off_machine_requests() == []
