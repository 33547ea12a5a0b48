"""w.save_html(): the saved file opens from disk in Chromium with the network blocked and no kernel.

The viewer draws, the toolbar switches between the recorded overlays, a click selects and fills the
inspector from the recorded facts, no button asks what the file cannot answer (a debug question), and
the page asks for nothing but its own file and blob:/data: URLs.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from playwright.sync_api import expect

import torchlens_widgets as tlw

LOCAL_SCHEMES = ("file:", "blob:", "data:")


class OfflinePage:
    """A Chromium page in which every request that is not the file itself (or blob:/data:) fails."""

    def __init__(self, browser: Any, path: Path, settled: str = "ready") -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.errors: list[str] = []
        # Chromium says in the console (of the page or a frame) what a Content-Security-Policy refused.
        self.csp_violations: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._on_console)
        self.page.goto(path.as_uri())
        # Locator waits, not page functions: the saved page's CSP forbids eval.
        self.page.locator(f".tlw-status[data-state='{settled}']").wait_for(timeout=120_000)

    def _on_console(self, message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.csp_violations.append(message.text)

    def _route(self, route: Any) -> None:
        if route.request.url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    @property
    def root(self) -> Any:
        return self.page.locator(".tlw-root")

    @property
    def frame(self) -> Any:
        return self.page.locator("iframe.tlw-frame").content_frame

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def traced() -> Any:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64))
    with torch.no_grad():
        return tl.trace(model.eval(), torch.randint(0, 1000, (1, 12)))


@pytest.fixture(scope="module")
def saved_model_explorer(
    traced: Any, browser: Any, tmp_path_factory: Any
) -> Iterator[tuple[Any, OfflinePage]]:
    w = tlw.explore(traced, overlay="time").select("transformer.h.0.mlp.c_fc")
    path = w.save_html(tmp_path_factory.mktemp("offline") / "gpt2.html")
    page = OfflinePage(browser, path)
    try:
        yield w, page
    finally:
        page.close()


def test_saved_file_draws_the_graph_selection_and_inspector_offline(
    saved_model_explorer: tuple[Any, OfflinePage], artifacts: Any
) -> None:
    w, page = saved_model_explorer
    expect(page.root.locator(".tlw-status")).to_contain_text(f"selected {w.selected_label}")
    expect(page.frame.locator("webgl-renderer canvas").first).to_be_attached(timeout=60_000)
    expect(page.frame.get_by_text("time (ms per op)").first).to_be_visible(timeout=30_000)
    inspector = page.root.locator(".tlw-inspector")
    expect(inspector).to_have_attribute("data-state", "node", timeout=30_000)
    expect(inspector).to_contain_text(w.selected_label)
    expect(inspector).to_contain_text("256")  # c_fc's output width, from the recorded facts
    # The file answers no debug question: no lineage or toolbar button that could only fail.
    expect(inspector.locator(".tlw-insp-lineage button")).to_have_count(0)
    expect(page.root.locator(".tlw-debug button")).to_have_count(0)
    page.root.screenshot(path=str(artifacts / "offline-model-explorer.png"))


def test_toolbar_switches_recorded_overlays_and_explains_refused_ones(
    saved_model_explorer: tuple[Any, OfflinePage],
) -> None:
    w, page = saved_model_explorer
    select = page.root.locator(".tlw-overlay-select")
    select.select_option("bytes")
    page.page.locator(".tlw-status[data-state='ready']").wait_for(timeout=60_000)
    expect(page.frame.get_by_text("bytes (activation B per op)").first).to_be_visible(timeout=30_000)
    w.overlay = "bytes"
    expect(page.root.locator(".tlw-overlay-info")).to_have_text(w.overlay_summary)
    select.select_option("grad_norm")  # no backward pass was run: refused, as the live widget does
    expect(page.root.locator(".tlw-notice")).to_contain_text("Remedy", timeout=30_000)
    expect(select).to_have_value("bytes")


def test_a_click_in_the_saved_viewer_selects_and_inspects(
    saved_model_explorer: tuple[Any, OfflinePage], artifacts: Any
) -> None:
    w, page = saved_model_explorer
    label = w.log.modules["transformer.h.1.attn.c_attn"].output_ops[0]
    node_id = w._source.index.id_of_label(label)
    search = page.frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]')
    search.fill(f"^torchlens_label={label}$")
    result = page.frame.locator(f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node')
    result.wait_for(timeout=30_000)
    result.click(modifiers=["Alt"])
    expect(page.root.locator(".tlw-status")).to_contain_text(f"selected {label}", timeout=30_000)
    expect(page.root.locator(".tlw-inspector")).to_contain_text(label, timeout=30_000)
    expect(page.root.locator(".tlw-insp-lineage button")).to_have_count(0)  # an op: still no lineage
    page.root.screenshot(path=str(artifacts / "offline-model-explorer-click.png"))


def test_saved_page_made_no_request_beyond_its_own_file(
    saved_model_explorer: tuple[Any, OfflinePage],
) -> None:
    _, page = saved_model_explorer
    assert page.blocked == []
    assert all(url.startswith(LOCAL_SCHEMES) for url in page.requests), page.requests
    assert page.errors == []
    assert page.csp_violations == []  # the page's and the frame's policies allow all they run


def test_saved_netron_file_draws_offline(traced: Any, browser: Any, tmp_path: Path, artifacts: Any) -> None:
    n = tlw.explore(traced, viewer="netron", overlay="bytes")
    page = OfflinePage(browser, n.save_html(tmp_path / "netron.html"))
    try:
        expect(page.frame.locator("g.node", has_text="transformer").first).to_be_visible(timeout=30_000)
        expect(page.frame.locator("#tlw-overlay-legend")).to_contain_text("activation B")
        page.root.screenshot(path=str(artifacts / "offline-netron.png"))
        assert page.blocked == [] and page.errors == [] and page.csp_violations == []
    finally:
        page.close()


def test_a_crash_of_model_explorers_layout_worker_is_reported_with_a_remedy(
    browser: Any, tmp_path: Path, artifacts: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the payload's layer split, Model Explorer's worker overflows its stack on a flat layer of
    # 5,000 ops (measured). The widget says so as soon as the worker fails, not after the draw time-out.
    from tests.helpers.models import Chain
    from torchlens_widgets import graph_model as _payload

    monkeypatch.setattr(_payload, "split_wide_layers", lambda collection, limit=0: collection)
    options = tl.options.CaptureOptions(layers_to_save=None)
    log = tl.trace(Chain(2500), torch.randn(3), capture=options)
    page = OfflinePage(browser, tlw.explore(log).save_html(tmp_path / "crash.html", inspector=False), "error")
    try:
        error = page.root.locator(".tlw-error")
        expect(error).to_contain_text("layout worker failed")
        expect(error).to_contain_text("Maximum call stack size exceeded")
        expect(error).to_contain_text('Remedy: show this trace in Netron (explore(log, viewer="netron"))')
        page.root.screenshot(path=str(artifacts / "model-explorer-worker-crash.png"))
    finally:
        page.close()


def test_a_netron_frame_that_cannot_start_is_reported_at_once_with_a_remedy(
    traced: Any, browser: Any, tmp_path: Path, artifacts: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A corrupted Netron module (e.g. a damaged install): the frame's host cannot start Netron. The
    # widget says so as soon as the frame reports it, not after the 120 s draw time-out.
    import time

    from torchlens_widgets._assets import AssetBundle
    from torchlens_widgets.viewers import netron as _netron

    real = _netron.netron_assets()
    broken = AssetBundle(
        "netron", real.version, {**real.files, "view.js": b"export const View = ;\n"}, real.roles
    )
    monkeypatch.setattr(_netron, "netron_assets", lambda: broken)
    path = tlw.explore(traced, viewer="netron").save_html(tmp_path / "netron-broken.html", inspector=False)
    started = time.monotonic()
    page = OfflinePage(browser, path, "error")
    try:
        elapsed = time.monotonic() - started
        error = page.root.locator(".tlw-error")
        expect(error).to_contain_text("Netron could not start in this cell")
        expect(error).to_contain_text("SyntaxError")
        remedy = (
            f'Remedy: reinstall the netron package (pip install --force-reinstall "netron=={real.version}")'
        )
        expect(error).to_contain_text(remedy)
        page.root.screenshot(path=str(artifacts / "netron-start-failure.png"))
        print(f"netron start failure reported {elapsed:.1f} s after the page was opened")
    finally:
        page.close()


def test_a_bounded_gpt2_48_file_opens_and_says_what_it_left_out(
    browser: Any, tmp_path: Path, artifacts: Any
) -> None:
    """GPT-2 with 48 blocks saved within half its natural size: it opens offline, and a node late in
    the graph (its value summary left out by the bound) says so in its panel, with the remedy."""
    from tests.helpers.models import gpt2_48

    model, tokens = gpt2_48()
    with torch.no_grad():
        log = tl.trace(model, tokens)
    n = tlw.explore(log, viewer="netron", granularity="op")
    bound = n.save_html(tmp_path / "whole.html").stat().st_size // 2
    path = n.save_html(tmp_path / "bounded.html", max_bytes=bound)
    assert path.stat().st_size <= bound
    page = OfflinePage(browser, path)
    try:
        page.frame.locator("g.node", has_text="addmm").last.locator(".node-item-type").first.click()
        status = page.root.locator(".tlw-status")
        expect(status).to_contain_text("selected ", timeout=30_000)
        label = status.inner_text().split("selected ", 1)[1].split(" ")[0]
        inspector = page.root.locator(".tlw-inspector")
        expect(inspector).to_contain_text(label, timeout=30_000)
        expect(inspector).to_contain_text("left out of this", timeout=30_000)
        expect(inspector).to_contain_text(f"max_bytes={bound:,}")
        page.root.screenshot(path=str(artifacts / "offline-bounded-gpt2-48.png"))
        assert page.blocked == [] and page.errors == []
    finally:
        page.close()


def test_a_saved_comparison_scrubs_its_runs_in_place_offline(
    browser: Any, tmp_path: Path, artifacts: Any
) -> None:
    # Three runs of a model with every op at the top level (each shows its colour as drawn): step1
    # moves w1, step2 moves w3, so their deltas from step0 colour different ops.
    from tests.helpers.pixels import changed_fraction

    class Flat(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w1, self.w2, self.w3 = (torch.nn.Parameter(torch.randn(16, 16)) for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(torch.relu(torch.tanh(x @ self.w1) @ self.w2) @ self.w3)

    torch.manual_seed(0)
    model, x = Flat(), torch.randn(4, 16)
    runs = {}
    for name, moved in (("step0", None), ("step1", "w1"), ("step2", "w3")):
        other = copy.deepcopy(model)
        with torch.no_grad():
            if moved:
                getattr(other, moved).add_(torch.randn(16, 16))
            runs[name] = tl.trace(other, x)
    c = tlw.compare(runs, height=560)
    c.select(runs["step0"].layer_list[2].label)  # tanh, after w1: moved in step1, not in step2
    page = OfflinePage(browser, c.save_html(tmp_path / "compare.html"))
    try:
        scrubber = page.root.locator(".tlw-scrubber")
        expect(scrubber.locator(".tlw-scrub-name")).to_have_text("step1 · 2/3")
        rows = page.root.locator(".tlw-inspector .tlw-insp-run")
        expect(rows).to_have_count(3, timeout=30_000)
        expect(rows.nth(1)).to_have_attribute("data-shown", "true")
        canvas = page.frame.locator("webgl-renderer canvas.main").first
        page.page.wait_for_timeout(1000)  # the selection centred and settled
        look = canvas.screenshot()
        page.root.screenshot(path=str(artifacts / "offline-compare-step1.png"))
        scrubber.locator(".tlw-scrub-next").click()
        expect(scrubber.locator(".tlw-scrub-name")).to_have_text("step2 · 3/3")
        expect(page.root.locator(".tlw-overlay-info")).to_contain_text("run step2 vs step0")
        expect(rows.nth(2)).to_have_attribute("data-shown", "true")
        page.page.locator(".tlw-status[data-state='ready']").wait_for(timeout=60_000)
        page.page.wait_for_timeout(1000)
        page.root.screenshot(path=str(artifacts / "offline-compare-step2.png"))
        assert changed_fraction(look, canvas.screenshot()) > 0.002, "the run's colours changed no pixel"
        expect(page.page.locator("iframe.tlw-frame")).to_have_count(1)  # recoloured in place
        rows.nth(0).click()  # the small multiples pick a run as the scrubber does
        expect(scrubber.locator(".tlw-scrub-name")).to_have_text("step0 (reference) · 1/3")
        expect(page.root.locator(".tlw-overlay-info")).to_contain_text("is the reference")
        page.root.screenshot(path=str(artifacts / "offline-compare.png"))
        assert page.blocked == [] and page.errors == [] and page.csp_violations == []
    finally:
        page.close()


def test_an_op_some_runs_lack_says_so_in_model_explorers_info_panel(
    browser: Any, tmp_path: Path, artifacts: Any
) -> None:
    from tests.helpers.harness import open_info_panel

    class Plain(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(x)

    class Doubled(Plain):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return super().forward(x) * 2  # mul_1_2: an op the plain runs lack

    x = torch.randn(2, 4)
    runs = {
        "doubled": tl.trace(Doubled(), x),
        "plain": tl.trace(Plain(), x),
        "plain2": tl.trace(Plain(), x * 2),
    }
    c = tlw.compare(runs).select("mul_1_2:1")
    page = OfflinePage(browser, c.save_html(tmp_path / "lacking.html"))
    try:
        expect(page.root.locator(".tlw-insp-run[data-lacks='true']")).to_have_count(2, timeout=30_000)
        open_info_panel(page.frame)
        row = page.frame.locator("info-panel tr").filter(
            has=page.frame.locator("td.key", has_text="not_in_runs")
        )
        expect(row.locator("td.value .one-line-text").first).to_have_text("plain, plain2", timeout=30_000)
        page.root.screenshot(path=str(artifacts / "offline-compare-not-in-runs.png"))
        assert page.blocked == [] and page.errors == [] and page.csp_violations == []
    finally:
        page.close()
