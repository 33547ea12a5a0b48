"""The memory strip (``w.timeline = "memory"``), kernel side: the series sent is torchlens' own
(``observe.estimated_liveness``'s series, peak and baseline, the op at each ordinal from its timeline's
forward op events), split into torchlens' categories only where that adds up to its figures; the node
ids are the viewer's on screen; a capture torchlens refuses leaves ``w.timeline`` as it was; save_html
keeps the strip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torchlens import observe

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP, TwoPass, small_gpt2
from tests.helpers.saved_pages import saved
from tests.helpers.traces import trace
from tests.helpers.view_requests import ask
from torchlens_widgets._torchlens import human_readable_size
from torchlens_widgets.memory import memory_timeline


@pytest.fixture(scope="module")
def log() -> Any:
    model, tokens = small_gpt2()
    return trace(model, tokens)


def strip(w: Any) -> dict[str, Any]:
    content, buffers = ask(w, "memory_timeline", {})
    assert content["ok"] is True, content
    assert buffers == []
    result: dict[str, Any] = content["result"]
    return result


def test_the_series_sent_is_torchlens_liveness_with_the_op_torchlens_ran_at_each_ordinal(log: Any) -> None:
    artifact = observe.memory_timeline_v2(log)
    liveness = observe.estimated_liveness(artifact)
    w = tlw.explore(log)
    w.timeline = "memory"
    sent = strip(w)
    assert list(zip(sent["ordinals"], sent["live"], strict=True)) == [tuple(p) for p in liveness["series"]]
    assert (sent["peak_bytes"], sent["peak_ordinal"]) == (liveness["peak_bytes"], liveness["peak_ordinal"])
    assert (
        sent["baseline_bytes"]
        == liveness["persistent_baseline_bytes"]
        == artifact["persistent_baseline_bytes"]
    )
    assert sent["peak_text"] == human_readable_size(liveness["peak_bytes"])  # torchlens' own text
    # The op at each point: torchlens' forward op event at that ordinal, as the viewers label it.
    events = {
        row["ordinal"]: log[row["label"]].label
        for row in artifact["events"]
        if row["phase"] == "forward" and row["kind"] == "op"
    }
    assert sent["labels"] == [events[ordinal] for ordinal in sent["ordinals"]]
    assert sent["labels"][sent["ordinals"].index(sent["peak_ordinal"])] == w.memory_summary["peak_label"]
    # Split into torchlens' live categories, which add up to its figures above the baseline everywhere.
    assert sent["categories"] == ["input", "activation"]
    for index, live in enumerate(sent["live"]):
        assert sum(band[index] for band in sent["bands"]) + sent["baseline_bytes"] == live
    # ...and are the tensors torchlens counts alive at each op (the inspector's list), by category.
    timeline = memory_timeline(log)
    for index in (0, len(sent["labels"]) // 2, len(sent["labels"]) - 1):
        alive = timeline.alive_at(sent["labels"][index])
        for category, band in zip(sent["categories"], sent["bands"], strict=True):
            assert band[index] == sum(t.bytes for t in alive if t.category == category)
    assert json.loads(json.dumps(sent, allow_nan=False)) == sent  # valid JSON as it stands


def test_the_node_ids_are_the_viewer_on_screen_and_select_the_op_as_a_click_does(log: Any) -> None:
    w = tlw.explore(log)
    w.timeline = "memory"
    for viewer in ("model-explorer", "netron"):
        w.viewer = viewer
        sent = strip(w)
        index = w._source.index
        assert sent["node_ids"] == [index.id_of_label(label) or "" for label in sent["labels"]]
        assert all(sent["node_ids"])  # GPT-2: every op of the series is drawn in both viewers
        middle = len(sent["labels"]) // 2
        w.selected_node = sent["node_ids"][middle]  # what the strip's click sets
        assert w.selected_label == sent["labels"][middle]
        assert w.selected is not None and w.selected.label == sent["labels"][middle]


def test_a_split_that_does_not_add_up_to_torchlens_figures_is_not_sent(
    log: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = tlw.explore(log)
    w.timeline = "memory"
    timeline = memory_timeline(log)
    wrong = {
        category: [value + 1 for value in band] for category, band in timeline.live_by_category().items()
    }
    monkeypatch.setattr(type(timeline), "live_by_category", lambda _self: wrong)
    sent = strip(w)
    assert sent["categories"] == ["live"]
    assert sent["bands"] == [[live - sent["baseline_bytes"] for live in sent["live"]]]


def test_a_multi_pass_trace_has_a_point_per_pass() -> None:
    torch.manual_seed(0)
    w = tlw.explore(tl.trace(TwoPass(), torch.randn(2, 4)))
    w.timeline = "memory"
    labels = strip(w)["labels"]
    assert {"linear_1_1:1", "linear_1_1:2"} <= set(labels)


def test_the_timeline_trait_shows_memory_in_the_status_line_and_inspector(log: Any) -> None:
    w = tlw.explore(log).select("linear_1_101:1")
    assert w.timeline is None and w._memory_line == ""
    assert "memory" not in ask(w, "inspect")[0]["result"]
    rev = w._inspect_rev
    w.timeline = "memory"
    assert w._memory_line == w.memory_summary["line"] and w._inspect_rev == rev + 1
    assert ask(w, "inspect")[0]["result"]["memory"]["live_bytes"] == w.memory_summary["peak_bytes"]
    w.overlay = "memory"  # memory already shown: nothing comes or goes
    assert w._inspect_rev == rev + 1
    w.timeline = None
    assert w._memory_line != "" and w._inspect_rev == rev + 1  # the overlay still shows memory
    w.overlay = ""
    assert w._memory_line == "" and w._inspect_rev == rev + 2
    w.timeline = ""  # the same as None
    assert w.timeline is None


def test_explore_opens_with_the_strip_when_asked(log: Any) -> None:
    w = tlw.explore(log, timeline="memory")
    assert w.timeline == "memory" and w._memory_line == w.memory_summary["line"]
    assert strip(w)["labels"]  # the strip's series is there for the first view
    with pytest.raises(tlw.TimelineNameError, match="Remedy"):
        tlw.explore(log, timeline="time")


def test_the_page_may_show_and_hide_the_strip_and_a_wrong_name_is_reverted(log: Any) -> None:
    w = tlw.explore(log)
    w.set_state({"timeline": "memory"})  # the toolbar's "Memory" switch
    assert w.timeline == "memory" and w._memory_line == w.memory_summary["line"]
    w.set_state({"timeline": None})
    assert w.timeline is None and w._memory_line == ""
    w.set_state({"timeline": "time"})
    assert w.timeline is None and "TimelineNameError" in w.notice


def test_an_unknown_timeline_raises_a_typed_error_and_changes_nothing(log: Any) -> None:
    w = tlw.explore(log)
    with pytest.raises(tlw.TimelineNameError, match=r"Remedy: w\.timeline = 'memory'"):
        w.timeline = "time"
    assert w.timeline is None
    assert isinstance(tlw.TimelineNameError("x"), ValueError)


def test_a_timeline_torchlens_refuses_is_said_in_the_notice_and_the_strip_stays_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    torch.manual_seed(0)
    w = tlw.explore(tl.trace(TinyMLP(), torch.randn(3, 4)))
    recording = tl.record(TinyMLP(), torch.randn(3, 4), default_op=True)
    real = observe.memory_timeline_v2
    # torchlens' own refusal, as it answers a capture it cannot build a timeline for.
    monkeypatch.setattr(observe, "memory_timeline_v2", lambda _log: real(recording))
    with pytest.raises(tlw.MemoryTimelineError, match=r"Recording\.to_trace\(\)"):
        w.timeline = "memory"
    assert w.timeline is None and w._memory_line == ""
    assert (
        w.notice.startswith("torchlens cannot build a memory timeline") and "Recording.to_trace()" in w.notice
    )


def test_save_html_keeps_the_strip(log: Any, tmp_path: Path) -> None:
    w = tlw.explore(log)
    assert "timeline" not in saved(w.save_html(tmp_path / "none.html", inspector=False))["recording"]
    w.timeline = "memory"
    recording = saved(w.save_html(tmp_path / "strip.html", inspector=False))["recording"]
    assert recording["state"]["timeline"] == "memory"
    assert recording["state"]["_memory_line"] == w.memory_summary["line"]
    assert recording["timeline"] == {"result": strip(w), "buffers": []}
