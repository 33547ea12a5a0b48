"""Contract tests: every private torchlens name this package imports, its signature and its behaviour
on a real trace. A torchlens upgrade that renames, re-signs or changes one of them fails here, by name,
before a widget draws something wrong.

The public exporters are the reference: each private step must give what the public function that is
made of it writes to disk (``tl.export.model_explorer``, ``tl.export.model_explorer_diff``,
``tl.export.netron``).
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torchlens.export import _netron as tl_netron
from torchlens.export._model_explorer import _diff as tl_me_diff
from torchlens.export._model_explorer._overlay import build_node_data
from torchlens.export._netron_attachment import write_attachment
from torchlens.export._netron_emit import emit_model_json
from torchlens.export._netron_fields import node_doc
from torchlens.export._netron_records import NETRON_MODULE_DOMAIN, NetronNode, NetronProjection

import torchlens_widgets
from tests.helpers.models import SharedBlock, TinyMLP, TwoPass
from tests.helpers.pairs import GPT2_LAYER, gpt2_tiny, perturbed
from tests.helpers.pairs import trace as trace_tokens
from torchlens_widgets._overlays import OVERLAYS, VALUE_OVERLAYS, build_overlay
from torchlens_widgets.viewers.netron import netron_artifact

PACKAGE = Path(torchlens_widgets.__file__).parent

NETRON_STEPS = "test_netron_steps_make_what_tl_export_netron_writes"

# Every private torchlens name the package uses ("module:name"), and the test below that pins it.
CONTRACTS = {
    "torchlens.export._model_explorer._overlay:build_node_data": "test_build_node_data",
    "torchlens.export._model_explorer._diff:_pairwise_deltas": "test_pairwise_deltas_and_delta_node_data",
    "torchlens.export._model_explorer._diff:_delta_node_data": "test_pairwise_deltas_and_delta_node_data",
    "torchlens.export._netron:_validate_options": NETRON_STEPS,
    "torchlens.export._netron:_build_projection": NETRON_STEPS,
    "torchlens.export._netron:_warn_extent": NETRON_STEPS,
    "torchlens.export._netron:_metadata_props": NETRON_STEPS,
    "torchlens.export._netron:NETRON_DISCLAIMER": NETRON_STEPS,
    "torchlens.export._netron_emit:emit_model_json": NETRON_STEPS,
    "torchlens.export._netron_attachment:write_attachment": NETRON_STEPS,
    "torchlens.export._netron_records:NETRON_MODULE_DOMAIN": "test_netron_records",
    "torchlens.export._netron_records:NetronNode": "test_netron_records",
    "torchlens.export._netron_records:NetronProjection": "test_netron_records",
    "torchlens.export._netron_fields:node_doc": "test_node_doc",
}


def private_uses(paths: list[Path] | None = None) -> set[str]:
    """``module:name`` for every private torchlens module or name the package's code reaches."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")) if paths is None else paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}  # local name -> private torchlens module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torchlens"):
                for alias in node.names:
                    module, name = node.module or "", alias.name
                    full = f"{module}.{name}"
                    if name.startswith("_") and "_" not in module.replace("torchlens", ""):
                        aliases[alias.asname or name] = full  # a private module imported by name
                    elif name.startswith("_") or any(part.startswith("_") for part in module.split(".")):
                        found.add(f"{module}:{name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                found.add(f"{aliases[node.value.id]}:{node.attr}")
    return found


def test_every_private_torchlens_name_has_a_contract_test() -> None:
    uses = private_uses()
    assert uses, "the scan found nothing: it is broken"
    missing = uses - set(CONTRACTS)
    assert not missing, f"private torchlens names without a contract test here: {sorted(missing)}"
    assert set(CONTRACTS) == uses, f"contracts for names no longer used: {sorted(set(CONTRACTS) - uses)}"
    tests = {name for name, value in globals().items() if name.startswith("test_") and callable(value)}
    assert set(CONTRACTS.values()) <= tests


def test_private_torchlens_names_are_imported_in_one_module() -> None:
    """_torchlens.py is the one file to read when the torchlens pin moves."""
    elsewhere = [path for path in PACKAGE.rglob("*.py") if path.name != "_torchlens.py"]
    assert private_uses(elsewhere) == set(), "import private torchlens names in _torchlens.py only"
    assert private_uses([PACKAGE / "_torchlens.py"]) == private_uses()


def parameters(function: Any) -> list[tuple[str, Any, Any]]:
    """(name, kind, default) of each parameter: what a caller relies on."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def signature_names(function: Any) -> list[str]:
    return [name for name, _, _ in parameters(function)]


P, K = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
EMPTY = inspect.Parameter.empty


@pytest.fixture(scope="module")
def log() -> Any:
    torch.manual_seed(0)
    return tl.trace(TinyMLP(), torch.randn(3, 4))


@pytest.fixture(scope="module")
def two_pass() -> Any:
    torch.manual_seed(0)
    return tl.trace(TwoPass(), torch.randn(2, 4))


# ----- Model Explorer -----------------------------------------------------------------------------


def test_build_node_data(log: Any, tmp_path: Path) -> None:
    """The overlay builder: what tl.export.model_explorer(..., overlays=[...]) writes as sidecars."""
    assert parameters(build_node_data) == [
        ("log", P, EMPTY),
        ("payload", P, EMPTY),
        ("source", P, EMPTY),
        ("privacy_profile", K, "local"),
    ]
    out = tl.export.model_explorer(log, tmp_path / "m.json", overlays=["flops", "bytes"])
    payload = json.loads(out.read_text())
    manifest = json.loads((tmp_path / "m.manifest.json").read_text())
    for row, name in zip(manifest["node_data"], ["flops", "bytes"], strict=True):
        node_data, coverage = build_node_data(log, payload, name)
        assert node_data == json.loads((tmp_path / row["file"]).read_text())
        assert coverage == row["coverage"]
        assert set(coverage) >= {"provider", "omitted_missing", "omitted_nonfinite", "omitted_rolled_varying"}
        assert build_overlay(log, payload, name).node_data == node_data  # the widget's overlay is it
    # The public profile refuses exactly the value-derived presets (the widget does not offer them).
    for name in OVERLAYS:
        if name in VALUE_OVERLAYS:
            with pytest.raises(ValueError, match="public privacy profile"):
                build_node_data(log, payload, name, privacy_profile="public")
        else:
            build_node_data(log, payload, name, privacy_profile="public")


def test_pairwise_deltas_and_delta_node_data(log: Any, tmp_path: Path) -> None:
    """The split-pane diff's deltas: what tl.export.model_explorer_diff writes (tests/test_diff.py has
    the byte-for-byte check on BERT)."""
    assert signature_names(tl_me_diff._pairwise_deltas) == ["left", "right", "left_payload", "right_payload"]
    assert signature_names(tl_me_diff._delta_node_data) == ["payload", "deltas"]
    model = TinyMLP()
    tuned = copy.deepcopy(model)
    with torch.no_grad():
        tuned.l2.weight.add_(0.5)
    x = torch.randn(3, 4)
    log_a, log_b = tl.trace(model, x), tl.trace(tuned, x)
    left, right = tl.export.to_model_explorer_dict(log_a), tl.export.to_model_explorer_dict(log_b)
    deltas, coverage = tl_me_diff._pairwise_deltas(log_a, log_b, left, right)
    assert set(coverage) == {"aligned", "one_sided", "structural_mismatch", "value_missing"}
    assert any(value > 0 for value in deltas.values()) and any(value == 0 for value in deltas.values())
    node_data = tl_me_diff._delta_node_data(left, deltas)
    out = tl.export.model_explorer_diff([log_a, log_b], tmp_path)
    assert node_data == json.loads((out / "nodedata.left.bundle_delta.json").read_text())


# ----- Netron -------------------------------------------------------------------------------------


@pytest.mark.parametrize("granularity", ["module", "op", "rolled"])
def test_netron_steps_make_what_tl_export_netron_writes(
    two_pass: Any, granularity: str, tmp_path: Path
) -> None:
    """The steps tl.export.netron is made of give, in memory, the very files it writes."""
    assert signature_names(tl_netron._validate_options) == ["granularity", "depth", "show_buffers"]
    assert signature_names(tl_netron._build_projection) == ["log", "granularity", "depth", "show_buffers"]
    assert signature_names(tl_netron._warn_extent) == ["projection"]
    assert signature_names(tl_netron._metadata_props) == ["log", "projection", "show_buffers", "baseline"]
    assert parameters(emit_model_json) == [
        ("projection", P, EMPTY),
        ("graph_name", K, EMPTY),
        ("disclaimer", K, EMPTY),
        ("metadata_props", K, EMPTY),
    ]
    assert signature_names(write_attachment)[:2] == ["projection", "path"]
    assert isinstance(tl_netron.NETRON_DISCLAIMER, str) and tl_netron.NETRON_DISCLAIMER
    with pytest.raises(tl.errors.TorchLensError, match="closed vocabulary"):
        tl_netron._validate_options("layers", 1, "meaningful")  # torchlens' own refusal, typed

    path = tl.export.netron(two_pass, tmp_path / "m.json", granularity=granularity, attachment=True)
    assert path is not None
    artifact = netron_artifact(two_pass, granularity)
    assert artifact.model_json == path.read_text()
    companions = [p for p in tmp_path.iterdir() if p != path]
    assert [json.loads(p.read_text()) for p in companions] == [json.loads(artifact.attachment_json)]


def test_netron_records() -> None:
    """The projection's shape the node index reads: nodes, module-call functions and their sources."""
    torch.manual_seed(0)
    projection = tl_netron._build_projection(
        tl.trace(SharedBlock(), torch.randn(2, 8)), "module", 1, "meaningful"
    )
    assert isinstance(projection, NetronProjection)
    assert {"nodes", "functions", "node_sources", "granularity"} <= set(vars(projection))
    node = projection.nodes[0]
    assert isinstance(node, NetronNode) and {"name", "domain", "doc"} <= set(vars(node))
    boxes = [n for n in projection.nodes if n.domain == NETRON_MODULE_DOMAIN]
    assert NETRON_MODULE_DOMAIN == "ai.torchlens.module" and len(boxes) == 2  # "block" is called twice
    assert all(n.name in projection.node_sources for n in projection.nodes)
    assert [f.name for f in projection.functions] and all(f.nodes for f in projection.functions)


