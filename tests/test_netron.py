"""The Netron viewer's kernel side: assets, torchlens' artifact in memory, node ids, resolution."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import onnx
import pytest
import torch
import torchlens as tl
from google.protobuf import json_format

from tests.helpers.models import SharedBlock
from torchlens_widgets._errors import NodeNotFoundError, ViewerAssetsError, ViewerNotAvailableError
from torchlens_widgets.viewers import netron as _netron
from torchlens_widgets.viewers.netron import GRANULARITIES, NetronSource, netron_artifact, netron_assets

MODULE_DOMAIN = "ai.torchlens.module"


@pytest.fixture(scope="module")
def shared_log() -> Any:
    torch.manual_seed(0)
    return tl.trace(SharedBlock(), torch.randn(2, 8))


@pytest.fixture(scope="module")
def bert_log() -> Any:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000
    )
    model = BertModel(config).eval()
    with torch.no_grad():
        return tl.trace(model, torch.randint(0, 1000, (1, 12)))


def nodes_by_graph(model_json: str) -> dict[str, list[dict[str, Any]]]:
    """Netron's graphs in the artifact: "" for the root, then one per module-call function."""
    payload = json.loads(model_json)
    graphs = {"": payload["graph"]["node"]}
    for function in payload.get("functions", ()):
        graphs[function["name"]] = function["node"]
    return graphs


# ----- assets -------------------------------------------------------------------------------------


def test_assets_are_the_minimal_netron_set() -> None:
    bundle = netron_assets()
    assert bundle.viewer == "netron"
    assert bundle.version == metadata.version("netron")
    assert set(bundle.files) == set(_netron.NETRON_FILES)
    assert {"browser.js", "index.js", "onnx-metadata.json"}.isdisjoint(bundle.files)
    assert bundle.raw_bytes < 1_100_000 and bundle.wire_bytes < 200_000
    assert netron_assets() is bundle  # read once per kernel


def test_missing_asset_names_installed_and_supported_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_netron, "NETRON_FILES", {**_netron.NETRON_FILES, "no-such-file.js": "module"})
    with pytest.raises(ViewerAssetsError) as error:
        netron_assets.__wrapped__()
    message = str(error.value)
    assert "no-such-file.js" in message
    assert metadata.version("netron") in message and ">=9.2,<10" in message


def test_unsupported_netron_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from torchlens_widgets import _viewer_versions

    monkeypatch.setattr(_viewer_versions.metadata, "version", lambda _name: "8.9.1")
    with pytest.raises(ViewerAssetsError, match=r"netron 8\.9\.1 is installed.*>=9\.2,<10"):
        netron_assets.__wrapped__()


