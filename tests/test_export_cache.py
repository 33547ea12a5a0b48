"""Re-running an explore(log) cell reuses torchlens' export of an unchanged trace (both viewers), and
exports again a trace changed in place; freed traces drop their exports; the cache stays bounded."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import torch
import torchlens as tl

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP, TwoPass
from tests.helpers.view_requests import ask
from torchlens_widgets import _export_cache
from torchlens_widgets.viewers import netron


@pytest.fixture
def exports(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """How many times each of torchlens' exporters ran (the cache empty at the start)."""
    _export_cache.clear()
    calls = {"model-explorer": 0, "netron": 0}
    model_explorer, netron_artifact = tl.export.to_model_explorer_dict, netron.netron_artifact

    def count_model_explorer(*args: Any, **kwargs: Any) -> Any:
        calls["model-explorer"] += 1
        return model_explorer(*args, **kwargs)

    def count_netron(*args: Any, **kwargs: Any) -> Any:
        calls["netron"] += 1
        return netron_artifact(*args, **kwargs)

    monkeypatch.setattr(tl.export, "to_model_explorer_dict", count_model_explorer)
    monkeypatch.setattr(netron, "netron_artifact", count_netron)
    yield calls
    _export_cache.clear()


def drawn(widget: Any) -> Any:
    content, buffers = ask(widget, "graph", {})
    assert content["ok"], content
    return buffers


def test_re_running_the_cell_reuses_the_export_in_both_viewers(exports: dict[str, int]) -> None:
    log = tl.trace(TinyMLP(), torch.randn(2, 4))
    first = drawn(tlw.explore(log))
    again = drawn(tlw.explore(log))
    assert exports["model-explorer"] == 1 and again == first  # the same bytes, exported once
    drawn(tlw.explore(log, viewer="netron"))
    drawn(tlw.explore(log, viewer="netron"))
    assert exports["netron"] == 1
    # Other options are another export: the public profile, another granularity.
    drawn(tlw.explore(log, privacy_profile="public"))
    drawn(tlw.explore(log, viewer="netron", granularity="op"))
    assert exports == {"model-explorer": 2, "netron": 2}


def test_a_trace_changed_in_place_is_exported_again(exports: dict[str, int]) -> None:
    log = tl.trace(
        TinyMLP(), torch.randn(2, 4, requires_grad=True), capture=tl.options.CaptureOptions(save_grads=True)
    )
    drawn(tlw.explore(log))
    log.trace_label = "renamed"  # the graph's name in both exports
    w = tlw.explore(log)
    drawn(w)
    assert exports["model-explorer"] == 2 and w._graph_info["label"] == "renamed"
    log[log.layer_list[-1].label].out.sum().backward()  # gradients saved since: exported again
    drawn(tlw.explore(log))
    assert exports["model-explorer"] == 3
    drawn(tlw.explore(log))
    assert exports["model-explorer"] == 3


def test_a_freed_trace_drops_its_exports_and_the_cache_is_bounded(exports: dict[str, int]) -> None:
    log = tl.trace(TwoPass(), torch.randn(2, 4))
    w = tlw.explore(log)
    drawn(w)
    assert len(_export_cache._entries) == 1
    w.close()  # a widget holds its trace; closed and forgotten, nothing does
    del w, log
    gc.collect()
    assert len(_export_cache._entries) == 0
    kept = [tl.trace(TinyMLP(), torch.randn(2, 4)) for _ in range(_export_cache.MAX_ENTRIES + 2)]
    for log in kept:
        drawn(tlw.explore(log))
    assert len(_export_cache._entries) == _export_cache.MAX_ENTRIES
    drawn(tlw.explore(kept[0]))  # the least recently used was dropped: exported again
    assert exports["model-explorer"] == 1 + len(kept) + 1


def test_an_export_asked_by_two_threads_at_once_is_made_once() -> None:
    # The background worker builds the memory overlay (its timeline: a cached torchlens answer) while
    # the kernel's thread asks for the memory strip: the second waits for the first's answer.
    _export_cache.clear()
    log = tl.trace(TinyMLP(), torch.randn(2, 4))
    started, release = threading.Event(), threading.Event()
    made: list[str] = []

    def slow() -> str:
        made.append(threading.current_thread().name)
        started.set()
        release.wait(timeout=10)
        return "answer"

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="other") as pool:
        first = pool.submit(_export_cache.cached, log, "slow", slow, lambda _value: 0)
        assert started.wait(timeout=10)
        threading.Timer(0.2, release.set).start()
        assert _export_cache.cached(log, "slow", slow, lambda _value: 0) == "answer"  # waited, not made
        assert first.result() == "answer"
    assert made == ["other_0"] and not _export_cache._making
