"""The memory overlay in a real JupyterLab + Chromium: chosen in the toolbar, it recolours Model
Explorer's graph in place and colours Netron's boxes (a module call by the peak inside it), the status
line states torchlens' peak; drawn-ness read from the page's pixels and the widget's draws counter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, KernelAccess, open_info_panel
from tests.helpers.notebook import RecordedPage, notebook_session
from tests.helpers.pixels import changed_fraction

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 1000, (1, 12)))""",
    "w = tlw.explore(log, height=620)\nw",
]
PROVIDER = "memory (live B above baseline per op)"
# The Netron boxes of the root graph that have a memory figure (a module call: the peak inside it).
ROOT_VALUES = (
    "sorted(e.node_id for e in w._source.index if not e.graph "
    "and e.node_id in w._source.overlay_values(w._overlay)['values'])"
)
ROOT_MODULE_CALLS = (
    "sorted(e.node_id for e in w._source.index if not e.graph and e.module_address is not None)"
)


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    @property
    def root(self) -> Any:
        return self.page.page.locator(".tlw-root").first

    @property
    def iframe(self) -> Any:
        return self.page.page.locator("iframe.tlw-frame").first

    @property
    def frame(self) -> Any:
        return self.iframe.content_frame


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "memory.ipynb", CELLS, widgets=1) as (page, kernel):
        kernel.wait_ready("w", timeout=120)
        yield Session(page, kernel)


def test_the_memory_overlay_from_the_toolbar_recolours_model_explorer_in_place(
    session: Session, artifacts: Any
) -> None:
    kernel, frame = session.kernel, session.frame
    canvas = frame.locator("webgl-renderer canvas.main").first
    session.iframe.evaluate("frame => { frame.__tlwMark = 'before memory'; }")
    look, drawn = canvas.screenshot(), kernel.draws("w")
    session.root.locator(".tlw-overlay-select").select_option("memory")  # the toolbar offers it
    kernel.wait_for("w.overlay", "memory", timeout=30)
    kernel.wait_drawn("w", since=drawn, timeout=120)
    assert session.iframe.evaluate("frame => frame.__tlwMark") == "before memory", "a new frame was made"
    assert changed_fraction(look, canvas.screenshot()) > 0.002, "the memory overlay changed no pixel"
    open_info_panel(frame)  # Model Explorer loaded torchlens' figures as node data
    expect(frame.get_by_text(PROVIDER).first).to_be_visible(timeout=30_000)
    summary = kernel.value("w.overlay_summary")
    assert summary.startswith("memory on ") and "not allocator residency" in summary
    expect(session.root.locator(".tlw-overlay-info")).to_have_text(summary)
    line = kernel.value("w.memory_summary['line']")
    assert line.startswith("Memory peak ") and " in lm_head" in line
    expect(session.root.locator(".tlw-status")).to_contain_text(line, timeout=30_000)
    session.root.screenshot(path=str(artifacts / "memory-model-explorer.png"))


def test_memory_peak_fills_the_inspector_and_a_tensor_alive_there_selects_its_producer(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    kernel.run("peak = w.memory_peak()")
    label = kernel.value("peak.label")
    kernel.wait_for("w.selected_label", label, timeout=30)
    inspector = session.root.locator(".tlw-inspector")
    box = inspector.locator(".tlw-insp-memory")
    expect(box).to_contain_text("alive when it ran", timeout=30_000)
    expect(box).to_contain_text("module lm_head")
    links = box.locator(".tlw-insp-memory-link")
    expect(links.first).to_have_text(label)  # the largest tensor alive at the peak: the op's own output
    producer = links.nth(1).inner_text()
    assert producer != label
    links.nth(1).click()
    kernel.wait_for("w.selected_label", producer, timeout=30)
    expect(inspector.locator(".tlw-insp-expr")).to_have_text(f'log["{producer}"]', timeout=30_000)
    session.root.screenshot(path=str(artifacts / "memory-inspector.png"))


def test_the_memory_overlay_colours_netrons_boxes_and_module_calls_by_the_peak_inside(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    drawn = kernel.draws("w")
    # No selection: Netron opens its root graph (a selection inside a module call would drill into it).
    kernel.run("w.overlay = ''\nw.selected_node = ''\nw.viewer = 'netron'")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    graph = session.frame.locator("#canvas")
    expect(graph).to_be_visible(timeout=30_000)
    look, drawn = graph.screenshot(), kernel.draws("w")
    kernel.run("w.overlay = 'memory'")
    kernel.wait_drawn("w", since=drawn, timeout=120)
    legend = session.frame.locator("#tlw-overlay-legend")
    expect(legend).to_contain_text("live B above baseline", timeout=30_000)
    coloured, module_calls = kernel.value(ROOT_VALUES), kernel.value(ROOT_MODULE_CALLS)
    assert module_calls and set(module_calls) <= set(coloured)  # no module box left "no value"
    boxes = session.frame.locator("g.node[data-tlw-overlay='value']")
    expect(boxes).to_have_count(len(coloured), timeout=30_000)
    expect(legend).to_contain_text(f"this graph: {len(coloured)} coloured")
    assert changed_fraction(look, graph.screenshot()) > 0.002, "the memory overlay changed no pixel"
    expect(session.root.locator(".tlw-status")).to_contain_text("Memory peak ")
    session.root.screenshot(path=str(artifacts / "memory-netron.png"))


def test_page_made_no_request_off_this_machine(session: Session) -> None:
    assert session.page.off_machine_requests() == []
