"""privacy_profile="public" means the same in both viewers and in every overlay: no source locations,
no value-derived facts (real traces: GPT-2 with two blocks, random weights)."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest
import torch
import torchlens as tl
from models import gpt2
from test_browser_state import Wire

import torchlens_widgets as tlw
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
    _, (model, attachment) = widget._source.graph(None)
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
