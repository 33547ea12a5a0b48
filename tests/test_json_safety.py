"""Every reply and every synced trait is valid JSON whatever the values: a run that went NaN or Inf is
exactly the run a user diffs. Each widget's channel is asked every request a view sends (assets, graph
under every overlay, inspect of every node, every debug question), on real GPT-2 traces (2 blocks,
random weights) with one NaN or one Inf weight, and every reply and trait is serialized with
``allow_nan=False`` (the browser's JSON.parse has no NaN; Jupyter's serializer turns one into "nan")."""

from __future__ import annotations

import copy
import gzip
import json
import logging
import math
from collections.abc import Iterator
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn

import torchlens_widgets as tlw
from tests.helpers.models import small_gpt2
from tests.helpers.traces import trace
from tests.helpers.view_requests import ask
from torchlens_widgets.diffing.split_pane import diff_payload


def with_weight(model: nn.Module, value: float) -> nn.Module:
    """A copy whose first block's MLP input projection has one weight set to ``value``."""
    broken = copy.deepcopy(model)
    with torch.no_grad():
        broken.transformer.h[0].mlp.c_fc.weight[0, 0] = value
    return broken


@pytest.fixture(scope="module")
def gpt2() -> tuple[nn.Module, torch.Tensor]:
    return small_gpt2()