# ----- artifact in memory -------------------------------------------------------------------------


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_payload_and_companion_are_built_in_memory(
    bert_log: Any, granularity: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A working and a temporary folder of this test's own: the machine's /tmp is shared with the other
    # worker's kernels, which make (and remove) their own files there while this runs.
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    source = NetronSource(bert_log, granularity)
    header, buffers = source.graph(None, 0)
    assert os.listdir(cwd) == [] and os.listdir(tmp) == []  # nothing written, or nothing left behind

    assert header["identifier"] == "BertModel.onnx.json"
    assert header["attachment"] == "BertModel.onnx.attachment.json"
    assert header["encoding"] == "gzip"
    assert source.info()["graphs"] == {granularity: len(source.index)}
    model, attachment = (gzip.decompress(buffer).decode() for buffer in buffers)
    assert model == source.artifact.model_json
    companion = json.loads(attachment)
    assert companion["signature"] == "netron:attachment"
    node_names = {node["name"] for nodes in nodes_by_graph(model).values() for node in nodes}
    node_names |= {value["name"] for value in json.loads(model)["graph"]["input"]}  # graph inputs
    targets = {row["target"] for row in companion["metrics"] + companion["metadata"] if row["kind"] == "node"}
    assert targets and targets <= node_names


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_artifact_is_valid_onnx(bert_log: Any, tiny_log: Any, granularity: str) -> None:
    for log in (bert_log, tiny_log):
        artifact = netron_artifact(log, granularity)
        proto = json_format.Parse(artifact.model_json, onnx.ModelProto())
        onnx.checker.check_model(proto, full_check=True)


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_same_bytes_as_torchlens_file_export(shared_log: Any, granularity: str, tmp_path: Path) -> None:
    """Contract test for the torchlens internals viewers/netron.py calls: same output as the public API."""
    path = tl.export.netron(
        shared_log, tmp_path / "SharedBlock.onnx.json", granularity=granularity, attachment=True
    )
    artifact = netron_artifact(shared_log, granularity)
    assert artifact.model_json == Path(path).read_text()
    assert artifact.attachment_json == (tmp_path / artifact.attachment_identifier).read_text()


def test_info_counts_nodes_and_carries_torchlens_warnings(bert_log: Any) -> None:
    module, op = NetronSource(bert_log, "module"), NetronSource(bert_log, "op")
    assert module.info() == {"label": "BertModel", "graphs": {"module": len(module.index)}, "warnings": []}
    info = op.info()
    assert info["graphs"] == {"op": len(op.index)}
    assert len(info["warnings"]) == 1 and "ranks deep" in info["warnings"][0]
    assert "warnings" not in op.graph(None, 0)[0]  # the view shows them from the info trait (_graph_info)


def test_unknown_granularity_names_the_choices(tiny_log: Any) -> None:
    with pytest.raises(ViewerNotAvailableError, match="'module', 'op', 'rolled'"):
        NetronSource(tiny_log, "layers")


# ----- node ids <-> labels ------------------------------------------------------------------------


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_every_drawn_node_is_indexed(bert_log: Any, granularity: str) -> None:
    source = NetronSource(bert_log, granularity)
    graphs = nodes_by_graph(source.artifact.model_json)
    drawn = [(graph, node) for graph, nodes in graphs.items() for node in nodes]
    assert len(source.index) == len(drawn)
    for graph, node in drawn:
        entry = source.index.entry(node["name"])
        assert entry is not None and entry.graph == graph
        if node["domain"] == MODULE_DOMAIN:
            assert entry.module_address == entry.label == node["name"]
            assert source.record(entry.label) is bert_log.modules[entry.module_address]
        else:
            record = source.record(entry.label)
            expected = record.layer_label if granularity == "rolled" else record.label
            assert str(expected) == entry.label
        assert source.index.id_of_label(entry.label) == node["name"]


def test_module_boxes_and_ops_inside_them(bert_log: Any) -> None:
    source = NetronSource(bert_log, "module")
    graphs = nodes_by_graph(source.artifact.model_json)
    boxes = {node["name"] for nodes in graphs.values() for node in nodes if node["domain"] == MODULE_DOMAIN}
    assert {"embeddings", "encoder", "pooler", "encoder.layer.0", "encoder.layer.0.attention.self"} <= boxes
    assert boxes == set(graphs) - {""}  # every box opens the function of the same name
    op = next(node["name"] for node in graphs["encoder.layer.0.attention.self"] if node["opType"] == "linear")
    entry = source.index.entry(op)
    assert entry is not None and entry.graph == "encoder.layer.0.attention.self"
    assert entry.label == bert_log[op].label  # pass-qualified torchlens label, e.g. linear_1_11:1
    assert source.index.is_module("encoder") and not source.index.is_module(op)


def test_repeated_module_calls_get_one_box_each(shared_log: Any) -> None:
    source = NetronSource(shared_log, "module")
    assert source.index.is_module("block:1") and source.index.is_module("block:2")
    assert source.index.label_of("block:2") == "block:2"
    assert source.record("block:2") is shared_log.modules["block"]
    assert source.resolve("block") == "block:1"  # an address stands for its first call
    assert source.resolve("block:2") == "block:2"


def test_repeated_ops_are_pass_qualified_and_roll_up(two_pass_log: Any) -> None:
    op = NetronSource(two_pass_log, "op")
    assert op.index.label_of("linear_1_1:2") == "linear_1_1:2"
    rolled = NetronSource(two_pass_log, "rolled")
    assert rolled.index.label_of("linear_1_1") == "linear_1_1"
    # Every pass selects the rolled node; its record is the layer (all passes).
    assert rolled.resolve("linear_1_1:1") == rolled.resolve("linear_1_1:2") == "linear_1_1"
    assert list(rolled.record("linear_1_1").op_labels) == ["linear_1_1:1", "linear_1_1:2"]


# ----- resolve ------------------------------------------------------------------------------------


def test_resolve_accepts_node_names_labels_and_module_addresses(bert_log: Any) -> None:
    source = NetronSource(bert_log, "module")
    op = next(e for e in source.index if e.graph == "encoder.layer.0.attention.self" and not e.module_address)
    assert source.resolve(op.node_id) == op.node_id  # Netron node name
    assert source.resolve(op.label) == op.node_id  # pass-qualified torchlens label
    assert source.resolve("encoder.layer.0") == "encoder.layer.0"  # a module box
    # A module Netron draws inline (a single op) resolves to that op.
    inlined = source.resolve("pooler.dense")
    assert not source.index.is_module(inlined)
    # At op granularity there are no boxes: a module resolves to the op its call returns.
    flat = NetronSource(bert_log, "op")
    assert not flat.index.is_module(flat.resolve("encoder.layer.0"))


def test_resolve_errors(bert_log: Any) -> None:
    source = NetronSource(bert_log, "module")
    with pytest.raises(NodeNotFoundError, match=r"No node named 'encoder\.layer\.7'"):
        source.resolve("encoder.layer.7")
    with pytest.raises(KeyError, match="similar labels"):  # NodeNotFoundError is a KeyError
        source.resolve("encoderr")
    with pytest.raises(NodeNotFoundError, match="non-empty name"):
        source.resolve("")