def test_node_doc(log: Any) -> None:
    """Netron's node description: "<function> called at <file>"; the function alone without a call site."""
    assert signature_names(node_doc) == ["entry"]
    op = log["linear_1_1:1"]
    assert node_doc(op).startswith("linear called at ")
    assert ".py" in node_doc(op)

    class NoCallSite:
        def __getattr__(self, name: str) -> Any:
            return None if name == "code_context" else getattr(op, name)

    assert node_doc(NoCallSite()) == "linear"


def test_build_node_data_takes_a_callable_and_chains_what_it_raises(log: Any) -> None:
    """Custom overlays (OverlayCache.add) rely on the builder's callable source: fn(record) per op record,
    the provider named after the function, and the function's own exception chained as the cause."""
    payload = tl.export.to_model_explorer_dict(log)

    def doubled_time(record: Any) -> float | None:
        return None if record.func_duration is None else 2 * record.func_duration

    node_data, coverage = build_node_data(log, payload, doubled_time)
    assert coverage["provider"] == "callable:doubled_time"
    expected = {label: 2 * log[label].func_duration for label in (op.label for op in log.layer_list)}
    labels = {
        node["id"]: next(a["value"] for a in node["attrs"] if a["key"] == "torchlens_label")
        for node in payload["graphs"][0]["nodes"]
    }
    results = node_data[payload["graphs"][0]["id"]]["results"]
    assert {labels[node_id]: row["value"] for node_id, row in results.items()} == expected

    def explode(record: Any) -> float:
        raise ZeroDivisionError("no scale")

    with pytest.raises(RuntimeError) as refused:
        build_node_data(log, payload, explode)
    assert isinstance(refused.value.__cause__, ZeroDivisionError)
    assert "no scale" in str(refused.value.__cause__)


