"""tlw.compare(runs): many runs on one graph. Every figure is checked against torchlens' own answer (the
delta against diff_report's row, the first divergence against tl.debug.first_divergence), the runs come
from a list, a dict, a Bundle and tl.save'd paths, bad input raises typed before anything is drawn, a run
switch recolours through the overlay path, and a run gone NaN keeps every trait and reply valid JSON."""

from __future__ import annotations

import base64
import copy
import gzip
import json
import threading
from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn
from torchlens.differential import diff_report

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP
from tests.helpers.pairs import X_TINY, perturbed, trace
from tests.helpers.saved_pages import saved
from tests.helpers.view_requests import Wire, ask
from torchlens_widgets.comparing.union import NOT_IN_EVERY_RUN_STYLE
from torchlens_widgets.viewers.netron import netron_artifact


class Doubled(TinyMLP):
    """TinyMLP with one more op at the end (mul_1_4): a node the plain runs lack."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) * 2


@pytest.fixture(scope="module")
def model() -> nn.Module:
    torch.manual_seed(0)
    return TinyMLP()


@pytest.fixture(scope="module")
def runs(model: nn.Module) -> list[Any]:
    """Three runs of TinyMLP: as it is, l1 moved, l2 moved."""
    return [trace(model), trace(perturbed(model, "l1")), trace(perturbed(model, "l2"))]


@pytest.fixture(scope="module")
def doubled(model: nn.Module) -> Any:
    other = Doubled()
    other.load_state_dict(model.state_dict())
    return trace(other)


def nan_run(model: nn.Module) -> Any:
    broken = copy.deepcopy(model)
    with torch.no_grad():
        broken.l2.weight[0, 0] = float("nan")
    return trace(broken)


def strict(text: str | bytes) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


# ----- answers from torchlens ---------------------------------------------------------------------


def test_delta_is_torchlens_diff_report_figure_per_node(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    assert c.overlay == "delta" and c.reference == c.runs[0] and c.run == c.runs[1]
    for position in (1, 2):
        report = diff_report(runs[position], runs[0])
        for row in report.rows:
            values = c.values(row.subject_label)
            assert values[c.runs[position]] == pytest.approx(row.max_abs_delta)
            assert values[c.runs[0]] is None  # the reference has no delta against itself, never a zero


def test_first_divergence_is_torchlens_answer_per_run(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    answers = c.first_divergence()
    assert answers[c.runs[0]] is None
    for position in (1, 2):
        row = tl.debug.first_divergence(runs[position], runs[0], rtol=1e-5, atol=1e-8)
        record, reference_record = answers[c.runs[position]]
        assert record.label == reference_record.label == row["op"]
    assert c.selected_label == tl.debug.first_divergence(runs[1], runs[0])["op"]  # the run shown's
    assert c.debug_status.startswith(f"Run {c.runs[1]} vs {c.runs[0]}: First divergence at")


def test_most_changed_is_each_nodes_largest_delta_over_the_runs(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    ranked = c.most_changed(k=3)
    largest: dict[str, float] = {}
    for run in runs[1:]:
        for row in diff_report(run, runs[0]).rows:
            if row.max_abs_delta is not None:
                largest[row.subject_label] = max(largest.get(row.subject_label, 0.0), row.max_abs_delta)
    expected = sorted(largest.items(), key=lambda item: item[1], reverse=True)[:3]
    assert [(record.label, score) for record, score in ranked] == [
        (label, pytest.approx(score)) for label, score in expected
    ]
    assert c.selected_label == ranked[0][0].label and set(c.highlighted) == {r.label for r, _ in ranked}
    assert set(c._highlight_roles.values()) == {"ranked"}
    with pytest.raises(ValueError, match="int >= 1"):
        c.most_changed(0)


def test_spread_is_max_minus_min_of_torchlens_magnitude(runs: list[Any]) -> None:
    c = tlw.compare(runs, overlay="spread")
    magnitudes = [tlw.explore(run, overlay="magnitude")._overlay.values_by_label() for run in runs]
    spread = c._overlay.values_by_label()
    for label, value in spread.items():
        figures = [m[label] for m in magnitudes]
        assert value == pytest.approx(max(figures) - min(figures))
    assert c.values("linear_2_3:1") == {
        name: m["linear_2_3:1"] for name, m in zip(c.runs, magnitudes, strict=True)
    }


def test_every_explorer_overlay_is_the_run_shown(runs: list[Any]) -> None:
    c = tlw.compare(runs, overlay="magnitude")
    for name, run in zip(c.runs, runs, strict=True):
        c.run = name
        own = tlw.explore(run, overlay="magnitude")._overlay.values_by_label()
        assert c._overlay.values_by_label() == own
        assert f"run {name}" in c.overlay_summary


# ----- where the runs come from -------------------------------------------------------------------


def test_runs_from_a_list_a_dict_a_bundle_and_saved_paths(runs: list[Any], tmp_path: Path) -> None:
    assert tlw.compare(runs).runs == [run.trace_label for run in runs]
    assert tlw.compare(dict(zip(("a", "b", "c"), runs, strict=True))).runs == ["a", "b", "c"]
    bundle = tl.bundle({"s0": runs[0], "s1": runs[1]})
    c = tlw.compare(bundle)
    assert c.runs == ["s0", "s1"] and c.trace("s1") is runs[1]
    paths = []
    for position, run in enumerate(runs):
        tl.save(run, tmp_path / f"rank{position}.tlspec")
        paths.append(tmp_path / f"rank{position}.tlspec")
    saved = tlw.compare([str(p) for p in paths])
    assert saved.runs == ["rank0", "rank1", "rank2"]
    assert saved.values("linear_2_3:1")["rank2"] == pytest.approx(
        tlw.compare(runs).values("linear_2_3:1")[runs[2].trace_label]
    )
    assert tlw.compare(runs, names=["x", "y", "z"], reference="y").reference == "y"


def test_default_names_are_made_unique_as_torchlens_does(runs: list[Any], tmp_path: Path) -> None:
    tl.save(runs[0], tmp_path / "saved")
    again = tl.load(tmp_path / "saved")  # another capture object, with the same name
    c = tlw.compare([runs[0], again, runs[1]])
    assert c.runs == [runs[0].trace_label, f"{runs[0].trace_label}_2", runs[1].trace_label]
    assert c.runs == tl.bundle([runs[0], again, runs[1]]).names
    with pytest.raises(tlw.SelfComparisonError, match="same capture"):
        tlw.compare([runs[0], runs[0]])


def test_runs_align_as_torchlens_bundle_does(runs: list[Any], doubled: Any) -> None:
    c = tlw.compare([doubled, *runs])
    assert c._runs.shared_labels == set(tl.bundle([doubled, *runs]).shared_op_labels)


# ----- bad input, typed, before anything is drawn -------------------------------------------------


def test_bad_input_is_refused_typed_with_a_remedy(runs: list[Any], tmp_path: Path) -> None:
    cases = [
        (lambda: tlw.compare(runs[:1]), tlw.RunCountError, "2 to 16 runs"),
        (lambda: tlw.compare(runs * 6), tlw.RunCountError, "given 18"),
        (lambda: tlw.compare(runs[0]), tlw.RunCountError, "given 1"),
        (lambda: tlw.compare([runs[0], 3]), tlw.NotATraceError, r"runs\[1\]"),
        (lambda: tlw.compare([runs[0], tmp_path / "none"]), tlw.RunPathError, "tl.save"),
        (lambda: tlw.compare(runs, reference="nobody"), tlw.RunNameError, "one of its runs"),
        (lambda: tlw.compare(runs, names=["a", "a", "b"]), tlw.RunNameError, "distinct"),
        (
            lambda: tlw.compare(runs, privacy_profile="public"),
            tlw.PrivacyProfileError,
            "privacy_profile='local'",
        ),
        (
            lambda: tlw.compare(runs, overlay="spread", privacy_profile="public"),
            tlw.PrivacyProfileError,
            "Remedy",
        ),
        (
            lambda: tlw.compare(runs, overlay="magnitude", privacy_profile="public"),
            tlw.PrivacyProfileError,
            "Remedy",
        ),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words) as caught:
            call()
        assert isinstance(caught.value, tlw.TorchlensWidgetsError) and "Remedy" in str(caught.value)


def test_runs_that_share_no_op_cannot_be_aligned(runs: list[Any]) -> None:
    class Other(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(x).sum(dim=1)

    other = tl.trace(Other(), X_TINY)
    with pytest.raises(tlw.RunsNotAlignedError, match="share no op") as caught:
        tlw.compare([runs[0], other])
    assert "Remedy" in str(caught.value)


def test_a_public_comparison_shows_costs(runs: list[Any]) -> None:
    c = tlw.compare(runs, overlay="time", privacy_profile="public")
    assert "delta" not in c._overlay_choices and "time" in c._overlay_choices
    with pytest.raises(tlw.OverlayUnavailableError):
        c.overlay = "field:out"  # a value field: refused, the old overlay stays
    assert c.overlay == "time"


def test_a_run_is_no_baseline(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    with pytest.raises(tlw.TorchlensWidgetsError, match=r"c\.reference"):
        c.baseline = runs[1]


# ----- one graph, the run switched in place -------------------------------------------------------


def test_run_and_reference_switch_recolour_the_same_graph(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    graph, _ = ask(c, "graph")
    revs = c._graph_rev, c._colour_rev
    c.run = c.runs[2]
    # The views repaint the graph they drew: they ask its colours, the graph is not sent again.
    assert (c._graph_rev, c._colour_rev) == (revs[0], revs[1] + 1)
    colours, buffers = ask(c, "colours", {"facts": graph["result"]["facts"]}, request_id=2)
    assert colours["result"]["colourRev"] == c._colour_rev
    assert colours["result"]["nodeData"]["name"] == graph["result"]["nodeData"]["name"] and len(buffers) == 1
    assert colours["result"]["nodeData"]["key"] != graph["result"]["nodeData"]["key"]  # another run's values
    node_data = strict(gzip.decompress(buffers[0]))
    assert node_data == c._overlay.node_data
    assert c.values("linear_2_3:1")[c.runs[2]] == pytest.approx(
        next(r.max_abs_delta for r in diff_report(runs[2], runs[0]).rows if r.subject_label == "linear_2_3:1")
    )
    c.reference = c.runs[1]
    assert "vs " + c.runs[1] in c.overlay_summary
    c.run = c.runs[1]
    assert "is the reference" in c.overlay_summary and c.values("linear_2_3:1")[c.runs[1]] is None
    with pytest.raises(tlw.RunNameError):
        c.run = "nobody"
    assert c.run == c.runs[1]


def test_the_next_runs_delta_is_computed_while_the_run_shown_is_looked_at(
    model: nn.Module, runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from torchlens_widgets.comparing import overlays

    computed: list[tuple[str, str]] = []  # (the run's name, the thread that ran diff_report for it)
    four = [*runs, trace(model)]
    names = {id(log): f"r{position}" for position, log in enumerate(four)}

    def recorded(log: Any, ref: Any, **kwargs: Any) -> Any:
        computed.append((names[id(log)], threading.current_thread().name))
        return real(log, ref, **kwargs)

    real = overlays.baseline_facts
    monkeypatch.setattr(overlays, "baseline_facts", recorded)
    c = tlw.compare(four, names=["r0", "r1", "r2", "r3"])
    c._run_overlays._facts_ahead._started[("r2", "r0")].result()  # started while r1 is drawn
    assert computed == [("r1", "MainThread"), ("r2", "tlw-ahead_0")]
    c.run = "r2"  # scrubbed on: the answer computed ahead is shown, and the next one started
    c._run_overlays._facts_ahead._started[("r3", "r0")].result()
    assert computed[2:] == [("r3", "tlw-ahead_0")]
    assert c.values("linear_2_3:1")["r2"] == pytest.approx(
        next(r.max_abs_delta for r in diff_report(runs[2], runs[0]).rows if r.subject_label == "linear_2_3:1")
    )
    c.run = "r3"
    c.run = "r1"  # back: the way the reader goes; every answer against r0 is known, none is started
    assert len(computed) == 3 and not c._run_overlays._facts_ahead._started
    c.reference = "r3"  # against another reference, the run before r1 is next: r0
    c._run_overlays._facts_ahead._started[("r0", "r3")].result()
    assert computed[-2:] == [("r1", "MainThread"), ("r0", "tlw-ahead_0")]
    c.overlay = "magnitude"  # every overlay is started ahead likewise, for the run after the one shown
    started = c._run_overlays._caches["r0"]._ahead._started  # the way the reader last went: back
    assert list(started) == ["magnitude"]
    c.run = "r2"
    ahead = c._run_overlays._caches["r3"]._ahead._started["magnitude"]
    ahead.result()  # the reader looks at r2 while it is built
    c.run = "r3"  # takes it: the overlay shown is the one built ahead
    assert c._run_overlays._caches["r3"]._built["magnitude"] is ahead.result()
    c.add_overlay("twice", lambda op: 2.0)  # but a custom one: the user's function runs when shown only
    c.overlay = "twice"
    c.run = "r2"
    assert not any("twice" in cache._ahead._started for cache in c._run_overlays._caches.values())
    c.set_trait("draws", 1)  # drawn: the run shown's cost overlays are built ahead, as an explorer's are
    assert {"time", "flops", "bytes"} <= set(c._run_overlays._caches["r2"]._ahead._started)


def test_the_scrubber_sets_run_and_a_bad_name_is_put_back(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    wire = Wire(c)
    wire.update(run=c.runs[2])
    assert c.run == c.runs[2]
    wire.update(run="nobody")
    assert c.run == c.runs[2] and "refused" in c.notice
    wire.update(reference=c.runs[2])  # the kernel's to set
    assert c.reference == c.runs[0]


def test_selection_is_every_runs_record_and_none_where_a_run_lacks_it(runs: list[Any], doubled: Any) -> None:
    c = tlw.compare({"doubled": doubled, "a": runs[0], "b": runs[2]}, overlay="magnitude")
    seen: list[Any] = []
    c.on_select(seen.append)
    c.select("mul_1_4:1")
    assert c.selected_label == "mul_1_4:1"
    assert c.selected["doubled"].label == "mul_1_4:1" and c.selected["a"] is None and c.selected["b"] is None
    assert seen == [c.selected]
    values = c.values()
    assert values["doubled"] is not None and values["a"] is None and values["b"] is None  # never 0
    c.run = "a"
    assert "1 drawn ops not in this run" in c.overlay_summary
    c.overlay = "delta"
    assert c.values("mul_1_4:1") == {"doubled": None, "a": None, "b": None}


def test_the_inspector_shows_the_node_in_every_run(runs: list[Any], doubled: Any) -> None:
    c = tlw.compare({"doubled": doubled, "a": runs[0], "b": runs[2]})
    c.select("linear_2_3:1")
    for overlay in ("delta", "magnitude", "spread", "time"):
        c.overlay = overlay
        section = ask(c, "inspect")[0]["result"]["runs"]
        assert (section["overlay"], section["shown"], section["reference"]) == (overlay, c.run, "doubled")
        values = c.values()
        assert [(run["name"], run["value"]) for run in section["runs"]] == list(values.items())
        measured = [run for run in section["runs"] if run["value"] is not None]
        assert measured and all(run["text"] == f"{run['value']:.4g}" for run in measured)
    c.overlay = "delta"
    section = ask(c, "inspect")[0]["result"]["runs"]
    assert section["runs"][0] == {"name": "doubled", "value": None, "text": "reference", "lacks": False}
    c.select("mul_1_4:1")  # only "doubled" has it: the others say so, never a zero
    section = ask(c, "inspect")[0]["result"]["runs"]
    assert [(run["lacks"], run["text"]) for run in section["runs"][1:]] == [(True, "not in this run")] * 2


def test_the_views_ask_the_panel_again_when_its_values_change(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    c.overlay = "magnitude"  # nothing selected: nothing to ask
    assert c._inspect_rev == 0
    c.select("linear_2_3:1")
    for change in ({"overlay": "delta"}, {"reference": c.runs[2]}):
        rev = c._inspect_rev
        c.set_trait(*next(iter(change.items())))
        assert c._inspect_rev == rev + 1, change
    rev = c._inspect_rev
    c.run = c.runs[0]  # the run shown: each view marks it, the values stay
    assert c._inspect_rev == rev


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_ops_some_runs_lack_are_marked_on_the_graph(runs: list[Any], doubled: Any, viewer: str) -> None:
    c = tlw.compare({"doubled": doubled, "a": runs[0], "b": runs[2]}, viewer=viewer)
    content, buffers = ask(c, "graph")
    node_id = c._source.index.id_of_label("mul_1_4:1")
    if viewer == "model-explorer":
        assert content["result"]["nodeAttributes"] == {"keys": ["not_in_runs"]}
        attributes = strict(gzip.decompress(buffers[-1]))
        marked = {node: attrs for graph in attributes.values() for node, attrs in graph.items()}
        assert marked == {node_id: {"not_in_runs": "a, b"}}  # the one op only "doubled" has
        nodes = strict(gzip.decompress(buffers[0]))["graphs"][0]["nodes"]  # and it alone is bordered
        assert {node["id"]: node["style"] for node in nodes if "style" in node} == {
            node_id: NOT_IN_EVERY_RUN_STYLE
        }
    else:
        rows = strict(gzip.decompress(buffers[1]))["metadata"]
        marked = [row for row in rows if row["name"] == "not in runs"]
        assert marked == [{"kind": "node", "target": node_id, "name": "not in runs", "value": "a, b"}]
    plain = tlw.compare(runs, viewer=viewer)  # every run has every op: nothing marked
    content, buffers = ask(plain, "graph")
    assert "nodeAttributes" not in content["result"]
    if viewer == "model-explorer":
        assert b'"style"' not in gzip.decompress(buffers[0])
    if viewer == "netron":
        assert "not in runs" not in gzip.decompress(buffers[1]).decode()


def test_ops_only_other_runs_have_are_drawn_in_model_explorer(runs: list[Any], doubled: Any) -> None:
    """The graph drawn is the reference run's with every op only other runs have added, each from its
    own run's torchlens export, wired to the ops it reads and feeds in that run, and marked."""
    c = tlw.compare({"a": runs[0], "doubled": doubled, "b": runs[2]})
    assert c.not_drawn == {}
    _, buffers = ask(c, "graph")
    collection = strict(gzip.decompress(buffers[0]))
    (graph,) = collection["graphs"]
    nodes = {node["id"]: node for node in graph["nodes"]}
    mul = c._source.index.id_of_label("mul_1_4:1")
    linear, output = (c._source.index.id_of_label(label) for label in ("linear_2_3:1", "output_1:1"))
    own = next(n for n in tl.export.to_model_explorer_dict(doubled)["graphs"][0]["nodes"] if n["id"] == mul)
    assert nodes[mul].pop("style") == NOT_IN_EVERY_RUN_STYLE  # a thick dark border on the canvas
    assert {**nodes[mul], "incomingEdges": own["incomingEdges"]} == own  # its own run's node
    assert [edge["sourceNodeId"] for edge in nodes[mul]["incomingEdges"]] == [linear]
    feeding_output = [edge["sourceNodeId"] for edge in nodes[output]["incomingEdges"]]
    assert feeding_output == [linear, mul]  # in run a, and in run doubled
    reference_export = tl.export.to_model_explorer_dict(runs[0])["graphs"][0]["nodes"]
    assert [node for node in graph["nodes"] if node["id"] not in (mul, output)] == [
        node for node in reference_export if node["id"] != output
    ]  # the reference's own nodes, as exported
    attributes = strict(gzip.decompress(buffers[-1]))
    assert {node: attrs for g in attributes.values() for node, attrs in g.items()} == {
        mul: {"not_in_runs": "a, b"}
    }
    assert c._graph_info.get("warnings", []) == []
    # Its values are the run's that has it; the others have none, never a zero.
    c.overlay = "magnitude"
    assert c.values("mul_1_4:1")["doubled"] is not None and c.values("mul_1_4:1")["a"] is None
    c.select("mul_1_4:1")  # a click on it: the panel of the run that has it
    panel = ask(c, "inspect", request_id=2)[0]["result"]
    assert panel["label"] == "mul_1_4:1" and [(r["name"], r["lacks"]) for r in panel["runs"]["runs"]] == [
        ("a", True),
        ("doubled", False),
        ("b", True),
    ]
    assert c.selected["doubled"].label == "mul_1_4:1" and c.selected["a"] is None
    assert c.lineage() == ["mul_1_4:1", "linear_2_3:1", "relu_1_2:1", "linear_1_1:1", "input_1:1"]


