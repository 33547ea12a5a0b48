"""w.save_html(): the recording the offline page replays, and the page that holds it."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from models import hostile_names

import torchlens_widgets as tlw
from torchlens_widgets import _explorer, _offline

RECORDING = re.compile(r'<script type="application/json" id="tlw-recording">(.*?)</script>', re.S)


def saved(path: Path) -> dict[str, Any]:
    """The bundle and recording a saved page holds (read back the way the page's bootstrap does)."""
    text = path.read_text(encoding="utf-8")
    blocks = RECORDING.findall(text)
    assert len(blocks) == 1  # nothing in the data closed the JSON block early
    return json.loads(blocks[0])


def buffer(recording: dict[str, Any], index: int) -> bytes:
    return base64.b64decode(recording["buffers"][index])


def test_model_explorer_page_holds_assets_graph_overlays_selection_and_inspector(
    tiny_log: Any, tmp_path: Path
) -> None:
    w = tlw.explore(tiny_log, overlay="time").select("linear_1_1")
    data = saved(w.save_html(tmp_path / "model.html"))
    recording = data["recording"]
    assert data["bundle"] == _explorer._BUNDLE.read_text()
    assert recording["state"]["selected_label"] == w.selected_label
    assert recording["state"]["overlay"] == "time"
    # Every overlay this capture can show, with the toolbar summary the kernel gives.
    for name in ("", "time", "flops", "bytes", "nan", "magnitude"):
        w.overlay = name
        assert recording["graphs"][name]["summary"] == w.overlay_summary
    # The ones it cannot show carry torchlens' reason, as the live widget's notice would.
    assert "grad_norm" in recording["refused"] and "Remedy" in recording["refused"]["grad_norm"]
    assert "baseline" in recording["refused"]["delta"]
    # The graph bytes are stored once, shared by every overlay's reply.
    graph_buffers = {reply["reply"]["buffers"][0] for reply in recording["graphs"].values()}
    assert len(graph_buffers) == 1
    collection = json.loads(gzip.decompress(buffer(recording, graph_buffers.pop())))
    assert collection == json.loads(gzip.decompress(w._source.graph(None)[1][0]))
    # Assets as the kernel sends them, and the inspector facts of every labelled node.
    assert recording["assets"]["result"]["names"] == w._source.assets().reply()[0]["names"]
    labels = set(w._source.index.labels_by_id().values())
    assert set(recording["inspect"]) == labels
    assert recording["inspect"]["linear_1_1:1"]["result"]["label"] == "linear_1_1:1"


def test_inspector_false_leaves_the_inspector_facts_out(tiny_log: Any, tmp_path: Path) -> None:
    with_facts = tlw.explore(tiny_log).save_html(tmp_path / "a.html")
    without = tlw.explore(tiny_log).save_html(tmp_path / "b.html", inspector=False)
    assert saved(without)["recording"]["inspect"] == {}
    assert without.stat().st_size < with_facts.stat().st_size


def test_netron_page_records_its_own_assets_and_node_names(tiny_log: Any, tmp_path: Path) -> None:
    n = tlw.explore(tiny_log, viewer="netron", overlay="bytes")
    recording = saved(n.save_html(tmp_path / "netron.html"))["recording"]
    assert recording["state"]["viewer"] == "netron"
    assert recording["assets"]["result"]["key"] == n._asset_key
    assert recording["labels"] == n._source.index.labels_by_id()
    assert recording["graphs"]["bytes"]["summary"] == n.overlay_summary


def test_hostile_names_cannot_break_out_of_the_page(tmp_path: Path) -> None:
    log = tl.trace(hostile_names(), torch.randn(2, 4))
    path = tlw.explore(log).save_html(tmp_path / "hostile.html")
    text = path.read_text(encoding="utf-8")
    block = RECORDING.findall(text)[0]
    assert "<" not in block  # every "<" of the data is escaped, so no "</script>" or "<!--" in it
    inspected = saved(path)["recording"]["inspect"]["linear_1_1:1"]["result"]
    assert any('<script>alert("x")</script>' in str(row["text"]) for row in inspected["facts"])  # intact


def test_page_allows_no_network(tiny_log: Any, tmp_path: Path) -> None:
    text = tlw.explore(tiny_log).save_html(tmp_path / "x.html").read_text()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)
    assert csp is not None
    directives = dict(part.strip().split(" ", 1) for part in csp.group(1).split(";"))
    assert directives["default-src"] == "'none'"
    assert "http" not in csp.group(1)  # connect, script, frame... only blob:/data: and inline
    assert not re.search(r"""(src|href)=["']https?:""", text)


def test_missing_bundle_is_a_typed_error_with_a_remedy(
    tiny_log: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = tlw.explore(tiny_log)
    monkeypatch.setattr(_explorer, "_BUNDLE", tmp_path / "missing.js")
    with pytest.raises(tlw.ViewerAssetsError, match="Remedy"):
        w.save_html(tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()  # nothing half-written


def test_buffer_pool_stores_each_part_once() -> None:
    pool = _offline.BufferPool()
    assert pool.add([b"graph", b"a"]) == [0, 1]
    assert pool.add([b"graph", b"b"]) == [0, 2]
    assert [base64.b64decode(text) for text in pool.encoded] == [b"graph", b"a", b"b"]
