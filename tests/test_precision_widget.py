"""tlw.precision(model, x): an Explorer of the low-precision run, coloured by its drift from a float64
reference (torchlens' bisect_precision) and by each op's error gain; first_drift and drift_ranking."""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch

import torchlens_widgets as tlw
from tests.helpers.models import Cancel, TinyMLP
from tests.helpers.view_requests import ask


@pytest.fixture(scope="module")
def cancel() -> tlw.PrecisionExplorer:
    return tlw.precision(Cancel(), torch.linspace(-2, 2, 16))


def test_precision_draws_the_bf16_run_with_its_two_overlays(cancel: tlw.PrecisionExplorer) -> None:
    assert {"drift", "error gain"} <= set(cancel._overlay_choices)
    assert cancel.overlay == "drift" and "drift" in cancel.overlay_summary
    assert {op.dtype for op in cancel.log.layer_list if op.is_compute_op} == {torch.bfloat16}
    cancel.overlay = "error gain"
    assert "error gain" in cancel.overlay_summary
    content, _ = ask(cancel, "graph", {})
    json.dumps(content, allow_nan=False)


def test_first_drift_selects_torchlens_first_diverged_op(cancel: tlw.PrecisionExplorer) -> None:
    record = cancel.first_drift()
    label = cancel.run.result.label
    assert label is not None and record is cancel.log[label]
    assert cancel.selected_label == label and record.func_name == "__sub__"
    assert cancel.debug_status.startswith(f"First drift at {label}")


def test_drift_ranking_puts_the_op_that_creates_the_error_first_and_highlights(
    cancel: tlw.PrecisionExplorer,
) -> None:
    top = cancel.drift_ranking(k=2)
    assert top[0].record.func_name == "__sub__" and top[0].gain is not None and top[0].gain > 10
    by_raw_error = max(cancel.run.drifts.values(), key=lambda drift: drift.abs_error or 0.0)
    assert by_raw_error.label != top[0].label  # exp carries more raw error; sub creates it
    assert cancel.highlighted == [drift.label for drift in top]
    assert set(cancel._highlight_roles.values()) == {"ranked"} and len(cancel._highlight_roles) == 2
    assert cancel.selected_label == top[0].label and top[0].label in cancel.debug_status
    with pytest.raises(ValueError, match="Remedy"):
        cancel.drift_ranking(k=0)


def test_precision_in_netron_colours_by_netron_node_names() -> None:
    w = tlw.precision(TinyMLP(), torch.randn(2, 4), viewer="netron")
    content, _ = ask(w, "graph", {})
    overlay = content["result"]["overlay"]
    assert overlay["title"] == "drift" and overlay["values"]
    json.dumps(content, allow_nan=False)


def test_refusals_name_their_remedy() -> None:
    with pytest.raises(tlw.PrivacyProfileError, match="Remedy"):
        tlw.precision(TinyMLP(), torch.randn(2, 4), privacy_profile="public")
    with pytest.raises(tlw.PrecisionDtypeError, match="Remedy"):
        tlw.precision(TinyMLP(), torch.randn(2, 4), dtype=torch.int8)


def test_the_callers_model_and_input_are_untouched() -> None:
    model, x = TinyMLP(), torch.randn(2, 4)
    before: dict[str, Any] = {name: p.clone() for name, p in model.state_dict().items()}
    tlw.precision(model, x)
    assert x.dtype == torch.float32
    assert all(torch.equal(before[name], p) for name, p in model.state_dict().items())
