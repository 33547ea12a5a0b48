"""The numerics debugger on the graph in a real JupyterLab + Chromium, on GPT-2 from a config: where a
NaN was born (the "Why non-finite?" button, ``w.explain_nonfinite()``) drawn apart from the ops it
spread into, in both viewers, with the producer's inputs in the inspector; and where bfloat16 drifts
(``tlw.precision``), its overlays recolouring the drawn graph. Marks are read from the page's pixels
and the frames' own DOM, never from the widget's status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import JupyterServer, press
from tests.helpers.notebook import WidgetFramesSession, notebook_session
from tests.helpers.pixels import colour_pixels, wait_for_colour

CELLS = [
    """import copy, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
model = GPT2LMHeadModel(config).eval()
tokens = torch.randint(0, 1000, (1, 12))
broken = copy.deepcopy(model)
with torch.no_grad():
    broken.transformer.h[1].mlp.c_fc.weight[0, 0] = float("nan")  # one NaN weight, a real bug's size
    log = tl.trace(broken, tokens)
from torchlens.notebook.frontier import nonfinite_frontier
frontier = nonfinite_frontier(log)
producer = [site.label for site in frontier.sites if site.role == "first_dirty"][0]""",
    "m = tlw.explore(log, height=560)\nm",
    'n = tlw.explore(log, viewer="netron", granularity="op", height=560)\nn',
    "p = tlw.precision(model, tokens, height=560)\np",
]

PRODUCER_FILL = (0xF8, 0xBB, 0xD0)  # HIGHLIGHT_ROLE_STYLES["producer"]["backgroundColor"]
CARRIER_FILL = (0xE1, 0xBE, 0xE7)  # Model Explorer's fill of the ops that carry it
CARRIER_BORDER = (0x7B, 0x1F, 0xA2)  # their border in Netron
RANKED_FILL = (0xFF, 0xF5, 0x9D)  # drift_ranking's ops


Session = WidgetFramesSession


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "numerics.ipynb", CELLS, widgets=3) as (page, kernel):
        yield Session(page, kernel)


def wait_for_pixels(session: Session, index: int, colour: tuple[int, int, int], more_than: int) -> int:
    """How many of the frame's pixels are ``colour`` once more than ``more_than`` are (or time is up)."""
    return wait_for_colour(session.page.page, session.frame_element(index), colour, more_than, margin=24)


def test_why_nonfinite_button_draws_the_producer_apart_from_its_cone_in_model_explorer(
    session: Session, artifacts: Path
) -> None:
    kernel = session.kernel
    kernel.wait_ready("m")
    root = session.root(0)
    root.scroll_into_view_if_needed()
    expect(root.locator(".tlw-debug button")).to_have_text(
        ["First non-finite", "Why non-finite?"], timeout=60_000
    )
    before = colour_pixels(session.frame_element(0), PRODUCER_FILL, margin=24)
    drawn = kernel.draws("m")
    press(root.get_by_role("button", name="Why non-finite?"))
    producer = kernel.value("producer")
    kernel.wait_for("m.selected_label", producer, timeout=60)
    assert kernel.value("m._highlight_roles[m._source.highlight_ids([producer])[0]]") == "producer"
    # The reader sees it: the producer filled pink, the ops it spread into boxed purple, marked on the
    # graph drawn (no new draw).
    assert wait_for_pixels(session, 0, PRODUCER_FILL, before + 40) > before + 40
    assert wait_for_pixels(session, 0, CARRIER_FILL, 200) > 200
    assert kernel.draws("m") == drawn
    status = kernel.value("m.debug_status")
    assert producer in status and kernel.value("frontier.coverage") in status
    expect(root.locator(".tlw-status")).to_contain_text(producer, timeout=30_000)
    # The inspector: the producer's role, source line and inputs against their dtype's limits.
    box = root.locator(".tlw-insp-nonfinite")
    # torchlens counts no parameter as an op: the panel names the weight the NaN came in through.
    weight = "transformer.h.1.mlp.c_fc.weight"
    expect(box.locator("strong")).to_have_text(f"Non-finite values enter the graph here, through {weight}")
    expect(box.locator(f"[data-input='{weight}']")).to_contain_text("1 NaN", timeout=30_000)
    expect(box.locator("[data-input]").first).to_contain_text("float32")
    expect(box).to_contain_text("of 3.403e+38")
    session.page.page.wait_for_timeout(1_500)  # the centring animation, for the README's picture
    root.screenshot(path=str(artifacts / "nonfinite-producer.png"))


