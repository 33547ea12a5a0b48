"""State a view sends over the comm: refused values are reverted and explained, read-only traits stay
the kernel's, and a raising on_select callback is shown without stopping the others.

The messages go through the widget's own comm handler (``_handle_msg``), exactly as ipywidgets
delivers a view's ``update``; what the kernel sends back is read off the comm.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import torchlens_widgets as tlw
from tests.helpers.view_requests import Wire


@pytest.fixture()
def explorer(tiny_log: Any) -> Any:
    return tlw.explore(tiny_log).select("l1")


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("selected_node", "no-such-node", "No node with viewer id"),
        ("viewer", "tensorboard", "Unknown viewer"),
        ("granularity", "layers", "Unknown Netron granularity"),
        ("height", 50, "less than 200"),
    ],
)
def test_a_refused_value_from_a_view_is_reverted_in_every_view_and_explained(
    explorer: Any, name: str, value: Any, reason: str
) -> None:
    wire = Wire(explorer)
    before = getattr(explorer, name)
    wire.update(**{name: value})
    assert getattr(explorer, name) == before  # the kernel keeps its value
    assert explorer.selected_label == "linear_1_1:1"
    assert wire.updates(name) == [before]  # ...and puts it back in every view
    assert (
        name in explorer.notice
        and reason in explorer.notice
        and repr(value)[:5].strip("'") in explorer.notice
    )
    assert wire.updates("notice") == [explorer.notice]  # shown in the widget


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("selected_label", "relu_1_2:1"),
        ("_overlay_choices", ["field:out"]),
        ("overlay_summary", "all fine"),
        ("notice", ""),
        ("_graph_rev", 99),
        ("_asset_key", "netron@0:x"),
        ("baseline_summary", {"line": "forged"}),
    ],
)
def test_read_only_traits_cannot_be_set_from_a_view(explorer: Any, name: str, value: Any) -> None:
    wire = Wire(explorer)
    explorer.set_trait("notice", "")
    before = copy.deepcopy(getattr(explorer, name))
    wire.update(**{name: value})
    if name != "notice":
        assert getattr(explorer, name) == before
        assert wire.updates(name) == [before]
    assert "set by the kernel only" in explorer.notice


def test_what_a_view_may_set_is_applied(explorer: Any, tiny_log: Any) -> None:
    wire = Wire(explorer)
    node = explorer._source.resolve("relu_1_2")
    wire.update(selected_node=node, status="ready", error="")
    assert explorer.selected_label == "relu_1_2:1" and explorer.selected is tiny_log["relu_1_2:1"]
    assert explorer.status == "ready" and explorer.notice == ""
    assert any(msg["method"] == "echo_update" for msg in wire.sent)  # ipywidgets' echo, as before
    wire.update(viewer="netron", height=300)
    assert (explorer.viewer, explorer.height) == ("netron", 300)
    assert explorer.selected_label == "relu_1_2:1"  # the selection follows the view switch


def test_a_late_echo_of_the_current_selection_keeps_the_refusal_shown(explorer: Any) -> None:
    # The viewer reports the node it was told to show; under load that report can arrive after the page
    # set a refused value. It asks for nothing new, so the explanation of the refusal stays.
    wire = Wire(explorer)
    current = explorer.selected_node
    wire.update(selected_node="no-such-node")
    refusal = explorer.notice
    assert "No node with viewer id" in refusal
    wire.update(selected_node=current)
    assert explorer.notice == refusal and explorer.selected_node == current
    wire.update(selected_node=explorer._source.resolve("relu_1_2"))  # a new click: the refusal is history
    assert explorer.notice == ""


PICTURE = "data:image/png;base64," + "iVBORw0KGgo" * 10


def test_a_views_picture_of_its_graph_is_kept_and_clears_no_notice(explorer: Any) -> None:
    wire = Wire(explorer)
    wire.update(selected_node="no-such-node")
    refusal = explorer.notice
    wire.update(_picture=PICTURE)  # a report of the browser's, not a request of the user's
    assert explorer._picture == PICTURE and explorer.notice == refusal


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("data:image/jpeg;base64,AAAA", "WebP or PNG data URL"),
        ("https://example.com/graph.png", "WebP or PNG data URL"),
        ("data:image/png;base64," + "A" * 40_000, "at most 40,000 characters"),
    ],
)
def test_a_picture_that_is_not_a_small_webp_or_png_is_refused(explorer: Any, value: str, reason: str) -> None:
    wire = Wire(explorer)
    wire.update(_picture=PICTURE)
    wire.update(_picture=value)
    assert explorer._picture == PICTURE and wire.updates("_picture") == [PICTURE]
    assert "_picture" in explorer.notice and reason in explorer.notice


def test_a_refused_overlay_from_the_toolbar_keeps_the_previous_one(explorer: Any) -> None:
    wire = Wire(explorer)
    explorer.overlay = "time"
    wire.update(overlay="grad_norm")  # no backward pass: torchlens refuses
    assert explorer.overlay == "time" and wire.updates("overlay")[-1] == "time"
    assert "grad_norm" in explorer.notice


def test_a_raising_callback_is_shown_and_the_others_still_run(explorer: Any, tiny_log: Any) -> None:
    wire = Wire(explorer)
    seen: list[Any] = []

    def broken(record: Any) -> None:
        raise RuntimeError("my callback is broken")

    explorer.on_select(seen.append)
    explorer.on_select(broken)
    explorer.on_select(lambda record: seen.append(("later", record)))
    wire.update(selected_node=explorer._source.resolve("relu_1_2"))  # a click
    record = tiny_log["relu_1_2:1"]
    assert seen == [record, ("later", record)]
    assert "broken" in explorer.notice and "RuntimeError: my callback is broken" in explorer.notice
    assert wire.updates("notice")[-1] == explorer.notice
    # From Python too; a selection whose callbacks all succeed clears the old failure.
    explorer._callbacks.remove(broken)
    explorer.select("l2")
    assert explorer.notice == "" and seen[-1] == ("later", tiny_log["linear_2_3:1"])


def test_diff_refuses_bad_and_read_only_values_from_a_view(tiny_mlp_pair: tuple[Any, Any]) -> None:
    d = tlw.diff(*tiny_mlp_pair).select("linear_2_3")
    wire = Wire(d)
    wire.update(selected_node="no-such-node")
    assert d.selected_labels == ("linear_2_3:1", "linear_2_3:1")
    assert wire.updates("selected_node") == [d.selected_node]
    assert "No node with viewer id" in d.notice
    wire.update(selected_labels=["relu_1_2:1", ""], summary={})
    assert d.selected_labels == ("linear_2_3:1", "linear_2_3:1") and d.summary["counts"]
    assert "set by the kernel only" in d.notice


def test_diff_raising_callback_is_shown_and_the_others_still_run(tiny_mlp_pair: tuple[Any, Any]) -> None:
    d = tlw.diff(*tiny_mlp_pair)
    wire = Wire(d)
    seen: list[Any] = []
    d.on_select(lambda pair: 1 / 0)
    d.on_select(seen.append)
    wire.update(selected_node=d.payload.resolve("linear_1_1"))
    assert seen == [d.selected]
    assert "ZeroDivisionError" in d.notice and "<lambda>" in d.notice


def test_a_view_switch_that_fails_after_validation_is_undone(explorer: Any, monkeypatch: Any) -> None:
    """The viewer name is valid but its package is broken: the switch fails in the kernel, and the
    widget stays on the viewer it shows, in the kernel and in every view."""
    from torchlens_widgets import viewers

    def broken(viewer: str, *args: Any) -> Any:
        raise tlw.ViewerAssetsError(
            "netron 0.0 is installed but lacks its web asset 'view.js'. Remedy: reinstall"
        )

    monkeypatch.setattr("torchlens_widgets.widgets.sources.make_source", broken)
    assert viewers.VIEWERS  # the names are valid; the failure comes from building the source
    wire = Wire(explorer)
    wire.update(viewer="netron")
    assert explorer.viewer == "model-explorer" and explorer._source.index.has_id(explorer.selected_node)
    assert wire.updates("viewer")[-1] == "model-explorer"
    assert "ViewerAssetsError" in explorer.notice and "Remedy" in explorer.notice
