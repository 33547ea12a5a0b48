"""The memory picture in a real JupyterLab + Chromium, on one explorer of GPT-2.

The strip (``w.timeline = "memory"``): drawn under the graph, read from its canvas's pixels (torchlens'
bands, the peak's mark at torchlens' peak op); a click on it selects the op torchlens says ran there; a
selection from Python moves the mark to that op's place; hovering names the op and its bytes; it takes
no focus; maximize gives it room; the saved page keeps it. The overlay: chosen in the toolbar, it
recolours Model Explorer's graph in place and colours Netron's boxes (a module call by the peak inside
it), the status line states torchlens' peak; drawn-ness read from the page's pixels and the widget's
draws counter."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
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
    "w = tlw.explore(log, height=520)\nw",
]
# torchlens' series as the kernel reads it: (ordinal, live bytes, the op that ran then) per point.
SERIES = "[(o, b, w._memory.timeline.label_at(o)) for o, b in w._memory.timeline.series]"
# The strip's colours (js/memory/memory-strip.ts): the activation band, the peak's mark, the selection's.
ACTIVATION = (0x48, 0x78, 0xA8)
PEAK = (0xC6, 0x28, 0x28)
SELECTION = (0xFF, 0x8F, 0x00)
PROVIDER = "memory (live B above baseline per op)"
# The overlays the explorer's kernel started building ahead, by name, until shown.
STARTED = "w._own_overlays._caches['model-explorer']._ahead._started"
BUILT = "w._own_overlays._caches['model-explorer']._built"
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
    series: list[tuple[int, int, str]]

    @property
    def root(self) -> Any:
        return self.page.page.locator(".tlw-root").first

    @property
    def strip(self) -> Any:
        return self.root.locator(".tlw-strip")

    @property
    def canvas(self) -> Any:
        return self.strip.locator("canvas")

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
        kernel.run('w.timeline = "memory"')
        yield Session(page, kernel, kernel.value(SERIES))


def picture(canvas: Any) -> Image.Image:
    return Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")


def near(pixel: tuple[int, int, int], colour: tuple[int, int, int], tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


def columns_with(image: Image.Image, colour: tuple[int, int, int], least: int = 3) -> list[int]:
    """The x of every pixel column with at least ``least`` pixels of ``colour``."""
    pixels = image.load()
    return [
        x for x in range(image.width) if sum(near(pixels[x, y], colour) for y in range(image.height)) >= least
    ]


def image_x(session: Session, image: Image.Image, index: int) -> float:
    """Where point ``index`` of the series is drawn, in the picture's pixels (the middle of its span)."""
    return (index + 0.5) * image.width / len(session.series)


def wait_mark_at(session: Session, index: int) -> Image.Image:
    """The canvas once the selection's mark stands at point ``index`` (the strip redraws on its own)."""
    expect(session.strip).to_have_attribute("data-selected-point", str(index))
    return picture(session.canvas)


def test_nearing_the_overlay_menu_has_the_kernel_build_the_memory_overlay_ahead(session: Session) -> None:
    # The pointer resting on the toolbar's overlay menu: before any pick, the kernel builds the memory overlay
    # on its background worker (a pick then waits for the recolour only). First in this module: later
    # tests show it (and the saved page builds every overlay).
    kernel = session.kernel
    # Drawn: the view's report had the kernel build the cost overlays ahead (not the memory overlay).
    cost = "{'time', 'flops', 'bytes'}"
    kernel.wait_for(f"{cost} <= set({STARTED}) | set({BUILT})", True, timeout=30)
    assert kernel.value(f"'memory' not in {STARTED} and 'memory' not in {BUILT}")
    session.root.locator(".tlw-overlay-select").hover()
    kernel.wait_for(f"{STARTED}.get('memory') is not None", True, timeout=30)
    assert kernel.value(f"{STARTED}['memory'].result().name") == "memory"
    assert kernel.value("w.overlay") == ""  # nothing shown until the reader picks it
    session.page.page.mouse.move(0, 0)