def test_explain_nonfinite_from_python_marks_netron_boxes_in_their_roles(
    session: Session, artifacts: Path
) -> None:
    kernel = session.kernel
    kernel.wait_ready("n")
    root, frame = session.root(1), session.frame(1)
    root.scroll_into_view_if_needed()
    kernel.run("answer = n.explain_nonfinite()")
    producer = kernel.value("producer")
    assert kernel.value("[r.label for r in answer.producers]") == [producer]
    assert kernel.value("answer.propagated") == kernel.value("frontier.flagged_total") - 1
    # Netron's own sidebar shows the producer (by its node name: the label of a single pass, bare); its
    # box carries the producer's class, the cone the other.
    expect(frame.locator("#sidebar-content")).to_contain_text(producer.removesuffix(":1"), timeout=60_000)
    expect(frame.locator("g.node.tlw-producer")).to_have_count(1, timeout=30_000)
    carriers = frame.locator("g.node.tlw-propagated").count()
    assert carriers >= 1
    assert wait_for_pixels(session, 1, CARRIER_BORDER, 20) > 20
    session.page.page.wait_for_timeout(1_000)  # Netron's reveal animation, for the picture
    root.screenshot(path=str(artifacts / "nonfinite-producer-netron.png"))
    # A plain highlight afterwards drops the roles in the frame.
    kernel.run("n.highlight(producer)")
    expect(frame.locator("g.node.tlw-producer")).to_have_count(0, timeout=30_000)
    expect(frame.locator("g.node.tlw-highlight")).to_have_count(1)


def test_precision_overlays_recolour_and_first_drift_and_ranking_answer(session: Session) -> None:
    kernel = session.kernel
    kernel.wait_ready("p", timeout=180)
    root = session.root(2)
    root.scroll_into_view_if_needed()
    assert kernel.value("p.overlay") == "drift"
    assert kernel.value("p.run.coverage") >= 0.95
    expect(root.locator(".tlw-overlay-info")).to_contain_text("drift", timeout=60_000)
    picture = session.frame_element(2).screenshot()
    drawn = kernel.draws("p")
    kernel.run("p.overlay = 'error gain'")
    kernel.wait_drawn("p", drawn, timeout=120)
    expect(root.locator(".tlw-overlay-info")).to_contain_text("error gain", timeout=60_000)
    session.page.page.wait_for_timeout(1_000)
    assert session.frame_element(2).screenshot() != picture  # recoloured on screen
    kernel.run("first = p.first_drift()")
    label = kernel.value("p.run.first_label")
    if label is not None:
        kernel.wait_for("p.selected_label", label, timeout=60)
        assert kernel.value("first is p.run.trace[p.run.first_label]") is True
    # With an overlay on, Model Explorer fills each node with the overlay's colour; without, the marks'.
    drawn = kernel.draws("p")
    kernel.run("p.overlay = ''")
    kernel.wait_drawn("p", drawn, timeout=120)
    before = colour_pixels(session.frame_element(2), RANKED_FILL, margin=24)
    drawn = kernel.draws("p")
    kernel.run("top = p.drift_ranking(3)")
    assert kernel.value("[d.label for d in top] == p.highlighted") is True
    kernel.wait_for("p.selected_label", kernel.value("top[0].label"), timeout=60)
    # The top op is selected and centred (its group opens), filled yellow as every ranked op is.
    assert wait_for_pixels(session, 2, RANKED_FILL, before + 40) > before + 40