class Block(nn.Module):
    """A linear in a module of its own, doubled after it in one run (``twice``)."""

    def __init__(self, twice: bool = False) -> None:
        super().__init__()
        self.inner, self.twice = nn.Sequential(nn.Linear(4, 4)), twice

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.inner(x)
        return y * 2 if self.twice else y


class Nested(nn.Module):
    """A block then a head: with the block's op added, every later op's label moves on (linear_2_2 is
    linear_2_3 in that run), so torchlens aligns neither with the other."""

    def __init__(self, twice: bool = False) -> None:
        super().__init__()
        self.block, self.head = Block(twice), nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(x))


def nested_runs() -> tuple[Any, Any]:
    torch.manual_seed(0)
    plain, twice = Nested(), Nested(twice=True)
    twice.load_state_dict(plain.state_dict())
    x = torch.randn(3, 4)
    return tl.trace(plain, x), tl.trace(twice, x)


@pytest.mark.parametrize("models", ["doubled", "nested"])
@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_the_union_drawn_has_torchlens_supergraph_where_torchlens_merges_the_runs(
    runs: list[Any], doubled: Any, models: str, viewer: str
) -> None:
    """Where torchlens merges the runs' graphs itself (``Bundle.supergraph``; it refuses GPT-2's), every
    op of its merge has a node of its own on the graph drawn, and in Model Explorer every edge (torchlens
    keeps an output another op feeds in one run as a node of its own, "output_1@doubled": drawn as the
    one output it is)."""
    first, second = (runs[0], doubled) if models == "doubled" else nested_runs()
    supergraph = tl.bundle({"a": first, "other": second}).supergraph
    c = tlw.compare({"a": first, "other": second}, viewer=viewer)
    index = c._source.index

    def drawn(name: str) -> str | None:
        return index.id_of_label(f"{name.split('@')[0]}:1")

    endpoints = ("input_", "output_")  # Netron draws the model's inputs and outputs as its own arrows
    shown = [n for n in supergraph.nodes if viewer == "model-explorer" or not n.startswith(endpoints)]
    assert all(drawn(name) is not None for name in shown) and c.not_drawn == {}
    if viewer == "netron":
        return
    collection = c._graph.payload.collection
    edges = {
        (edge["sourceNodeId"], node["id"])
        for graph in collection["graphs"]
        for node in graph["nodes"]
        for edge in node.get("incomingEdges", ())
    }
    assert {(drawn(source), drawn(target)) for source, target in supergraph.edges} <= edges