def test_the_strip_draws_torchlens_series_under_the_graph_with_its_peak_marked(
    session: Session, artifacts: Any
) -> None:
    strip, kernel = session.strip, session.kernel
    expect(strip).to_be_visible()
    expect(strip).to_have_attribute("data-points", str(len(session.series)))
    image = picture(session.canvas)
    # Read from the pixels: the activation band is drawn across the strip, not a blank canvas.
    activation = columns_with(image, ACTIVATION)
    assert len(activation) > image.width * 0.8, f"{len(activation)} of {image.width} columns hold the band"
    # The peak's mark stands where torchlens' peak op is on the strip.
    summary = kernel.value("w.memory_summary")
    peak = [label for _o, _b, label in session.series].index(summary["peak_label"])
    marks = columns_with(image, PEAK, least=image.height // 4)
    assert marks and all(abs(x - image_x(session, image, peak)) <= 3 for x in marks), marks
    # Under the graph, outside the viewer's frame; the graph keeps the height asked for.
    frame, box = session.root.locator("iframe.tlw-frame").bounding_box(), strip.bounding_box()
    assert frame and box and box["y"] >= frame["y"] + frame["height"] - 1
    assert 90 <= box["height"] <= 130 and frame["height"] >= 400
    peak_text = kernel.value("tlw.memory.summary.size(w.memory_summary['peak_bytes'])")  # torchlens' text
    expect(strip).to_contain_text(f"peak {peak_text} at {summary['peak_label']}")
    expect(session.root.locator(".tlw-status")).to_contain_text(summary["line"])
    # Nothing in it takes the keyboard focus; drawing it focused nothing.
    assert session.canvas.get_attribute("tabindex") is None
    assert session.page.page.evaluate("() => !document.activeElement?.closest('.tlw-strip')")
    session.root.screenshot(path=str(artifacts / "memory-strip.png"))


def test_a_click_on_the_strip_selects_the_op_torchlens_says_ran_there(session: Session) -> None:
    kernel, canvas = session.kernel, session.canvas
    box = canvas.bounding_box()
    assert box
    index = len(session.series) // 3
    x = (index + 0.5) * box["width"] / len(session.series)
    label = session.series[index][2]
    assert label and kernel.value("w.selected_label") != label
    canvas.click(position={"x": x, "y": box["height"] / 2})
    kernel.wait_for("w.selected_label", label, timeout=30)
    assert kernel.value("w.selected.label") == label
    # The inspector shows it (memory is on screen: its bytes alive), and the strip marks it.
    inspector = session.root.locator(".tlw-inspector")
    expect(inspector.locator(".tlw-insp-expr")).to_have_text(f'log["{label}"]')
    expect(inspector.locator(".tlw-insp-memory")).to_contain_text("alive when it ran")
    image = wait_mark_at(session, index)
    marks = columns_with(image, SELECTION, least=image.height // 2)
    assert marks and all(abs(x - image_x(session, image, index)) <= 3 for x in marks), marks


def test_a_selection_from_python_moves_the_mark(session: Session) -> None:
    kernel = session.kernel
    before_index = [label for *_rest, label in session.series].index(kernel.value("w.selected_label"))
    before = wait_mark_at(session, before_index)
    index = len(session.series) * 3 // 4
    label = session.series[index][2]
    kernel.run(f"w.select({label!r})")
    after = wait_mark_at(session, index)
    old_x, new_x = image_x(session, after, before_index), image_x(session, after, index)
    marks = columns_with(after, SELECTION, least=after.height // 2)
    assert marks and all(abs(x - new_x) <= 3 for x in marks), (marks, new_x)
    # The pixels changed at both places: the mark left the old op and stands at the new one.
    assert near(before.getpixel((round(old_x), before.height // 2)), SELECTION)
    assert not near(after.getpixel((round(old_x), after.height // 2)), SELECTION)
    assert not near(before.getpixel((round(new_x), before.height // 2)), SELECTION)


def test_hovering_names_the_op_and_its_bytes(session: Session) -> None:
    box = session.canvas.bounding_box()
    assert box
    index = len(session.series) // 2
    _ordinal, live, label = session.series[index]
    session.canvas.hover(position={"x": (index + 0.5) * box["width"] / len(session.series), "y": 10})
    text = session.kernel.value(f"tlw.memory.summary.size({live})")
    readout = session.strip.locator(".tlw-strip-readout")
    expect(readout).to_contain_text(f"{label}: {text} alive")
    assert session.canvas.get_attribute("title") == readout.inner_text()
    session.page.page.mouse.move(0, 0)


def test_maximize_gives_the_strip_room_and_it_draws_at_its_new_size(session: Session) -> None:
    kernel, canvas = session.kernel, session.canvas
    height = canvas.evaluate("c => c.height")
    kernel.run("w.maximize()")
    try:
        expect(session.root).to_have_attribute("data-maximized", "true")
        expect(canvas).not_to_have_js_property("height", height)
        box = session.strip.bounding_box()
        assert box and box["height"] >= 170
        assert len(columns_with(picture(canvas), ACTIVATION)) > 0
    finally:
        kernel.run("w.maximize(False)")
    expect(session.root).to_have_attribute("data-maximized", "false")


def test_the_toolbars_memory_switch_hides_and_shows_the_strip(session: Session) -> None:
    switch = session.root.locator(".tlw-strip-switch")
    expect(switch).to_be_visible()
    expect(switch).to_have_attribute("aria-pressed", "true")  # the strip is shown (set from Python)
    graph_height = session.root.locator(".tlw-body").bounding_box()["height"]
    switch.click()
    session.kernel.wait_for("w.timeline is None", True, timeout=30)
    expect(session.strip).to_be_hidden()
    expect(switch).to_have_attribute("aria-pressed", "false")
    switch.click()
    session.kernel.wait_for("w.timeline", "memory", timeout=30)
    expect(session.strip).to_have_attribute("data-points", str(len(session.series)))
    expect(session.strip).to_be_visible()
    expect(switch).to_have_attribute("aria-pressed", "true")
    # The graph kept its height both ways: the strip comes under it.
    assert session.root.locator(".tlw-body").bounding_box()["height"] == graph_height


def test_the_saved_page_keeps_the_strip_and_a_click_on_it_selects(
    session: Session, browser: Any, tmp_path: Path
) -> None:
    path = Path(session.kernel.value("str(w.save_html('memory_strip.html', inspector=False).resolve())"))
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        strip = page.locator(".tlw-strip")
        expect(strip).to_have_attribute("data-points", str(len(session.series)), timeout=120_000)
        canvas = strip.locator("canvas")
        image = Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")
        assert len(columns_with(image, ACTIVATION)) > image.width * 0.8
        box = canvas.bounding_box()
        assert box
        index = len(session.series) // 2
        canvas.click(
            position={"x": (index + 0.5) * box["width"] / len(session.series), "y": box["height"] / 2}
        )
        expect(strip).to_have_attribute("data-selected-point", str(index))
        expect(page.locator(".tlw-status")).to_contain_text(session.series[index][2])
    finally:
        context.close()


# ----- the memory overlay (after the strip's tests: the last one leaves the explorer in Netron) -----


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


def test_no_console_error_and_no_request_off_this_machine(session: Session) -> None:
    assert session.page.console_errors == []
    assert session.page.off_machine_requests() == []