# ----- the memory timeline (torchlens.observe: public, "documented-unstable") ---------------------


def test_observe_memory_timeline_liveness_and_rollup_as_the_memory_picture_reads_them(two_pass: Any) -> None:
    """The names, parameters and fields torchlens_widgets.memory reads; and the byte formatting it
    borrows (torchlens.utils.display, as torchlens' own memory lines print sizes)."""
    from torchlens import observe
    from torchlens.utils.display import human_readable_size

    assert signature_names(observe.memory_timeline_v2) == ["trace"]
    assert signature_names(observe.estimated_liveness) == ["artifact"]
    assert parameters(observe.module_rollup) == [("artifact", P, EMPTY), ("depth", K, 1)]
    artifact = observe.memory_timeline_v2(two_pass)
    assert {"events", "persistent_baseline_bytes", "category_totals", "absent", "disclaimer"} <= set(artifact)
    assert artifact["disclaimer"] == "logical recorded tensor bytes; not allocator residency"
    op = next(row for row in artifact["events"] if row["phase"] == "forward" and row["kind"] == "op")
    assert {"ordinal", "label", "category", "bytes", "owner", "dtype", "last_consumer_ordinal"} <= set(op)
    liveness = observe.estimated_liveness(artifact)
    assert liveness["evidence"] == "estimated"
    assert {
        "series",
        "peak_bytes",
        "peak_ordinal",
        "persistent_baseline_bytes",
        "excluded",
        "caption",
    } <= set(liveness)
    # The death rules torchlens_widgets.memory.timeline.alive_at applies to the events.
    assert observe.DEATH_RULES["input"] == "held by the caller; alive through phase end"
    assert observe.DEATH_RULES["activation"] == "dies at its last RECORDED consumer"
    assert set(observe.module_rollup(artifact, depth=1)) == {"depth", "rows", "total_bytes"}
    assert [human_readable_size(value) for value in (80, 5_624_768)] == ["80 B", "5.4 MB"]


def test_bundle_supergraph_of_gpt2_runs_is_refused_as_cyclic() -> None:
    """torchlens 2.36 refuses the merged supergraph of four GPT-2 LM traces (self-loops such as
    add_3_37->add_3_37), so ``Bundle.most_changed`` and ``supergraph()`` cannot rank or draw them:
    tlw.compare() answers from each run's ``diff_report`` against the reference instead
    (comparing/overlays.py) and draws the runs' ops from each run's export (comparing/union.py). When a
    torchlens release fixes it this test fails: then the comparison may rank by ``Bundle.most_changed``
    and draw ``supergraph()``."""
    model = gpt2_tiny()
    traces = [trace_tokens(model)] + [trace_tokens(perturbed(model, GPT2_LAYER)) for _ in range(3)]
    bundle = tl.bundle(traces)
    assert len(bundle.shared_op_labels) == len(traces[0].layer_list)  # the runs align op for op
    with pytest.raises(ValueError, match="cyclic"):
        bundle.supergraph()
    with pytest.raises(ValueError, match="cyclic"):
        bundle.most_changed(bundle.names[0])
