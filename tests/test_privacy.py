"""privacy_profile="public" means the same in both viewers and in every overlay: no source locations,
no value-derived facts (real traces: GPT-2 with two blocks, random weights)."""

from __future__ import annotations

import gzip
import json
import pathlib
import re
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.options import CaptureOptions

import torchlens_widgets as tlw
from tests.helpers.models import gpt2, small_gpt2, with_inf
from tests.helpers.traces import failed_capture
from tests.helpers.view_requests import Wire, ask
from torchlens_widgets._overlays import PUBLIC_FIELDS, VALUE_OVERLAYS

# "linear called at modeling_gpt2.py:123", "deprecation.py", "/home/me/model.py:7": any file name.
SOURCE_LOCATION = re.compile(r"called at|\.py\b")


@pytest.fixture(scope="module")
def log() -> Any:
    model, tokens = gpt2(n_layer=2)
    with torch.no_grad():
        return tl.trace(model, tokens)


def netron_texts(widget: Any) -> tuple[str, str]:
    """The Netron model and its metrics companion exactly as the widget sends them to the browser."""
    _, (model, attachment) = widget._source.graph(None, 0)
    return gzip.decompress(model).decode(), gzip.decompress(attachment).decode()


@pytest.mark.parametrize("granularity", ["module", "op", "rolled"])
def test_public_netron_shows_no_source_locations(log: Any, granularity: str) -> None:
    local = tlw.explore(log, viewer="netron", granularity=granularity)
    assert SOURCE_LOCATION.search(netron_texts(local)[0])  # what torchlens' exporter writes
    public = tlw.explore(log, viewer="netron", granularity=granularity, privacy_profile="public")
    model, attachment = netron_texts(public)
    assert not SOURCE_LOCATION.search(model) and not SOURCE_LOCATION.search(attachment)
    payload = json.loads(model)
    nodes = [*payload["graph"]["node"], *(n for f in payload.get("functions", ()) for n in f["node"])]
    docs = {node.get("docString", "") for node in nodes}
    assert "addmm" in docs or "TensorBase.view" in docs  # each op still says what it is
    # Only the descriptions differ: the graph, its node names and its facts are torchlens' own.
    assert [n["name"] for n in nodes] == [
        n["name"]
        for n in (
            json.loads(netron_texts(local)[0])["graph"]["node"]
            + [n for f in json.loads(netron_texts(local)[0]).get("functions", ()) for n in f["node"]]
        )
    ]
    assert attachment == netron_texts(local)[1]


def test_public_model_explorer_and_inspector_show_no_source_or_values(log: Any) -> None:
    widget = tlw.explore(log, privacy_profile="public")
    text = json.dumps(widget._source.payload.collection)
    assert not SOURCE_LOCATION.search(text)
    assert '"nonfinite"' not in text  # torchlens' value-derived attribute row
    widget.select("transformer.h.1.mlp.c_fc")
    header, buffers = widget._answer_inspect({})
    assert header["value"]["status"] == "withheld" and buffers == []
    assert "source" not in {row["key"] for row in header["facts"]}


@pytest.mark.parametrize(
    "field", ["field:out", "field:grad", "field:bool_value", "field:has_saved_activation"]
)
def test_public_field_overlay_of_a_value_field_is_refused(log: Any, field: str) -> None:
    widget = tlw.explore(log, privacy_profile="public")
    with pytest.raises(tlw.OverlayUnavailableError, match=r"privacy_profile='public'.*Remedy") as caught:
        widget.overlay = field
    assert isinstance(caught.value, ValueError)
    assert widget.overlay == "" and "privacy_profile='local'" in widget.notice
    with pytest.raises(tlw.OverlayUnavailableError):
        tlw.explore(log, privacy_profile="public", overlay=field)


def test_public_field_overlay_asked_by_the_browser_is_refused(log: Any) -> None:
    widget = tlw.explore(log, viewer="netron", privacy_profile="public", overlay="time")
    wire = Wire(widget)
    wire.update(overlay="field:out")  # the toolbar or any script in the page
    assert widget.overlay == "time" and wire.updates("overlay")[-1] == "time"
    assert "privacy_profile='public'" in widget.notice


def test_public_field_overlay_of_a_measured_cost_is_drawn(log: Any) -> None:
    widget = tlw.explore(log, privacy_profile="public", overlay="field:flops_forward")
    assert widget.overlay_summary.startswith("field:flops_forward on ")


def test_public_offers_and_draws_no_value_overlay(log: Any) -> None:
    widget = tlw.explore(log, privacy_profile="public")
    assert not set(widget._overlay_choices) & {*VALUE_OVERLAYS, "delta"}
    for name in VALUE_OVERLAYS:
        with pytest.raises(tlw.OverlayUnavailableError, match="public"):
            widget.overlay = name


def test_public_fields_are_fields_of_torchlens_op_records(log: Any) -> None:
    from torchlens.constants import LAYER_PASS_LOG_FIELD_ORDER

    assert set(PUBLIC_FIELDS) <= set(LAYER_PASS_LOG_FIELD_ORDER)
    op = log["transformer.h.0.mlp.c_fc"]
    assert all(hasattr(op, name) for name in PUBLIC_FIELDS)


# ----- every payload of both viewers, the diff, the debug answers, a partial capture -------------


class EscapesAScalar(nn.Module):
    """GPT-2's first block, then ``.item()``: torchlens records a capture advisory naming this line."""

    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = self.body(tokens).last_hidden_state
        scale = hidden.abs().sum().item()  # a tensor-to-Python scalar escape
        return hidden / scale


