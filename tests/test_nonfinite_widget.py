"""w.explain_nonfinite() and the "Why non-finite?" button: torchlens' producers marked apart from the ops
that carry their values, in both viewers, the producer selected and inspected with its inputs' ranges."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.notebook.frontier import nonfinite_frontier
from torchlens.options import CaptureOptions

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP
from tests.helpers.saved_pages import saved
from tests.helpers.view_requests import ask
from torchlens_widgets._protocol import HIGHLIGHT_ROLE_FILLS


class BornInTheMiddle(nn.Module):
    """A log of negatives between two Linears: the NaN is born at `log` and carried by what follows."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.first = nn.Linear(4, 4)
        self.act = nn.ReLU()
        self.last = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.log(self.first(x) - 100.0)  # every element negative: NaN
        return self.last(self.act(h)) * 2


@pytest.fixture(scope="module")
def log() -> Any:
    return tl.trace(BornInTheMiddle(), torch.randn(3, 4))


def producer_label(log: Any) -> str:
    (site,) = [site for site in nonfinite_frontier(log).sites if site.role == "first_dirty"]
    return site.label


def unstyled_reply(widget: Any) -> bool:
    """Whether the Model Explorer graph reply is the bare collection (marks are drawn by the browser)."""
    content, buffers = ask(widget, "graph", {})
    assert content["ok"], content
    collection = json.loads(gzip.decompress(buffers[0]))
    return not any("style" in node for graph in collection["graphs"] for node in graph["nodes"])


def test_explain_nonfinite_names_torchlens_producer_and_counts_the_carriers(log: Any) -> None:
    w = tlw.explore(log)
    answer = w.explain_nonfinite()
    frontier = nonfinite_frontier(log)
    assert answer.producer_labels == [producer_label(log)]
    assert answer.producers == [log[producer_label(log)]]
    assert answer.producers[0].func_name == "log"
    assert answer.propagated == frontier.flagged_total - 1
    assert answer.coverage == frontier.coverage
    # Selected and centred; the status names the producer, the carriers and torchlens' coverage.
    assert w.selected_label == producer_label(log)
    assert producer_label(log) in w.debug_status and frontier.coverage in w.debug_status
    assert set(w.highlighted) == {producer_label(log), *answer.propagated_labels}


def test_model_explorer_gets_the_producer_and_the_carriers_in_their_own_roles(log: Any) -> None:
    w = tlw.explore(log)
    rev = w._graph_rev
    answer = w.explain_nonfinite()
    # Marked on the graph drawn (the frame's node styler), never by sending the graph again.
    assert w._graph_rev == rev and unstyled_reply(w)
    producer_id = w._source.highlight_ids([producer_label(log)])[0]
    assert w._highlight_roles[producer_id] == "producer"
    carriers = {node for label in answer.propagated_labels for node in w._source.highlight_ids([label])}
    assert carriers and all(w._highlight_roles[node] == "propagated" for node in carriers)
    assert set(w._highlight_nodes) == {producer_id, *carriers}
    assert HIGHLIGHT_ROLE_FILLS["producer"] != HIGHLIGHT_ROLE_FILLS["propagated"]
    # A plain highlight afterwards drops the roles: its node is marked plainly, nothing else in a role.
    w.highlight(producer_label(log))
    assert w._highlight_roles == {} and w._highlight_nodes == [producer_id]


@pytest.mark.parametrize("granularity", ["op", "module"])
def test_netron_gets_the_roles_by_its_node_names_with_the_producer_winning_a_shared_box(
    log: Any, granularity: str
) -> None:
    w = tlw.explore(log, viewer="netron", granularity=granularity)
    w.explain_nonfinite()
    roles = w._highlight_roles
    assert set(roles) <= set(w._highlight_nodes)
    assert "producer" in roles.values()
    (producer_box,) = w._source.highlight_ids([producer_label(log)])
    assert roles[producer_box] == "producer"
    if granularity == "op":
        assert "propagated" in roles.values()
    # Switching viewer keeps the answer's roles, now by Model Explorer's node ids.
    w.viewer = "model-explorer"
    assert w._highlight_roles[w._source.highlight_ids([producer_label(log)])[0]] == "producer"


