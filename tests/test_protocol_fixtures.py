"""The protocol's contract fixtures: sample replies built by the real handlers on real small traces.

Each file in tests/fixtures/protocol/ is ``{"method", "params", "result", "buffer_bytes"}`` (or a full
error envelope): what a view receives for that request. The vitest suite reads the same files and
type-checks them against js/kernel/protocol.ts, so a change of shape on either side fails a test. When the
kernel's replies change on purpose, re-run with ``TLW_WRITE_PROTOCOL_FIXTURES=1`` and commit the files.

Measured times and source paths differ between runs and machines: they are replaced by fixed
stand-ins (same types), so the files are deterministic.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

import pytest
import torch
import torchlens as tl
from torchlens.options import CaptureOptions

import torchlens_widgets as tlw
from tests.helpers.models import Nest, Square, TinyMLP
from tests.helpers.view_requests import ask
from torchlens_widgets import _trait_schema
from torchlens_widgets._protocol import (
    HIGHLIGHT_COLOUR,
    HIGHLIGHT_ROLE_COLOURS,
    HIGHLIGHT_ROLE_FILLS,
    INSPECTOR_WIDTH,
    MASK_CODES,
    MIN_INSPECTOR_WIDTH,
    NOT_IN_EVERY_RUN_BORDER,
    PICTURE_MAX_CHARS,
    PICTURE_PREFIXES,
    RECORDING_FORMAT,
    TIMELINES,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "protocol"
WRITE = os.environ.get("TLW_WRITE_PROTOCOL_FIXTURES") == "1"
REPO = pathlib.Path(__file__).resolve().parent.parent

# Fact rows whose values are measured per run; kept in the file with a fixed value of the same type.
_MEASURED_FACTS = {"time": (0.25, "0.25 ms")}
# Buffers whose bytes hold measured times (graph collections, Netron models and attachments): their
# sizes vary between runs, so the file lists them as -1.
_VOLATILE_BUFFERS = {
    "graph-model-explorer": (0,),
    "graph-model-explorer-diff": (0, 1),
    "graph-netron": (0, 1),
    "colours-netron": (0,),  # the companion
}
# A key of node facts whose bytes may hold measured times: the file says only that there is one.
_FACTS_KEY = "<a key of the node facts>"


def _steady(value: Any) -> Any:
    """``value`` with measured times and machine paths replaced (see the module docstring)."""
    if isinstance(value, list):
        return [_steady(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.keys() >= {"key", "name", "value", "text"} and value["key"] in _MEASURED_FACTS:
        number, text = _MEASURED_FACTS[value["key"]]
        return {**value, "value": number if value["value"] is not None else None, "text": text}
    steady = {key: _steady(item) for key, item in value.items()}
    if isinstance(steady.get("facts"), str) and steady["facts"]:
        steady["facts"] = _FACTS_KEY
    for key in ("file", "detail", "text", "source"):
        if isinstance(steady.get(key), str):
            steady[key] = steady[key].replace(str(REPO) + os.sep, "").replace(str(REPO), ".")
    return steady


def _sample(name: str, method: str, params: dict[str, Any], widget: Any) -> dict[str, Any]:
    content, buffers = ask(widget, method, params, channel="view-1")
    assert content["ok"] is True, content
    sizes = [len(buffer) for buffer in buffers]
    for index in _VOLATILE_BUFFERS.get(name, ()):
        sizes[index] = -1
    return {"method": method, "params": params, "result": _steady(content["result"]), "buffer_bytes": sizes}


@pytest.fixture(scope="module")
def samples(two_pass_log: Any) -> dict[str, Any]:
    torch.manual_seed(0)
    tiny = tl.trace(TinyMLP(), torch.randn(3, 4))
    # Trace labels count the traces of the session ("tinymlp_7"): fixed ones keep the files steady.
    tiny.trace_label = "tiny"
    explorer = tlw.explore(tiny, overlay="flops")
    netron = tlw.explore(two_pass_log, viewer="netron", overlay="flops")
    tuned = TinyMLP()
    torch.manual_seed(0)
    base, x = TinyMLP(), torch.randn(3, 4)
    tuned.load_state_dict(base.state_dict())
    with torch.no_grad():
        tuned.l2.weight.add_(0.5)
    before, after = tl.trace(base, x), tl.trace(tuned, x)
    before.trace_label, after.trace_label = "before", "after"
    diff = tlw.diff(before, after)
    square = tlw.explore(tl.trace(Square(), torch.tensor([[-1.0, 0.0, 2.0], [4.0, 0.5, 1.0]])))

    out: dict[str, Any] = {}
    out["assets-model-explorer"] = _sample("", "assets", {"key": explorer._asset_key}, explorer)
    out["assets-netron"] = _sample("", "assets", {"key": netron._asset_key}, netron)
    out["graph-model-explorer"] = _sample("graph-model-explorer", "graph", {}, explorer)
    out["graph-netron"] = _sample("graph-netron", "graph", {}, netron)
    diff.select("linear_2_3")
    out["graph-model-explorer-diff"] = _sample("graph-model-explorer-diff", "graph", {}, diff)
    out["inspect-difference"] = _sample("", "inspect", {"side": 2}, diff)
    out["inspect-diff-side"] = _sample("", "inspect", {"side": 1}, diff)
    # An explorer with a baseline: the node's panel with torchlens' row and the difference's summary.
    against = tlw.explore(after, baseline=before).select("linear_2_3:1")
    out["inspect-baseline"] = _sample("", "inspect", {}, against)
    # A recolour in place: the delta's node data, and the baseline's facts (the view shows none yet).
    against.overlay = "delta"
    out["colours-model-explorer"] = _sample("", "colours", {"facts": ""}, against)
    out["inspect-none"] = _sample("", "inspect", {}, explorer)
    square.select("truediv_1_2")
    out["inspect-op"] = _sample("", "inspect", {}, square)
    # The same reply from a kernel launched through a Jupyter Kernel Gateway: its buffers as text.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KERNEL_GATEWAY", "1")
        content, none = ask(square, "inspect", {}, channel="view-1")
    assert none == []
    out["response-text-gateway"] = {**content, "result": _steady(content["result"])}
    nest = tlw.explore(tl.trace(Nest(), torch.randn(2, 4)), viewer="netron")
    nest.select("inner")  # a module-call box: the panel describes the module
    out["inspect-module"] = _sample("", "inspect", {}, nest)
    netron.granularity = "rolled"
    netron.select("linear_1_1")
    out["inspect-layer"] = _sample("", "inspect", {}, netron)
    out["colours-netron"] = _sample("colours-netron", "colours", {"facts": ""}, netron)
    # The debug buttons: a diff's first divergence, a capture's first non-finite op, a lineage.
    out["debug-first-divergence"] = _sample("", "debug", {"question": "first_divergence"}, diff)
    out["debug-first-nonfinite"] = _sample("", "debug", {"question": "first_nonfinite"}, square)
    # Why non-finite: the producer (log of a negative) selected, its panel with its inputs' ranges.
    out["debug-explain-nonfinite"] = _sample("", "debug", {"question": "explain_nonfinite"}, square)
    out["inspect-nonfinite"] = _sample("", "inspect", {}, square)
    # The memory overlay on: the op's bytes alive, the tensors alive then (links), its module's rollup.
    memory = tlw.explore(tiny, overlay="memory").select("relu_1_2:1")
    out["inspect-memory"] = _sample("", "inspect", {}, memory)
    # The memory strip: torchlens' series over execution order, its categories, the op at each point.
    memory.timeline = "memory"
    out["memory-timeline"] = _sample("", "memory_timeline", {}, memory)
    # The reader nears the overlay menu or the memory switch: the overlays the kernel builds ahead.
    out["overlays-ahead"] = _sample("", "overlays_ahead", {}, tlw.explore(tiny))
    # A comparison: the reference run's panel with the node's delta in every run (the small multiples).
    moved = TinyMLP()
    moved.load_state_dict(base.state_dict())
    with torch.no_grad():
        moved.l1.weight.add_(0.5)
    steps = {"step0": before, "step1": after, "step2": tl.trace(moved, x)}
    out["inspect-compare"] = _sample("", "inspect", {}, tlw.compare(steps).select("linear_2_3:1"))
    explorer.select("linear_1_1")
    out["debug-lineage"] = _sample("", "debug", {"question": "lineage", "direction": "downstream"}, explorer)
    # A forward pass stopped at its first non-finite output: the failing op's panel names the exception.
    try:
        tl.trace(Square(), torch.tensor([[-1.0, 0.0, 2.0]]), capture=CaptureOptions(raise_on_nan=True))
    except Exception as error:  # torchlens' CaptureError, the partial capture attached
        crashed = tlw.explore(tl.partial.from_failed_capture(error))
    out["inspect-partial"] = _sample("", "inspect", {}, crashed)
    content, _ = ask(explorer, "assets", {"key": "model-explorer@0:none"}, channel="view-1")
    assert content["ok"] is False
    out["error"] = content
    out["constants"] = {
        "mask_codes": MASK_CODES,
        "recording_format": RECORDING_FORMAT,
        "picture_prefixes": list(PICTURE_PREFIXES),
        "picture_max_chars": PICTURE_MAX_CHARS,
        "highlight_colour": HIGHLIGHT_COLOUR,
        "highlight_role_colours": HIGHLIGHT_ROLE_COLOURS,
        "highlight_role_fills": HIGHLIGHT_ROLE_FILLS,
        "not_in_every_run_border": NOT_IN_EVERY_RUN_BORDER,
        "inspector_width": INSPECTOR_WIDTH,
        "min_inspector_width": MIN_INSPECTOR_WIDTH,
        "timelines": list(TIMELINES),
        "widget_traits": synced_traits(),
    }
    return out


def synced_traits() -> list[str]:
    """The traits the Explorer, Diff and Compare widgets sync beyond every anywidget's own
    (js/view/widget-traits.ts is written from the same list)."""
    return sorted(_trait_schema.synced_traits())


NAMES = (
    "assets-model-explorer",
    "assets-netron",
    "graph-model-explorer",
    "graph-model-explorer-diff",
    "graph-netron",
    "colours-model-explorer",
    "colours-netron",
    "inspect-none",
    "inspect-op",
    "inspect-layer",
    "inspect-module",
    "inspect-diff-side",
    "inspect-difference",
    "inspect-baseline",
    "inspect-partial",
    "inspect-nonfinite",
    "inspect-memory",
    "inspect-compare",
    "memory-timeline",
    "overlays-ahead",
    "response-text-gateway",
    "debug-first-divergence",
    "debug-first-nonfinite",
    "debug-explain-nonfinite",
    "debug-lineage",
    "error",
    "constants",
)


def _text(sample: Any) -> str:
    return json.dumps(sample, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_fixture_is_what_the_kernel_sends(samples: dict[str, Any], name: str) -> None:
    path = FIXTURES / f"{name}.json"
    text = _text(samples[name])
    if WRITE:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} is missing. Remedy: TLW_WRITE_PROTOCOL_FIXTURES=1 pytest {__file__}"
    assert path.read_text(encoding="utf-8") == text, (
        f"The kernel's {name!r} reply no longer matches {path.relative_to(REPO)}. If the change is "
        f"intended, re-run with TLW_WRITE_PROTOCOL_FIXTURES=1, commit the file and update "
        f"js/kernel/protocol.ts."
    )


def test_the_samples_cover_what_a_view_relies_on(samples: dict[str, Any]) -> None:
    roles = {file["role"] for file in samples["assets-model-explorer"]["result"]["files"]}
    assert roles == {"page", "entry", "style", "worker", "font", "data"}
    netron_files = samples["assets-netron"]["result"]["files"]
    assert [file["role"] for file in netron_files][:11] == ["module"] * 11
    assert samples["inspect-op"]["result"]["value"]["heatmap"]["mask_buffer"] is not None
    assert samples["graph-netron"]["result"]["overlay"]["values"]
    assert samples["graph-model-explorer"]["result"]["nodeData"]
    assert {"nodeData", "nodeAttributes"} <= samples["colours-model-explorer"]["result"].keys()
    assert {"overlay", "attachment"} <= samples["colours-netron"]["result"].keys()
    assert samples["graph-model-explorer-diff"]["result"]["paneNodeData"]
    kinds = {samples[name]["result"]["kind"] for name in NAMES if name.startswith("inspect-")}
    assert kinds == {"none", "op", "layer", "module", "difference"}
    assert samples["inspect-partial"]["result"]["exception"]
    assert samples["inspect-baseline"]["result"]["baseline"]["value"]["histogram"]
    runs = samples["inspect-compare"]["result"]["runs"]["runs"]
    assert [run["value"] is None for run in runs] == [True, False, False]  # the reference: no delta
    assert samples["debug-lineage"]["result"]["labels"][0] == "linear_1_1:1"
    assert all(
        samples[f"debug-{name}"]["result"]["labels"] for name in ("first-divergence", "first-nonfinite")
    )
    assert str(REPO) not in json.dumps(samples)