@pytest.fixture(scope="module")
def ok(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    return trace(*gpt2)


@pytest.fixture(scope="module")
def nan(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    model, tokens = gpt2
    return trace(with_weight(model, float("nan")), tokens)


@pytest.fixture(scope="module")
def inf(gpt2: tuple[nn.Module, torch.Tensor]) -> Any:
    model, tokens = gpt2
    return trace(with_weight(model, float("inf")), tokens)


def strict(text: str | bytes) -> Any:
    """json.loads that refuses NaN and Infinity (Python's accepts them; the browser's does not)."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def check_reply(content: dict[str, Any], buffers: list[bytes], method: str) -> None:
    json.dumps(content, allow_nan=False)
    if method == "graph" and content["ok"]:
        for buffer in buffers:  # gzip JSON: the collections, node data, Netron model and companion
            strict(gzip.decompress(buffer))


def check_traits(widget: Any) -> None:
    json.dumps(widget.get_state(), allow_nan=False)


def node_ids(widget: Any) -> list[str]:
    if isinstance(widget, tlw.Diff):
        return list({**widget.payload.a.index.labels_by_id(), **widget.payload.b.index.labels_by_id()})
    return list(widget._source.index.labels_by_id())


def every_request(widget: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """The requests a view sends: assets of every published bundle, the graph (binary and base64),
    every debug question, and per node the inspector (each panel of a diff) and its lineage."""
    for bundle in widget._bundles():
        yield "assets", {"key": bundle.key}
    yield "graph", {}
    for question in ("first_divergence", "first_nonfinite"):
        yield "debug", {"question": question}
    sides = (0, 1, 2) if isinstance(widget, tlw.Diff) else (None,)
    for node_id in node_ids(widget):
        widget.selected_node = node_id
        for side in sides:
            yield "inspect", {} if side is None else {"side": side}
        for direction in ("upstream", "downstream"):
            yield "debug", {"question": "lineage", "direction": direction}
        check_traits(widget)


def sweep(widget: Any) -> dict[str, int]:
    """Ask every request; check every reply and the traits after each. Returns ok replies per method."""
    answered: dict[str, int] = {}
    check_traits(widget)
    for method, params in every_request(widget):
        content, buffers = ask(widget, method, params)
        check_reply(content, buffers, method)
        if method == "graph":  # a view on a host without binary frames asks the same in base64
            base64_content, _ = ask(widget, method, params, buffers="base64")
            json.dumps(base64_content, allow_nan=False)
        if content["ok"]:
            answered[method] = answered.get(method, 0) + 1
        else:  # a refusal is a typed error's text, never a serialization failure
            assert "JSON" not in content["error"], content["error"]
            assert method == "debug", content["error"]
    check_traits(widget)
    return answered


def overlays_of(widget: Any) -> list[str]:
    return ["", *widget._overlay_choices]


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
@pytest.mark.parametrize("which", ["nan", "inf"])
def test_an_explorer_of_a_nonfinite_run_answers_every_request_in_json(
    request: pytest.FixtureRequest, viewer: str, which: str
) -> None:
    log = request.getfixturevalue(which)
    widget = tlw.explore(log, viewer=viewer)
    answered = sweep(widget)
    assert answered["graph"] == 1 and answered["inspect"] == len(node_ids(widget))
    assert "first_nonfinite" in widget._debug_questions
    for overlay in overlays_of(widget):
        try:
            widget.overlay = overlay
        except tlw.OverlayUnavailableError:
            continue  # refused by torchlens (grad_norm without a backward pass): the old one stays
        content, buffers = ask(widget, "graph")
        assert content["ok"], (overlay, content)
        check_reply(content, buffers, "graph")
        check_traits(widget)


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
@pytest.mark.parametrize("subject", ["nan", "ok"])
def test_an_explorer_with_a_baseline_across_a_nan_answers_every_request_in_json(
    ok: Any, nan: Any, viewer: str, subject: str
) -> None:
    log, reference = (nan, ok) if subject == "nan" else (ok, nan)
    widget = tlw.explore(log, viewer=viewer, baseline=reference)
    answered = sweep(widget)
    assert answered["graph"] == 1 and answered["inspect"] == len(node_ids(widget))
    assert "baseline" in widget._answer_inspect({})[0]  # the replies swept held the node against it
    widget.overlay = "delta"
    content, buffers = ask(widget, "graph")
    assert content["ok"], content
    check_reply(content, buffers, "graph")
    check_traits(widget)
    widget.first_divergence()
    assert widget.selected_label and widget.debug_status.startswith("First divergence at ")
    check_traits(widget)


@pytest.mark.parametrize("which", ["nan", "inf"])
def test_a_diff_of_a_run_that_went_nonfinite_draws_and_answers_in_json(
    request: pytest.FixtureRequest, ok: Any, which: str
) -> None:
    broken = request.getfixturevalue(which)
    d = tlw.diff(ok, broken)
    answered = sweep(d)
    assert answered["graph"] == 1 and answered["inspect"] == 3 * len(node_ids(d))
    pair = d.first_divergence()
    assert pair is not None and d.selected_labels[0]
    assert d.debug_status.startswith("First divergence at ") and "h.0.mlp.c_fc" in d.debug_status
    check_traits(d)


def test_nonfinite_deltas_are_counted_as_such_and_never_drawn_as_numbers(ok: Any, nan: Any) -> None:
    payload = diff_payload(ok, nan)
    nonfinite = {node_id for node_id, value in payload.deltas.items() if not math.isfinite(value)}
    assert nonfinite  # the NaN spreads downstream of the broken weight
    assert {payload.status[node_id] for node_id in nonfinite} == {"nonfinite"}
    assert payload.counts["nonfinite"] == len(nonfinite)
    # The heatmap colours finite deltas only: a NaN node stays uncoloured, never a number.
    drawn = set(payload.node_data_b["results"])
    assert drawn and not drawn & nonfinite
    summary = payload.summary()
    json.dumps(summary, allow_nan=False)
    assert "non-finite" in summary["line"]
    # The largest deltas list the first non-finite nodes first, in graph order, shown as such.
    first = summary["top"][0]
    assert first["value"] is None and first["text"] in ("NaN", "inf")
    assert first["node_id"] == next(node_id for node_id in payload.status if node_id in nonfinite)
    finite = [entry for entry in summary["top"] if entry["value"] is not None]
    assert all(entry["text"] == f"{entry['value']:.3g}" for entry in finite)


def test_the_difference_panel_of_a_nan_node_says_nan_and_holds_no_nan_number(ok: Any, nan: Any) -> None:
    d = tlw.diff(ok, nan)
    d.select(d.summary["top"][0]["node_id"])
    header, _ = d._answer_inspect({"side": 2})
    json.dumps(header, allow_nan=False)
    rows = {row["key"]: row for row in header["facts"]}
    assert rows["max_abs"]["value"] is None and rows["max_abs"]["text"] == "NaN"
    assert rows["torchlens_delta"]["value"] is None and rows["torchlens_delta"]["text"] == "NaN"


def test_a_failing_after_reply_hook_is_logged_once_and_shown(
    ok: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = tlw.explore(ok)

    def fails() -> None:
        raise RuntimeError("torchlens could not read a saved output")

    monkeypatch.setattr(widget._channel, "_after_reply", {"graph": fails})
    with caplog.at_level(logging.ERROR, logger="torchlens_widgets._channel"):
        for request_id in (1, 2):
            content, _ = ask(widget, "graph", request_id=request_id)
            assert content["ok"]  # the reply had left already
    failures = [record for record in caplog.records if "after" in record.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert "RuntimeError: torchlens could not read a saved output" in widget.notice


def test_a_partial_capture_stopped_at_a_nan_answers_in_json(gpt2: tuple[nn.Module, torch.Tensor]) -> None:
    from torchlens.options import CaptureOptions

    from tests.helpers.traces import failed_capture

    model, tokens = gpt2
    with pytest.warns(Warning):
        error = failed_capture(
            with_weight(model, float("nan")), tokens, capture=CaptureOptions(raise_on_nan=True)
        )
    widget = tlw.explore(tl.partial.from_failed_capture(error))
    answered = sweep(widget)
    assert answered["inspect"] == len(node_ids(widget))
