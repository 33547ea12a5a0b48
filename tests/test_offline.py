"""w.save_html(): the recording the offline page replays, and the page that holds it."""

from __future__ import annotations

import ast
import base64
import gzip
import json
import re
from html import escape as html_escape
from pathlib import Path
from typing import Any

import nbformat
import pytest
import torch
import torchlens as tl

import torchlens_widgets as tlw
from tests.helpers.models import gpt2_48, hostile_names
from tests.helpers.saved_pages import RECORDING, saved
from torchlens_widgets import _offline
from torchlens_widgets.widgets import bundle as _bundle


def buffer(recording: dict[str, Any], index: int) -> bytes:
    return base64.b64decode(recording["buffers"][index])


def test_model_explorer_page_holds_assets_graph_overlays_selection_and_inspector(
    tiny_log: Any, tmp_path: Path
) -> None:
    w = tlw.explore(tiny_log, overlay="time").select("linear_1_1")
    w._picture = "data:image/png;base64,AAAA"  # as a view keeps it
    data = saved(w.save_html(tmp_path / "model.html"))
    recording = data["recording"]
    assert recording["state"]["_picture"] == ""  # the page draws the live graph: no picture rides along
    assert data["bundle"] == _bundle.BUNDLE.read_text()
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
    assert collection == json.loads(gzip.decompress(w._source.graph(None, 0)[1][0]))
    # Assets as the kernel sends them, and the inspector facts of every labelled node.
    assert recording["assets"]["result"]["files"] == w._source.assets().reply()[0]["files"]
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
    monkeypatch.setattr(_bundle, "BUNDLE", tmp_path / "missing.js")
    with pytest.raises(tlw.ViewerAssetsError, match="Remedy"):
        w.save_html(tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()  # nothing half-written


@pytest.mark.parametrize("label", ["linear_1_1:1", "emb.\U0001f600", 'q"\\\x01\u200b'])
def test_a_bare_node_in_a_saved_file_copies_as_the_python_of_its_name(label: str) -> None:
    (header, buffers) = _offline._marker(label, 1000)
    expression = header["expression"]
    assert expression.startswith("log[") and expression.endswith("]") and buffers == []
    assert ast.literal_eval(expression[len("log[") : -1]) == label  # json.dumps gave "\ud83d\ude00"


def test_buffer_pool_stores_each_part_once() -> None:
    pool = _offline.BufferPool()
    assert pool.add([b"graph", b"a"]) == [0, 1]
    assert pool.add([b"graph", b"b"]) == [0, 2]
    assert [base64.b64decode(text) for text in pool.encoded] == [b"graph", b"a", b"b"]


# ----- size bound, streaming, progress (GPT-2 with 48 blocks: ~2,300 nodes) ----------------------------


@pytest.fixture(scope="module")
def gpt2_48_log() -> Any:
    model, tokens = gpt2_48()
    with torch.no_grad():
        return tl.trace(model, tokens)


def inspector_statuses(recording: dict[str, Any]) -> dict[str, str]:
    """Label -> what the saved panel shows for it: "summary", "left out" (facts, no value) or "bare"."""
    shown = {}
    for label, reply in recording["inspect"].items():
        value = reply["result"]["value"] or {}
        if value.get("status") == "withheld" and "max_bytes" in value.get("message", ""):
            shown[label] = "bare" if not reply["result"]["facts"] else "left out"
        else:
            shown[label] = value.get("status", "none")
    return shown


def test_gpt2_48_file_stays_within_the_bound_and_says_what_it_left_out(
    gpt2_48_log: Any, tmp_path: Path
) -> None:
    w = tlw.explore(gpt2_48_log).select("transformer.h.40.mlp.c_fc")
    whole = w.save_html(tmp_path / "whole.html")  # the default bound (32 MiB) holds it whole
    assert whole.stat().st_size <= _offline.DEFAULT_MAX_BYTES
    assert set(inspector_statuses(saved(whole)["recording"]).values()) <= {"summary", "not_saved", "empty"}
    bound = whole.stat().st_size // 2
    path = w.save_html(tmp_path / "bounded.html", max_bytes=bound)
    assert path.stat().st_size <= bound
    recording = saved(path)["recording"]
    shown = inspector_statuses(recording)
    assert set(shown) == set(w._source.index.labels_by_id().values())  # every node has its panel
    assert shown[w.selected_label] == "summary"  # the selection first
    assert "left out" in shown.values() and "summary" in shown.values()
    left_out = next(label for label, status in shown.items() if status == "left out")
    message = recording["inspect"][left_out]["result"]["value"]["message"]
    assert f"max_bytes={bound:,}" in message and "Remedy" in message
    # Everything else is as in the whole file: assets, every overlay's graph, selection.
    assert recording["graphs"].keys() == saved(whole)["recording"]["graphs"].keys()
    assert recording["state"]["selected_label"] == w.selected_label


def test_a_bound_too_small_for_the_graph_is_a_typed_error_naming_the_size(
    tiny_log: Any, tmp_path: Path
) -> None:
    w = tlw.explore(tiny_log)
    with pytest.raises(
        tlw.SaveSizeError, match=r"needs at least [\d,]+ bytes.*Remedy: save_html\(path, max_bytes="
    ) as caught:
        w.save_html(tmp_path / "x.html", max_bytes=100_000)
    assert isinstance(caught.value, ValueError)
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a partial file


def test_saving_holds_no_reply_after_it_is_written(gpt2_48_log: Any, tmp_path: Path) -> None:
    """The inspector replies (most of the file) go to disk as they come: saving them costs next to no
    extra peak memory, however many there are."""
    import tracemalloc

    w = tlw.explore(gpt2_48_log, viewer="netron")
    w.save_html(tmp_path / "warm.html", inspector=False)  # overlays computed once, outside the measure

    def peak_of_save(name: str, inspector: bool) -> tuple[int, int]:
        tracemalloc.start()
        try:
            path = w.save_html(tmp_path / name, inspector=inspector)
            return tracemalloc.get_traced_memory()[1], path.stat().st_size
        finally:
            tracemalloc.stop()

    peak_without, size_without = peak_of_save("without.html", False)
    peak_with, size_with = peak_of_save("with.html", True)
    replies = size_with - size_without
    assert replies > 3_000_000  # 2,558 nodes' inspector replies
    assert peak_with - peak_without < replies / 10, (peak_with, peak_without, replies)


def test_no_progress_bar_outside_a_notebook_and_a_quiet_save(
    gpt2_log: Any, tmp_path: Path, capsys: Any
) -> None:
    from torchlens_widgets._progress import MANY_STEPS, Progress

    assert not Progress(5000, "Saving").shown  # pytest is no notebook: nothing displayed, nothing printed
    # GPT-2's 579 ops: a save long enough for a progress bar in a notebook.
    assert len(gpt2_log.layer_labels) > MANY_STEPS
    tlw.explore(gpt2_log, viewer="netron").save_html(tmp_path / "q.html", inspector=False)
    assert capsys.readouterr() == ("", "")


def test_nbconvert_without_widget_state_says_what_the_widget_is(tiny_log: Any) -> None:
    # nbconvert skips a widget view whose state the notebook did not save and shows the text instead.
    from nbconvert import HTMLExporter

    w = tlw.explore(tiny_log)
    data, metadata = w._repr_mimebundle_()
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("w")
    cell.outputs = [nbformat.v4.new_output("execute_result", data=data, metadata=metadata, execution_count=1)]
    notebook.cells = [cell]
    html, _ = HTMLExporter().from_notebook_node(notebook)
    assert html.count(html_escape(repr(w))) == 1 and "a live widget, drawn by a running kernel" in repr(w)
