"""The kernel side of the widget channel: replies reach the view that asked, in the encoding it
asked for, and an asset request is answered with the bundle it names."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import pytest
from ipywidgets.widgets import widget as ipywidget

import torchlens_widgets as tlw
from tests.helpers.view_requests import ask
from torchlens_widgets._channel import RequestChannel
from torchlens_widgets.viewers import model_explorer as _me
from torchlens_widgets.viewers import netron as _netron


def test_the_reply_names_the_view_that_asked():
    channel = RequestChannel(lambda content, buffers=None: sent.append(content))
    channel.register("echo", lambda params: ({"n": params["n"]}, []))
    sent: list[dict[str, Any]] = []
    channel.receive({"type": "request", "channel": "view-a", "id": 1, "method": "echo", "params": {"n": 1}})
    channel.receive({"type": "request", "channel": "view-b", "id": 1, "method": "echo", "params": {"n": 2}})
    channel.receive({"type": "request", "channel": "view-b", "id": 2, "method": "nope", "params": {}})
    assert [(m["channel"], m["id"], m.get("result")) for m in sent] == [
        ("view-a", 1, {"n": 1}),
        ("view-b", 1, {"n": 2}),
        ("view-b", 2, None),
    ]
    assert sent[2]["ok"] is False and "unknown request 'nope'" in sent[2]["error"]


def test_a_reply_ahead_waits_for_a_view_and_reaches_every_view_as_text_once_one_asked_for_text():
    sent: list[tuple[dict[str, Any], list[bytes] | None]] = []
    channel = RequestChannel(lambda content, buffers=None: sent.append((content, buffers)))
    channel.register("colours", lambda params: ({"facts": params["facts"]}, [b"\x01"]))
    channel.register("inspect", lambda params: 1 / 0)
    assert channel.send_ahead("colours", {"facts": "a"}) is None and sent == []  # no view has asked
    request = {"type": "request", "channel": "view-a", "id": 1, "method": "colours", "params": {"facts": ""}}
    channel.receive(request)
    sent.clear()
    assert channel.send_ahead("colours", {"facts": "b"}) == {"facts": "b"}
    assert sent == [({"type": "ahead", "method": "colours", "result": {"facts": "b"}}, [b"\x01"])]
    assert channel.send_ahead("inspect", {}) is None and len(sent) == 1  # failed: each view asks
    channel.receive({**request, "channel": "view-b", "buffers": "base64"})  # a view on a text host
    sent.clear()
    channel.send_ahead("colours", {"facts": "c"})
    ((content, buffers),) = sent
    assert (content["base64_buffers"], content["base64_reason"], buffers) == (["AQ=="], "asked", [])
    assert channel.bytes_sent == 4 and channel.answered == {"colours": 2}


def test_base64_buffers_when_the_browser_asks_for_them(tiny_log):
    widget = tlw.explore(tiny_log)
    binary, buffers = ask(widget, "graph")
    text, none = ask(widget, "graph", buffers="base64")
    assert none == [] and "base64_buffers" not in binary
    assert [base64.b64decode(b) for b in text["base64_buffers"]] == buffers
    assert text["result"] == binary["result"] and text["channel"] == "view-a"
    assert gzip.decompress(buffers[0])  # the payload itself, unchanged


def test_an_unknown_buffer_encoding_is_an_error_reply(tiny_log):
    content, buffers = ask(tlw.explore(tiny_log), "graph", buffers="hex")
    assert content["ok"] is False and "unknown buffer encoding 'hex'" in content["error"]
    assert buffers == []


def test_assets_are_the_bundle_asked_for_even_after_a_viewer_switch(tiny_log):
    widget = tlw.explore(tiny_log)
    explorer_key = widget._asset_key
    widget.viewer = "netron"  # the switch that raced the first request
    assert widget._asset_key == _netron.netron_assets().key != explorer_key
    content, buffers = ask(widget, "assets", {"key": explorer_key})
    bundle = _me.model_explorer_assets()
    assert content["ok"] and content["result"]["key"] == explorer_key
    assert [file["name"] for file in content["result"]["files"]] == [name for name, _ in bundle.compressed]
    assert buffers == [data for _, data in bundle.compressed]
    content, _ = ask(widget, "assets", {"key": widget._asset_key})
    assert content["result"]["key"] == _netron.netron_assets().key


def test_assets_in_base64_carry_the_same_files(tiny_log):
    widget = tlw.explore(tiny_log)
    binary, buffers = ask(widget, "assets", {"key": widget._asset_key})
    text, _ = ask(widget, "assets", {"key": widget._asset_key}, buffers="base64")
    assert [base64.b64decode(b) for b in text["base64_buffers"]] == buffers
    assert text["result"] == binary["result"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"key": "model-explorer@0:0000"}, "This kernel has no viewer assets 'model-explorer@0:0000'"),
        ({"viewer": "model-explorer"}, "without naming a bundle key"),
    ],
)
def test_an_asset_key_the_widget_never_published_is_refused(tiny_log, params, message):
    content, buffers = ask(tlw.explore(tiny_log), "assets", params)
    assert content["ok"] is False and buffers == []
    assert content["error"].startswith("ViewerAssetsError: ") and message in content["error"]
    assert "Remedy:" in content["error"]


def test_the_diff_answers_its_assets_by_key(tiny_log):
    diff = tlw.diff(tiny_log, tiny_log)
    content, _ = ask(diff, "assets", {"key": diff._asset_key})
    assert content["ok"] and content["result"]["key"] == _me.model_explorer_assets().key
    content, _ = ask(diff, "assets", {"key": _netron.netron_assets().key})
    assert content["ok"] is False


def test_the_opening_state_names_the_assets_and_the_graph(tiny_log, monkeypatch):
    # A view can render from the comm's opening state alone (VS Code renders outputs on a path of
    # its own): it must already say which assets and which graph revision to ask for.
    opened: list[dict[str, Any]] = []
    create = ipywidget.comm.create_comm
    monkeypatch.setattr(ipywidget.comm, "create_comm", lambda **args: opened.append(args) or create(**args))
    widget = tlw.explore(tiny_log)
    diff = tlw.diff(tiny_log, tiny_log)
    states = [args["data"]["state"] for args in opened if "_asset_key" in args["data"]["state"]]
    assert [state["_asset_key"] for state in states] == [widget._asset_key, diff._asset_key]
    assert all(state["_graph_rev"] >= 1 for state in states)
