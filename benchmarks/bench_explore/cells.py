"""The notebook each case runs in its kernel of its own: the trace, then one cell per viewer."""

from __future__ import annotations

from pathlib import Path

# The repository root: the kernel imports benchmarks.bench_models and bench_kernel from here.
REPO = Path(__file__).resolve().parents[2]

SETUP = """import sys, time, torch, torchlens as tl, torchlens_widgets as tlw
sys.path.insert(0, {repo!r})
from benchmarks.bench_kernel import (
    best_ms, explored, held_mb, me_expand_targets, memory_strip_reply, netron_expand_target,
    netron_export, other_run, shown, shown_first, write_served_files, _export_cache)
from torchlens import observe
from benchmarks.bench_models import build
model, x = build({case!r})
with torch.no_grad():
    log = tl.trace(model, x)
clicks, started = [], {{}}"""


def widget_cell(key: str, call: str) -> str:
    """The cell of widget ``key``: when it started and when ``call`` returned (the rest is the page's)."""
    return f"started[{key!r}] = time.time()\n{key} = {call}\nstarted[{key + '_made'!r}] = time.time()\n{key}"


CELLS = [widget_cell("me", "tlw.explore(log)"), widget_cell("nt", "tlw.explore(log, viewer='netron')")]
ME_CELL, NETRON_CELL = 0, 1