def test_ops_only_other_runs_have_are_drawn_in_netron(runs: list[Any], doubled: Any) -> None:
    """Netron draws the reference run's artifact with the nodes only other runs have added from theirs:
    the mul reads the value of its input's name, is a graph output as in its run, has its run's sidebar
    rows and the "not in runs" row, and is selected and coloured as any node."""
    c = tlw.compare({"a": runs[0], "doubled": doubled, "b": runs[2]}, viewer="netron")
    assert c.not_drawn == {}
    content, buffers = ask(c, "graph")
    assert content["result"]["marked"] == ["mul_1_4"]  # its box bordered in the frame
    graph = strict(gzip.decompress(buffers[0]))["graph"]
    nodes = {node["name"]: node for node in graph["node"]}
    assert nodes["mul_1_4"]["input"] == ["linear_2_3"] and nodes["linear_2_3"]["input"] == ["relu_1_2"]
    assert [output["name"] for output in graph["output"]] == ["linear_2_3", "mul_1_4"]
    rows = [row for row in strict(gzip.decompress(buffers[1]))["metadata"] if row["target"] == "mul_1_4"]
    own_rows = json.loads(netron_artifact(doubled).attachment_json)["metadata"]
    assert [row for row in own_rows if row["target"] == "mul_1_4"] == rows[:-1]
    assert rows[-1] == {"kind": "node", "target": "mul_1_4", "name": "not in runs", "value": "a, b"}
    c.select("mul_1_4:1")
    assert c.selected_label == "mul_1_4:1" and c.selected_node == "mul_1_4"
    c.overlay = "magnitude"
    c.run = "doubled"
    assert c.values()["doubled"] is not None and c.values()["a"] is None
    assert "mul_1_4" in c._source.overlay_values(c._overlay)["values"]