@pytest.fixture(scope="module")
def escaping() -> Any:
    model, tokens = small_gpt2()
    with torch.no_grad(), pytest.warns(Warning, match="scalar escape"):
        return tl.trace(EscapesAScalar(model.transformer), tokens)


# A source location of this file (absolute or not), a home folder, any "file.py:12" line reference.
HERE = pathlib.Path(__file__).resolve()
PATH_LEAKS = re.compile(rf"{re.escape(str(HERE))}|{re.escape(HERE.name)}|/home/|\.py:\d+")
# Value facts as an attribute or field (Model Explorer's {"key": ...}, Netron's {"name": ...}, a JSON key):
# statistics, a non-finite verdict, a delta.
_VALUE_NAMES = r"(min|max|mean|std|nonfinite|nan|delta|diff_[a-z_]+)"
VALUE_FACTS = re.compile(rf'"(key|name)":\s*"{_VALUE_NAMES}"|"{_VALUE_NAMES}":|bundle_delta')


def graph_texts(widget: Any) -> list[str]:
    """Every buffer of the graph reply a view gets (Model Explorer's collection; Netron's model and its
    metrics companion), gunzipped, and the reply's header."""
    content, buffers = ask(widget, "graph")
    assert content["ok"], content
    return [json.dumps(content), *(gzip.decompress(buffer).decode() for buffer in buffers)]


@pytest.mark.parametrize(
    ("viewer", "granularity"),
    [("model-explorer", "module"), ("netron", "module"), ("netron", "op"), ("netron", "rolled")],
)
def test_public_graph_replies_of_both_viewers_hold_no_source_path_or_value_fact(
    escaping: Any, viewer: str, granularity: str
) -> None:
    local = "\n".join(graph_texts(tlw.explore(escaping, viewer=viewer, granularity=granularity)))
    assert str(HERE) in local  # the advisory of the .item() line: what torchlens writes
    assert viewer == "netron" or VALUE_FACTS.search(local)  # Model Explorer's "nonfinite" verdict
    widget = tlw.explore(escaping, viewer=viewer, granularity=granularity, privacy_profile="public")
    for text in graph_texts(widget):
        assert not PATH_LEAKS.search(text), PATH_LEAKS.search(text)
        assert not VALUE_FACTS.search(text), VALUE_FACTS.search(text)
    assert "scalar_escape" in "\n".join(graph_texts(widget))  # the advisory itself stays: an honesty fact


def test_public_inspector_and_traits_hold_no_source_path(escaping: Any) -> None:
    widget = tlw.explore(escaping, privacy_profile="public")
    for label in sorted(set(widget._source.index.labels_by_id().values()))[:40]:
        widget.select(label)
        content, _ = ask(widget, "inspect")
        assert content["ok"] and not PATH_LEAKS.search(json.dumps(content)), label
    assert not PATH_LEAKS.search(json.dumps(widget.get_state()))


def test_a_public_diff_is_refused_naming_why(log: Any) -> None:
    with pytest.raises(tlw.PrivacyProfileError, match=r"privacy_profile='public'.*Remedy") as caught:
        tlw.diff(log, log, privacy_profile="public")
    assert isinstance(caught.value, ValueError) and "values" in str(caught.value)


def test_a_public_baseline_is_refused_with_the_privacy_error(log: Any) -> None:
    with pytest.raises(tlw.PrivacyProfileError, match="Remedy"):
        tlw.explore(log, baseline=log, privacy_profile="public")
    widget = tlw.explore(log, privacy_profile="public")
    with pytest.raises(tlw.PrivacyProfileError):
        widget.baseline = log
    assert widget.baseline is None


def test_public_first_nonfinite_is_neither_offered_nor_answered() -> None:
    model, tokens = small_gpt2()
    with torch.no_grad():
        broken = tl.trace(with_inf(model), tokens)
    assert "first_nonfinite" in drawn(tlw.explore(broken))._debug_questions  # offered under local
    widget = drawn(tlw.explore(broken, privacy_profile="public"))
    assert "first_nonfinite" not in widget._debug_questions
    content, _ = ask(widget, "debug", {"question": "first_nonfinite"})  # any script in the page
    assert not content["ok"] and content["error"].startswith("PrivacyProfileError: ")
    with pytest.raises(tlw.PrivacyProfileError, match=r"privacy_profile='public'.*Remedy"):
        widget.first_nonfinite()
    assert widget.selected_label == "" and widget.debug_status == ""


def drawn(widget: Any) -> Any:
    """The widget after a view asked for its graph (the first-reply work ran)."""
    content, _ = ask(widget, "graph")
    assert content["ok"], content
    return widget


def test_a_public_partial_capture_draws_without_its_exception_text_or_failing_op() -> None:
    model, tokens = small_gpt2()
    with pytest.warns(Warning):
        error = failed_capture(with_inf(model), tokens, capture=CaptureOptions(raise_on_nan=True))
    partial = tl.partial.from_failed_capture(error)
    message = tl.report.explain(partial, format="json")["exception_message"]
    local = tlw.explore(partial)
    assert message in local.debug_status and local.highlighted  # what local shows
    widget = tlw.explore(partial, privacy_profile="public")
    assert message not in widget.debug_status and str(message)[:20] not in json.dumps(widget.get_state())
    assert widget.debug_status.startswith(f"The forward pass failed with {type(error).__name__}; ")
    assert "privacy_profile='public'" in widget.debug_status and "Remedy" in widget.debug_status
    assert widget.highlighted == [] and widget.selected_label == ""
    widget.select(local.selected_label)  # the failing op
    content, _ = ask(widget, "inspect")
    assert content["ok"] and "exception" not in content["result"]
