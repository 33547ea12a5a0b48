"""Overlays (torchlens_widgets._overlays and the widgets' overlay traits): a custom overlay is torchlens'
own node data for the user's function, colours both viewers and is saved with the page; built-in names,
a raising function and the public profile are refused with the remedy; the intervention overlay is offered
once an intervention fired. Each answer is checked against torchlens' own on a real trace (GPT-2's
architecture, 2 blocks 64 wide, random weights; TinyMLP and TwoPass)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torchlens.export._model_explorer._overlay import build_node_data
from torchlens.options import CaptureOptions

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP, TwoPass, small_gpt2
from tests.helpers.saved_pages import saved
from tests.helpers.traces import trace
from tests.helpers.view_requests import ask
from torchlens_widgets._errors import OverlayNameError, OverlayUnavailableError
from torchlens_widgets._overlays import (
    AHEAD_OVERLAYS,
    EXECUTION_GRAPH,
    OVERLAYS,
    OverlayCache,
    overlay_choices,
)
from torchlens_widgets.graph_model import model_explorer_payload


@pytest.fixture(scope="module")
def log() -> Any:
    model, tokens = small_gpt2()
    return trace(model, tokens)


def activation_std(record: Any) -> Any:
    out = record.out
    return out.detach().float().std() if isinstance(out, torch.Tensor) and out.numel() > 1 else None


# ----- the overlay cache (what both widgets draw from) -------------------------------------------


def test_custom_overlay_is_torchlens_callable_node_data(log: Any) -> None:
    collection = model_explorer_payload(log).collection
    cache = OverlayCache(log, lambda: collection)
    cache.add("std", activation_std)
    overlay = cache.get("std")
    assert overlay is not None and cache.custom_names == ("std",)
    as_float = lambda record: None if (value := activation_std(record)) is None else float(value)  # noqa: E731
    # torchlens' own node data over the execution graph (the rolled graph's multi-pass layers refuse
    # a per-op function: see the next test).
    execution = {**collection, "graphs": [g for g in collection["graphs"] if g["id"] == EXECUTION_GRAPH]}
    expected, coverage = build_node_data(log, execution, as_float)
    assert overlay.node_data[EXECUTION_GRAPH]["results"] == expected[EXECUTION_GRAPH]["results"]
    assert set(overlay.node_data) == set(expected) == {EXECUTION_GRAPH}
    assert expected[EXECUTION_GRAPH]["name"] == "callable:<lambda>"  # torchlens names it by the function
    assert overlay.provider == "std"  # the legend names it as the user did
    assert overlay.node_data[EXECUTION_GRAPH]["name"] == "std"  # and so does Model Explorer's panel
    assert overlay.summary.startswith(f"std on {coverage['resolved']} of ")
    values = overlay.values_by_label()
    some = next(label for label in values if label.startswith("linear") or label.startswith("addmm"))
    assert values[some] == pytest.approx(float(log[some].out.std()))


def test_custom_overlay_colours_every_pass_of_a_repeated_op() -> None:
    """Rolled nodes are multi-pass layers a per-op function cannot read; every pass is coloured."""
    torch.manual_seed(0)
    log = tl.trace(TwoPass(), torch.randn(2, 4))
    collection = model_explorer_payload(log).collection
    assert len(collection["graphs"]) == 2  # the execution graph and the rolled one
    cache = OverlayCache(log, lambda: collection)
    cache.add("std", activation_std)
    overlay = cache.get("std")
    assert overlay is not None
    assert set(overlay.node_data) == {EXECUTION_GRAPH}
    assert {"linear_1_1:1", "linear_1_1:2"} <= set(overlay.values_by_label())


@pytest.mark.parametrize(
    "name", [*OVERLAYS, "memory", "delta", "intervention", "field:func_duration", "", "  "]
)
def test_custom_overlay_cannot_take_a_built_in_name(tiny_log: Any, name: str) -> None:
    cache = OverlayCache(tiny_log, lambda: model_explorer_payload(tiny_log).collection)
    with pytest.raises(OverlayNameError) as refused:
        cache.add(name, activation_std)
    assert isinstance(refused.value, ValueError)
    assert cache.custom_names == ()


def test_a_raising_custom_overlay_names_the_exception_and_other_overlays_still_work(tiny_log: Any) -> None:
    collection = model_explorer_payload(tiny_log).collection
    cache = OverlayCache(tiny_log, lambda: collection)

    def explode(record: Any) -> float:
        raise ZeroDivisionError(f"no scale for {record.label}")

    cache.add("scaled", explode)
    with pytest.raises(OverlayUnavailableError, match=r"ZeroDivisionError: no scale for input_1:1"):
        cache.get("scaled")
    assert cache.get("time") is not None
    cache.add("scaled", activation_std)  # fixed: the new function replaces the old one
    assert cache.get("scaled") is not None


def test_the_cache_refuses_custom_overlays_under_the_public_profile(tiny_log: Any) -> None:
    collection = model_explorer_payload(tiny_log, privacy_profile="public").collection
    cache = OverlayCache(tiny_log, lambda: collection, privacy_profile="public")
    cache.add("std", activation_std)
    with pytest.raises(OverlayUnavailableError, match="privacy_profile='local'"):
        cache.get("std")


def test_the_intervention_overlay_is_offered_when_an_intervention_fired() -> None:
    torch.manual_seed(0)
    clean = tl.trace(TinyMLP(), torch.randn(3, 4), capture=CaptureOptions(intervention_ready=True))
    ablated = clean.fork("ablated")
    ablated.do(tl.module("act"), tl.zero_ablate())
    assert overlay_choices(clean) == [*OVERLAYS, "memory"]
    assert overlay_choices(ablated) == [*OVERLAYS, "memory", "intervention"]
    collection = model_explorer_payload(ablated).collection
    overlay = OverlayCache(ablated, lambda: collection).get("intervention")
    expected, _coverage = build_node_data(ablated, collection, "intervention")
    assert overlay is not None and overlay.node_data == expected
    fired = {label for label, value in overlay.values_by_label().items() if value}
    assert fired == {op.label for op in ablated.layer_list if op.interventions} == {"relu_1_2:1"}
    plain = OverlayCache(clean, lambda: model_explorer_payload(clean).collection)
    with pytest.raises(OverlayUnavailableError, match="none fired in this one"):
        plain.get("intervention")


# ----- on the widgets ----------------------------------------------------------------------------


def test_a_custom_overlay_colours_both_viewers(tiny_log: Any, tmp_path: Path) -> None:
    w = tlw.explore(tiny_log)
    assert w.add_overlay("std", activation_std) is w
    assert w._overlay_choices[-1] == "std"
    w.overlay = "std"
    expected = {
        op.label: pytest.approx(float(activation_std(op)))
        for op in tiny_log.layer_list
        if activation_std(op) is not None
    }
    assert w._overlay is not None and w._overlay.values_by_label() == expected
    assert w.overlay_summary.startswith("std on ")
    content, buffers = ask(w, "graph", {})
    assert content["result"]["nodeData"]["name"] == "std" and len(buffers) == 2
    w.viewer = "netron"
    content, _ = ask(w, "graph", {})
    values = content["result"]["overlay"]["values"]
    assert content["result"]["overlay"]["title"] == "std"
    drawn = {label: value for label, value in expected.items() if w._source.index.id_of_label(label)}
    assert drawn and {w._source.index.label_of(name): value for name, value in values.items()} == drawn
    # save_html() keeps it switchable in the file.
    recording = saved(w.save_html(tmp_path / "std.html"))["recording"]
    assert "std" in recording["graphs"] and recording["state"]["_overlay_choices"][-1] == "std"


def test_netron_colours_from_the_trace_without_model_explorers_export(log: Any) -> None:
    # A Netron widget's overlay keys on the trace's labels: Model Explorer's export (a second of
    # torchlens' work on a big graph) is never run for it. Switched to Model Explorer, the same overlay
    # is that viewer's (node data keyed by its node ids), and back.
    w = tlw.explore(log, viewer="netron", overlay="magnitude")
    content, _ = ask(w, "graph", {})
    by_name = content["result"]["overlay"]["values"]
    assert by_name and not w._graph.exported
    assert w.overlay_summary.startswith(f"magnitude on {len(w._overlay.values_by_label())} of ")
    netron_values = w._overlay.values_by_label()
    w.viewer = "model-explorer"
    content, buffers = ask(w, "graph", {})
    assert w._graph.exported and content["result"]["nodeData"] and len(buffers) == 2
    assert w._overlay.values_by_label() == netron_values  # the same torchlens figures, by label
    w.viewer = "netron"
    assert ask(w, "graph", {})[0]["result"]["overlay"]["values"] == by_name


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_a_drawn_graph_has_its_cost_overlays_built_ahead(
    log: Any, viewer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Once a view reports the graph drawn, time, flops and bytes are built on the background worker
    # (never the value or memory overlays), over the graph of the viewer drawing it; a first switch to
    # one then shows the overlay built there.
    from torchlens_widgets import _overlays

    threads: dict[str, str] = {}

    def recorded(log: Any, collection: Any, name: str, *args: Any) -> Any:
        threads[name] = threading.current_thread().name
        return real(log, collection, name, *args)

    real = _overlays.build_overlay
    monkeypatch.setattr(_overlays, "build_overlay", recorded)
    w = tlw.explore(log, viewer=viewer)
    assert not threads  # nothing before the graph is drawn: the first draw has the kernel to itself
    w.set_trait("draws", 1)  # the view's report
    started = w._own_overlays._caches[viewer]._ahead._started
    assert list(started) == list(AHEAD_OVERLAYS) == ["time", "flops", "bytes"]
    built = {name: future.result() for name, future in started.items()}
    assert threads == dict.fromkeys(AHEAD_OVERLAYS, "tlw-ahead_0")
    w.overlay = "flops"
    assert w._overlay is built["flops"] and w.overlay_summary.startswith("flops")
    w.set_trait("draws", 2)  # drawn again: nothing started twice, nothing shown started again
    assert set(w._own_overlays._caches[viewer]._ahead._started) <= {"time", "bytes"}
    w.overlay = "magnitude"  # a value overlay: built when shown, on the kernel's thread
    assert threads["magnitude"] == "MainThread"


def test_a_switch_to_an_overlay_still_queued_ahead_builds_it_at_once(tiny_log: Any) -> None:
    # The reader waits for their own overlay only, not for the ones queued before it on the worker.
    from torchlens_widgets import _ahead

    gate = threading.Event()
    _ahead._WORKER.submit(gate.wait)  # the worker is busy with something else
    try:
        w = tlw.explore(tiny_log)
        w.set_trait("draws", 1)
        queued = w._own_overlays._caches["model-explorer"]._ahead._started["bytes"]
        w.overlay = "bytes"
        assert queued.cancelled() and w.overlay_summary.startswith("bytes")
    finally:
        gate.set()


def test_nearing_the_overlay_menu_starts_the_memory_overlay(log: Any) -> None:
    # The view asks when the pointer rests on the overlay menu or it gets the focus: torchlens' liveness
    # estimate (seconds on a big trace) is computed on the background worker while the reader chooses.
    w = tlw.explore(log)
    content, buffers = ask(w, "overlays_ahead", {})
    assert content["ok"] and buffers == []
    assert content["result"] == {"overlays": ["time", "flops", "bytes", "memory"]}
    started = w._own_overlays._caches["model-explorer"]._ahead._started["memory"]
    built = started.result()
    w.overlay = "memory"  # the pick takes it
    assert w._overlay is built and w.overlay_summary.startswith("memory on ")
    assert ask(w, "overlays_ahead", {})[0]["result"]["overlays"][-1] == "memory"  # asked again: nothing new
    assert "memory" not in w._own_overlays._caches["model-explorer"]._ahead._started
    # A diff's menu has its delta only, made when drawn: it builds nothing ahead.
    diff = tlw.diff(log, log)
    assert ask(diff, "overlays_ahead", {})[0]["result"] == {"overlays": []}


def test_a_custom_overlay_may_not_take_a_built_in_name(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log)
    for name in ("time", "delta", "intervention"):
        with pytest.raises(ValueError, match="is a built-in overlay"):
            w.add_overlay(name, activation_std)
    assert "std" not in w._overlay_choices


def test_a_raising_custom_overlay_is_refused_and_the_previous_one_stays(tiny_log: Any) -> None:
    def explode(record: Any) -> float:
        raise ZeroDivisionError("no scale")

    w = tlw.explore(tiny_log, overlay="flops").add_overlay("bad", explode)
    with pytest.raises(tlw.OverlayUnavailableError, match="ZeroDivisionError: no scale"):
        w.overlay = "bad"
    assert w.overlay == "flops" and w.overlay_summary.startswith("flops")


def test_add_overlay_is_refused_under_the_public_profile(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log, privacy_profile="public")
    with pytest.raises(tlw.OverlayUnavailableError, match="privacy_profile='public'"):
        w.add_overlay("std", activation_std)


def test_the_intervention_overlay_is_offered_after_an_intervention() -> None:
    torch.manual_seed(0)
    clean = tl.trace(TinyMLP(), torch.randn(3, 4), capture=CaptureOptions(intervention_ready=True))
    ablated = clean.fork("ablated")
    ablated.do(tl.module("act"), tl.zero_ablate())
    assert "intervention" not in tlw.explore(clean)._overlay_choices
    w = tlw.explore(ablated, overlay="intervention")
    assert "intervention" in w._overlay_choices
    assert w._overlay is not None and w._overlay.values_by_label()["relu_1_2:1"] > 0


def test_model_explorer_names_each_overlays_node_data_by_a_key_of_its_bytes(tiny_log: Any) -> None:
    """The browser keeps what it made of node data (the text unpacked, the app's colouring of every
    node) by this key: equal keys must mean equal bytes, and another overlay another key."""
    from torchlens_widgets._gzip_json import content_key

    w = tlw.explore(tiny_log, overlay="time")
    sent: dict[str, tuple[str, bytes]] = {}
    for overlay in ("time", "flops", "time"):
        w.overlay = overlay
        content, buffers = ask(w, "colours", {"facts": ""})
        key = content["result"]["nodeData"]["key"]
        assert key == content_key(bytes(buffers[0]))
        assert sent.setdefault(overlay, (key, bytes(buffers[0]))) == (key, bytes(buffers[0]))
    assert sent["time"][0] != sent["flops"][0]