def test_the_inspector_shows_the_producers_inputs_against_their_dtype_and_its_source(log: Any) -> None:
    w = tlw.explore(log)
    content, _ = ask(w.select(producer_label(log)), "inspect", {})
    assert "nonfinite" not in content["result"]  # only once the question was asked
    w.explain_nonfinite()
    content, _ = ask(w, "inspect", {})
    facts = content["result"]["nonfinite"]
    assert facts["role"] == "producer"
    assert Path(__file__).name in facts["source"]
    row, *params = facts["inputs"]  # log's one input (first(x) - 100); log has no parameter
    assert params == []
    assert row["dtype"] == "torch.float32" and row["dtype_max"] == torch.finfo(torch.float32).max
    assert row["maximum"] < 0 and row["nan_count"] == 0  # finite and negative: log makes the NaN
    json.dumps(content, allow_nan=False)
    carrier = w.explain_nonfinite().propagated_labels[0]
    content, _ = ask(w.select(carrier), "inspect", {})
    assert content["result"]["nonfinite"]["role"] == "propagated"


def test_the_button_is_offered_once_the_capture_has_a_nan_and_answers_as_the_call(log: Any) -> None:
    w = tlw.explore(log)
    ask(w, "graph", {})  # torchlens' find_nan runs after the first graph reply
    assert "explain_nonfinite" in w._debug_questions
    content, _ = ask(w, "debug", {"question": "explain_nonfinite"})
    assert content["ok"], content
    assert content["result"]["labels"] == [producer_label(log)]
    assert content["result"]["status"] == w.debug_status
    clean = tlw.explore(tl.trace(TinyMLP(), torch.randn(2, 4)))
    ask(clean, "graph", {})
    assert "explain_nonfinite" not in clean._debug_questions


def test_a_clean_capture_says_nothing_was_found_and_how_much_was_checked() -> None:
    log = tl.trace(TinyMLP(), torch.randn(2, 4))
    w = tlw.explore(log)
    answer = w.explain_nonfinite()
    assert not answer.found and answer.producers == [] and answer.propagated == 0
    assert nonfinite_frontier(log).coverage in w.debug_status
    assert w.highlighted == [] and w._highlight_roles == {}


def test_public_profile_refuses_with_the_reason() -> None:
    w = tlw.explore(tl.trace(BornInTheMiddle(), torch.randn(3, 4)), privacy_profile="public")
    with pytest.raises(tlw.PrivacyProfileError, match=r"privacy_profile='public' withholds.*Remedy"):
        w.explain_nonfinite()
    ask(w, "graph", {})
    assert "explain_nonfinite" not in w._debug_questions


def test_a_partial_capture_stopped_at_its_nan_is_explained() -> None:
    with pytest.raises(Exception) as caught:
        tl.trace(BornInTheMiddle(), torch.randn(3, 4), capture=CaptureOptions(raise_on_nan=True))
    w = tlw.explore(tl.partial.from_failed_capture(caught.value))
    answer = w.explain_nonfinite()
    assert [record.func_name for record in answer.producers] == ["log"]
    assert w.selected_label == answer.producer_labels[0]


def test_save_html_keeps_the_roles_and_the_producers_panel(log: Any, tmp_path: Path) -> None:
    w = tlw.explore(log)
    w.explain_nonfinite()
    recording = saved(w.save_html(tmp_path / "nan.html"))["recording"]
    assert recording["state"]["_highlight_roles"] == w._highlight_roles
    assert recording["inspect"][producer_label(log)]["result"]["nonfinite"]["role"] == "producer"