def test_a_union_torchlens_refuses_draws_the_references_graph_and_says_what_it_lacks(
    runs: list[Any], doubled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from torchlens_widgets.comparing import union

    def refused(collection: Any) -> Any:
        raise tlw.PayloadValidationError(["a row torchlens' validator refused"])

    monkeypatch.setattr(union, "payload_of", refused)
    c = tlw.compare({"a": runs[0], "doubled": doubled})
    ask(c, "graph")  # drawn: the reference's own export
    assert c._source.index.id_of_label("mul_1_4:1") is None and c.not_drawn == {"doubled": ["mul_1_4:1"]}
    (warning,) = c._graph_info["warnings"]
    assert "1 of run 'doubled'" in warning and "refused the graph with them (1 failing row)" in warning
    monkeypatch.setattr(union, "netron_union", lambda own, others: own)  # Netron without its own node
    c.viewer = "netron"
    ask(c, "graph", request_id=2)
    assert c.not_drawn == {"doubled": ["mul_1_4:1"]}
    (warning,) = c._graph_info["warnings"]
    assert "1 of run 'doubled'" in warning and "Model Explorer draws each op" in warning


def test_runs_with_the_same_ops_draw_the_references_own_export(runs: list[Any]) -> None:
    from torchlens_widgets.graph_model import TraceGraph

    c = tlw.compare(runs)
    assert c._graph.payload is TraceGraph(runs[0]).payload  # kept once for every widget of the trace


def test_values_needs_a_node(runs: list[Any]) -> None:
    c = tlw.compare(runs)
    with pytest.raises(tlw.DebugQuestionError, match="select a node"):
        c.values()
    with pytest.raises(tlw.NodeNotFoundError):
        c.values("no_such_op")


def test_a_run_gone_nan_is_drawn_and_every_trait_and_reply_is_json(model: nn.Module, runs: list[Any]) -> None:
    c = tlw.compare([runs[0], nan_run(model), runs[2]])
    c.run = c.runs[1]
    for overlay in ("delta", "spread", "magnitude", "nan", "time"):
        c.overlay = overlay
        for run in c.runs:
            c.run = run
            _, buffers = ask(c, "graph")
            for buffer in buffers:
                strict(gzip.decompress(buffer))
            c.select("linear_2_3:1")
            assert all(value is None or value == value for value in c.values().values())
            content, _ = ask(c, "inspect")
            strict(json.dumps(content, allow_nan=False))
            strict(json.dumps(c.get_state(), allow_nan=False, default=str))
    c.overlay = "delta"
    c.run = c.runs[1]
    assert c.values("linear_2_3:1")[c.runs[1]] is None  # a NaN delta is no value, never a number
    assert c.most_changed(2)
    assert json.dumps(c.first_divergence is not None)


def test_tl_widgets_compare_is_tlw_compare() -> None:
    assert tl.widgets.compare is tlw.compare
    import inspect

    assert inspect.signature(tlw.compare).parameters == inspect.signature(tlw.Compare).parameters


def test_netron_shows_the_run_shown(runs: list[Any]) -> None:
    c = tlw.compare(runs, viewer="netron")
    content, _ = ask(c, "graph")
    values = content["result"]["overlay"]["values"]
    assert values["linear_2_3"] == pytest.approx(c.values("linear_2_3:1")[c.run])
    c.run = c.runs[2]
    content, _ = ask(c, "graph", request_id=2)
    assert content["result"]["overlay"]["values"]["linear_2_3"] == pytest.approx(
        c.values("linear_2_3:1")[c.runs[2]]
    )


@pytest.mark.parametrize("viewer", ["model-explorer", "netron"])
def test_save_html_holds_every_runs_colours_for_the_pages_scrubber(
    runs: list[Any], tmp_path: Path, viewer: str
) -> None:
    c = tlw.compare(runs, viewer=viewer).select("linear_2_3:1")
    recording = saved(c.save_html(tmp_path / "compare.html"))["recording"]
    state = recording["state"]
    assert (state["runs"], state["run"], state["reference"]) == (c.runs, c.run, c.reference)
    assert set(recording["runs"]) == set(c.runs)
    for run in c.runs:
        c.run = run
        for overlay in ("delta", "magnitude", "spread", "time"):
            c.overlay = overlay
            graph = recording["runs"][run]["graphs"][overlay]
            assert graph["summary"] == c.overlay_summary  # the toolbar's line, as the live widget says it
            live, buffers = ask(c, "graph")
            # The same reply, bar the revision of its colours (the file's page counts its own).
            assert graph["reply"]["result"] == {**live["result"], "colourRev": 0}
            if viewer == "model-explorer":  # the node data of that run, the graph bytes stored once
                recorded = base64.b64decode(recording["buffers"][graph["reply"]["buffers"][-1]])
                assert strict(gzip.decompress(recorded)) == strict(gzip.decompress(buffers[-1]))
    graph_bytes = {
        entry["reply"]["buffers"][0] for r in recording["runs"].values() for entry in r["graphs"].values()
    }
    assert len(graph_bytes) == 1
    assert "grad_norm" in recording["runs"][c.runs[1]]["refused"]  # no backward pass: torchlens' reason
    section = recording["inspect"]["linear_2_3:1"]["result"]["runs"]
    assert [run["name"] for run in section["runs"]] == c.runs
