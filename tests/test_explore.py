"""explore(log): payload, id <-> label mapping, select/selected, and every bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import tomllib
import torch
import torchlens as tl
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import torchlens_widgets as tlw
from tests.helpers.view_requests import ask
from torchlens_widgets import _viewer_versions
from torchlens_widgets.graph_model import model_explorer_payload
from torchlens_widgets.viewers import model_explorer as _me


def graph_nodes(widget, graph_id="00-execution"):
    collection = widget._source.payload.collection
    return next(g for g in collection["graphs"] if g["id"] == graph_id)["nodes"]


def attr(node, key):
    return next((a["value"] for a in node["attrs"] if a["key"] == key), None)


def test_tl_widgets_is_this_package(tiny_log):
    assert tl.widgets is tlw
    widget = tl.widgets.explore(tiny_log)
    assert isinstance(widget, tlw.Explorer)
    assert widget.viewer == "model-explorer"


def test_payload_is_torchlens_own_export(tiny_log):
    widget = tlw.explore(tiny_log)
    expected = tl.export.to_model_explorer_dict(tiny_log)
    got = widget._source.payload.collection
    assert [g["id"] for g in got["graphs"]] == [g["id"] for g in expected["graphs"]]
    assert [n["id"] for n in graph_nodes(widget)] == [n["id"] for n in expected["graphs"][0]["nodes"]]
    sizes = {g["id"]: len(g["nodes"]) for g in expected["graphs"]}
    assert widget._graph_info == {}  # known once the graph is asked for
    ask(widget, "graph")
    assert widget._graph_info == {"label": got["label"], "graphs": sizes}
    assert sizes["00-execution"] == 5  # input, linear, relu, linear, output


def test_graph_request_returns_the_payload_compressed(tiny_log):
    widget = tlw.explore(tiny_log)
    content, buffers = ask(widget, "graph", request_id=7)
    assert content["ok"] and content["id"] == 7
    assert json.loads(gzip.decompress(buffers[0])) == widget._source.payload.collection


def test_assets_come_from_the_installed_package():
    bundle = _me.model_explorer_assets()
    names = set(bundle.files)
    assert "index.html" in names
    assert any(n.startswith("main-") and n.endswith(".js") for n in names)
    assert any(n.startswith("worker-") for n in names)
    assert {f"static_files/Font{w}.png" for w in ("Regular", "Medium", "Bold")} <= names
    assert "static_files/material_icon.woff2" in names
    # unused font subsets and the helper worker stay out of the transfer
    assert "static_files/worker_deps.js" not in names
    assert sum(n.endswith(".woff2") for n in names) == 4
    assert bundle.key.startswith(f"model-explorer@{bundle.version}:")
    assert bundle.wire_bytes < bundle.raw_bytes / 2  # gzip on the wire


def test_asset_request_is_answered_with_every_file(tiny_log):
    widget = tlw.explore(tiny_log)
    content, buffers = ask(widget, "assets", {"key": widget._asset_key})
    assert content["result"]["key"] == widget._asset_key
    assert len(content["result"]["files"]) == len(buffers) == len(_me.model_explorer_assets().files)
    assert widget.bytes_sent == sum(len(b) for b in buffers)


def test_selection_maps_viewer_id_to_label_and_live_record(tiny_log):
    widget = tlw.explore(tiny_log)
    node = next(n for n in graph_nodes(widget) if attr(n, "torchlens_label") == "linear_1_1:1")
    seen = []
    widget.on_select(seen.append)
    widget.selected_node = node["id"]  # what a click in the viewer does
    assert widget.selected_label == "linear_1_1:1"
    assert widget.selected is tiny_log["linear_1_1:1"]
    assert seen == [tiny_log["linear_1_1:1"]]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("linear_2_3:1", "linear_2_3:1"),  # pass-qualified label
        ("linear_2_3", "linear_2_3:1"),  # label without pass
        ("l2", "linear_2_3:1"),  # module address: the module's output op, as log["l2"] resolves it
        ("s1|act|relu||1|1", "relu_1_2:1"),  # viewer node id
    ],
)
def test_select_accepts_labels_addresses_and_ids(tiny_log, name, label):
    widget = tlw.explore(tiny_log)
    assert widget.select(name) is widget
    assert widget.selected_label == label
    assert widget.selected is tiny_log[label]


def test_select_second_pass(two_pass_log):
    widget = tlw.explore(two_pass_log)
    widget.select("linear_1_1:2")
    assert widget.selected_label == "linear_1_1:2"
    assert widget.selected is two_pass_log["linear_1_1:2"]
    widget.select("linear_1_1")  # a layer with two passes stands for its first
    assert widget.selected_label == "linear_1_1:1"


def test_unknown_name_raises_key_error_with_suggestions(tiny_log):
    widget = tlw.explore(tiny_log)
    widget.select("l1")
    with pytest.raises(KeyError) as caught:
        widget.select("linear_9")
    message = str(caught.value)
    assert "linear_9" in message and "Did you mean" in message and "linear_1_1" in message
    assert widget.selected_label == "linear_1_1:1"  # the previous selection is kept


def test_unknown_viewer_id_is_refused(tiny_log):
    widget = tlw.explore(tiny_log)
    with pytest.raises(KeyError):
        widget.selected_node = "no-such-node"
    assert widget.selected_node == ""


def test_on_select_unregisters(tiny_log):
    widget = tlw.explore(tiny_log)
    seen = []
    stop = widget.on_select(seen.append)
    widget.select("l1")
    stop()
    widget.select("l2")
    assert seen == [tiny_log["linear_1_1:1"]]


def test_clearing_selection(tiny_log):
    widget = tlw.explore(tiny_log)
    widget.select("l1")
    widget.selected_node = ""
    assert widget.selected_label == "" and widget.selected is None


@pytest.mark.parametrize("bad", [None, 3, "log", torch.nn.Linear(2, 2), {"graphs": []}])
def test_non_trace_argument_is_a_type_error_naming_the_remedy(bad):
    with pytest.raises(TypeError, match=r"torchlens Trace.*torchlens\.trace\(model, x\)"):
        tlw.explore(bad)


def test_unknown_viewer_is_refused(tiny_log):
    with pytest.raises(ValueError, match="model-explorer"):
        tlw.explore(tiny_log, viewer="tensorboard")


def test_invalid_payload_is_refused_with_the_failure_rows(tiny_log, monkeypatch):
    real = tl.export.to_model_explorer_dict

    def broken(log, **options):
        collection = real(log, **options)
        nodes = collection["graphs"][0]["nodes"]
        nodes[1]["incomingEdges"][0]["sourceNodeId"] = "ghost"
        nodes.append(dict(nodes[0]))
        return collection

    monkeypatch.setattr(tl.export, "to_model_explorer_dict", broken)
    widget = tlw.explore(tiny_log)  # exports when the view asks for the graph
    reply, _ = ask(widget, "graph")
    # The widget's error box shows it, and no graph is drawn.
    assert reply["ok"] is False and reply["error"].startswith("PayloadValidationError: ")
    assert "model_explorer_edge_unresolved" in reply["error"] and widget._graph_info == {}
    with pytest.raises(tlw.PayloadValidationError) as caught:  # and a Python call that needs it raises
        widget.select("linear_1_1:1")
    message = str(caught.value)
    assert "model_explorer_duplicate_node_id" in message
    assert "model_explorer_edge_unresolved" in message and "ghost" in message
    assert len(caught.value.rows) == 2


def test_explore_returns_before_torchlens_exports(tiny_log, monkeypatch):
    # The view's frame boots while the kernel exports: explore() itself does not export.
    calls = []
    real = tl.export.to_model_explorer_dict

    def counted(log, **options):
        calls.append(1)
        return real(log, **options)

    monkeypatch.setattr(tl.export, "to_model_explorer_dict", counted)
    widget = tlw.explore(tiny_log)
    repr(widget)  # a notebook asks for it at every display
    assert calls == []
    for request_id in (1, 2):  # a second view's request reuses the export
        ask(widget, "graph", request_id=request_id)
    assert calls == [1] and "5 nodes in model-explorer" in repr(widget)


def test_unsupported_viewer_version_names_installed_and_supported(tiny_log, monkeypatch):
    monkeypatch.setattr(_viewer_versions.metadata, "version", lambda dist: "0.3.0")
    _me.model_explorer_assets.cache_clear()
    try:
        with pytest.raises(tlw.ViewerAssetsError, match=r"0\.3\.0 is installed.*>=0\.1\.33,<0\.2"):
            tlw.explore(tiny_log)
    finally:
        _me.model_explorer_assets.cache_clear()


def test_missing_viewer_package_names_the_install(tiny_log, monkeypatch):
    def missing(dist):
        raise _viewer_versions.metadata.PackageNotFoundError(dist)

    monkeypatch.setattr(_viewer_versions.metadata, "version", missing)
    _me.model_explorer_assets.cache_clear()
    try:
        with pytest.raises(tlw.ViewerAssetsError, match="pip install 'ai-edge-model-explorer"):
            tlw.explore(tiny_log)
    finally:
        _me.model_explorer_assets.cache_clear()


def test_missing_asset_file_is_reported(tiny_log, monkeypatch, tmp_path):
    import shutil
    from importlib import resources

    web_app = tmp_path / "model_explorer" / "web_app"
    shutil.copytree(resources.files("model_explorer").joinpath("web_app"), web_app)
    (web_app / "static_files" / "FontBold.png").unlink()
    monkeypatch.setattr(_me.resources, "files", lambda package: tmp_path / package)
    _me.model_explorer_assets.cache_clear()
    try:
        with pytest.raises(tlw.ViewerAssetsError, match=r"FontBold\.png.*missing"):
            tlw.explore(tiny_log)
    finally:
        _me.model_explorer_assets.cache_clear()


def test_gpt2_payload_size_and_labels(gpt2_log):
    payload = model_explorer_payload(gpt2_log)
    sizes = payload.graph_sizes
    assert sum(sizes.values()) > 1000  # the ~1,150-node graph the issue is about
    labelled = [n for n in payload.collection["graphs"][0]["nodes"] if attr(n, "torchlens_label")]
    assert len(payload.index) >= len(labelled)
    some = labelled[len(labelled) // 2]
    widget = tlw.explore(gpt2_log)
    widget.select(attr(some, "torchlens_label"))
    assert widget.selected_node == some["id"]
    widget.select("transformer.h.3.attn")  # a module address: the op its call returned
    first_output = gpt2_log.modules["transformer.h.3.attn"].output_ops[0]
    assert widget.selected_label == first_output
    assert widget.selected is gpt2_log[first_output]


def test_saved_widget_state_holds_no_assets_or_graph(gpt2_log):
    widget = tlw.explore(gpt2_log)
    state = widget.get_state()
    state.pop("_esm", None)  # the widget's own code (tens of KB), not the viewer or the graph
    assert len(json.dumps(state, default=str)) < 2_000


def test_wide_layers_are_split_into_sub_layers_model_explorer_can_lay_out():
    from tests.helpers.models import Chain
    from torchlens_widgets.graph_model import model_explorer_payload, split_wide_layers, validate

    log = tl.trace(Chain(5), torch.randn(3))  # 10 ops in one layer
    collection = tl.export.to_model_explorer_dict(log)
    nodes = collection["graphs"][0]["nodes"]
    chain = [node for node in nodes if node["label"] in ("__mul__", "__add__")]
    namespace = chain[0]["namespace"]
    assert len(chain) == 10 and {node["namespace"] for node in chain} == {namespace}
    split = split_wide_layers(collection, limit=4)
    moved = [node for node in split["graphs"][0]["nodes"] if node["label"] in ("__mul__", "__add__")]
    prefix = f"{namespace}/" if namespace else ""
    expected = [f"{prefix}ops 1-4"] * 4 + [f"{prefix}ops 5-8"] * 4 + [f"{prefix}ops 9-10"] * 2
    assert [node["namespace"] for node in moved] == expected  # in execution order

    # Only namespaces change, and the result is still a payload torchlens' strict validator accepts.
    def without_namespace(graph):
        return [{key: value for key, value in node.items() if key != "namespace"} for node in graph["nodes"]]

    assert without_namespace(split["graphs"][0]) == without_namespace(collection["graphs"][0])
    validate(split)
    assert split_wide_layers(collection)["graphs"][0] is collection["graphs"][0]  # narrow enough: as is
    # The widget's payload is split at Model Explorer's own threshold (1,000 children).
    assert model_explorer_payload(log).collection["graphs"][0]["nodes"] == nodes


def test_viewer_version_ranges_have_one_source() -> None:
    """The ranges the widget checks are pyproject.toml's own (through the installed metadata)."""
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    declared = {
        (req := Requirement(text)).name: req.specifier for text in pyproject["project"]["dependencies"]
    }
    for distribution, specifier in _viewer_versions.SUPPORTED.values():
        assert SpecifierSet(specifier) == declared[distribution]
