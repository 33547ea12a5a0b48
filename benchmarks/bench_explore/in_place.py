"""What a reader does to a graph already drawn: switch its overlay, set a baseline, highlight a few ops.
Each is timed from the kernel's change to the view's next draw (its `draws` counter, never a status left
from before), on the widgets inline() drew last, beside the same widget's first draw."""

from __future__ import annotations

import time
from dataclasses import dataclass

from benchmarks.bench_explore.cells import ME_CELL, NETRON_CELL
from benchmarks.bench_explore.notebook import Notebook
from benchmarks.bench_explore.page_scripts import RENDER_TIMEOUT_MS
from benchmarks.bench_explore.results import Results

# The view in cell i, once it has drawn more than `before` times and is ready again.
DRAWN_AGAIN = """([i, before]) => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  const data = root?.parentElement.dataset;
  const status = root?.querySelector('.tlw-status');
  if (!data || Number(data.draws || 0) <= before || status.dataset.state === 'loading') return null;
  if (status.dataset.state === 'error') return {error: root.innerText};
  return {...data};
}"""

# The view's draw count, after marking its frame element (a frame that survives the change keeps it).
MARK_FRAME = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  const frame = root?.querySelector('iframe.tlw-frame');
  if (frame) frame.tlwBeforeChange = true;
  return Number(root?.parentElement.dataset.draws || 0);
}"""
SAME_FRAME = """i => !!document.querySelectorAll('.jp-Notebook .jp-Cell')[i]
  ?.querySelector('.tlw-root iframe.tlw-frame')?.tlwBeforeChange"""

# Each change and the one that undoes it, so every repeat starts from the same state. A row of None is
# a statement run untimed, to set the state up.
OVERLAYS = ("time", "flops", "bytes", "")
SETUP = """marked = [label for label in log.layer_labels[len(log.layer_labels) // 3:][:12]]
if 'base_a' not in globals():  # two other runs of the model: baselines whose deltas are not zero
    base_a, base_b = other_run(model, x, 1), other_run(model, x, 2)"""
# A baseline a reader sees: its delta shown. It is set with its delta untimed, then switched to the other
# run (its delta recoloured; the first round: torchlens' diff_report too) and back, then cleared (the
# delta goes with it). A baseline set with no delta shown changes no pixel of the graph.
BASELINE_CHANGES = [
    (None, "{w}.baseline = base_a\n{w}.overlay = 'delta'"),
    ("baseline", "{w}.baseline = base_b"),
    ("baseline", "{w}.baseline = base_a"),
    ("unbaseline", "{w}.baseline = None"),
]
# Each statement's row ("unbaseline": the baseline cleared).
CHANGES: dict[str, list[tuple[str | None, str]]] = {
    "overlay": [("overlay", f"{{w}}.overlay = {overlay!r}") for overlay in OVERLAYS],
    "baseline": BASELINE_CHANGES,
    "highlight": [("highlight", "{w}.highlight(marked)"), ("highlight", "{w}.highlight(None)")],
}


# A reader changes a drawn graph seconds after it drew, not while the page still works: by then a
# Model Explorer app has been parked for the next explorer (js/model-explorer/parked-app.ts, seconds of
# CPU on two cores), which would otherwise be timed with the change.
QUIET_S = 4.0


def quiet(notebook: Notebook) -> None:
    """Waits QUIET_S in the page's event loop, not asleep: what the page sends meanwhile (a screencast's
    frames, pixels.py) is taken and answered as it comes."""
    notebook.page.wait_for_timeout(QUIET_S * 1000)


@dataclass
class Timed:
    """One change: ms from the kernel running it to drawn, whether the frame it had drew it, and of
    those ms the kernel's (the statement: torchlens' work), until the view asked (for the graph, or
    for its colours only when the change is one), until the reply was in the page and the browser's
    (reply in page -> drawn)."""

    ms: float
    same_frame: bool
    kernel_ms: float | None = None
    asked_ms: float | None = None  # the kernel's change -> the view asked for the graph or its colours
    reply_ms: float | None = None  # the view asked -> the graph (or its colours) in page
    browser_ms: float | None = None


def _timed(notebook: Notebook, cell: int, statement: str) -> Timed:
    """Times ``statement`` to the view's next draw (see Timed)."""
    quiet(notebook)
    before = notebook.page.evaluate(MARK_FRAME, cell)
    notebook.kernel.run(f"started['change'] = time.time()\n{statement}\nstarted['changed'] = time.time()")
    timings = notebook.page.wait_for_function(
        DRAWN_AGAIN, arg=[cell, before], timeout=RENDER_TIMEOUT_MS
    ).json_value()
    if "error" in timings:
        raise RuntimeError(timings["error"])
    started, changed = (notebook.kernel.value(f"started[{key!r}]") * 1000 for key in ("change", "changed"))
    return Timed(
        ms=float(timings["renderedAt"]) - started,
        same_frame=bool(notebook.page.evaluate(SAME_FRAME, cell)),
        kernel_ms=changed - started,
        asked_ms=float(timings["drawStartedAt"]) - changed,
        reply_ms=float(timings["graphLandedAt"]) - float(timings["drawStartedAt"]),
        browser_ms=float(timings["renderMs"]),
    )


# Model Explorer's marks are no draw either: the view notes when the frame said they are painted.
MARKED_AT = """i => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]
  ?.querySelector('.tlw-root')?.parentElement.dataset.markedAt || ''"""
MARKED_AGAIN = f"""([i, before]) => {{
  const at = ({MARKED_AT})(i);
  return at && at !== before ? at : null;
}}"""


def _timed_me_marks(notebook: Notebook, cell: int, statement: str) -> Timed:
    """Ms from the kernel running ``statement`` until the frame said its marks are on the canvas."""
    page = notebook.page
    quiet(notebook)
    page.evaluate(MARK_FRAME, cell)
    before = page.evaluate(MARKED_AT, cell)
    notebook.kernel.run(f"started['change'] = time.time()\n{statement}")
    at = page.wait_for_function(MARKED_AGAIN, arg=[cell, before], timeout=RENDER_TIMEOUT_MS).json_value()
    ms = float(at) - notebook.kernel.value("started['change']") * 1000
    return Timed(ms, bool(page.evaluate(SAME_FRAME, cell)))


def _timed_netron_marks(notebook: Notebook, cell: int, statement: str) -> Timed:
    """A Netron highlight is no draw: the frame marks boxes on its SVG (class tlw-highlight). Ms from
    before the kernel runs ``statement`` until the frame's marks changed, polled from here (every
    20 ms, so up to that much late)."""
    page = notebook.page
    quiet(notebook)
    page.evaluate(MARK_FRAME, cell)
    frame = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("iframe.tlw-frame").content_frame
    marks = frame.locator("g.node.tlw-highlight")
    before = marks.count()
    started = time.monotonic()
    notebook.kernel.run(statement)
    while marks.count() == before:
        if time.monotonic() - started > RENDER_TIMEOUT_MS / 1000:
            raise TimeoutError(f"Netron's marks stayed {before} after {statement!r}")
        page.wait_for_timeout(20)
    return Timed((time.monotonic() - started) * 1000, bool(page.evaluate(SAME_FRAME, cell)))


MARKS = {"me": _timed_me_marks, "netron": _timed_netron_marks}


def in_place(results: Results, case: str, notebook: Notebook, repeat: int) -> None:
    """Times each change in CHANGES on both viewers' widgets (the page inline() left), ``repeat``
    rounds each; the rows are "<viewer>_<change>" and their ratio to the first widget's draw."""
    notebook.kernel.run(SETUP, timeout=1800)
    viewers: list[tuple[str, int, str]] = [("me", ME_CELL, "me"), ("netron", NETRON_CELL, "nt")]
    for viewer, cell, widget in viewers:
        notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).scroll_into_view_if_needed()
        for change, statements in CHANGES.items():
            samples: dict[str, list[float]] = {}
            kept: dict[str, int] = {}
            for _ in range(repeat):
                for row, statement in statements:
                    if row is None:
                        notebook.kernel.run(statement.format(w=widget), timeout=1800)
                        continue
                    timer = MARKS[viewer] if change == "highlight" else _timed
                    timed = timer(notebook, cell, statement.format(w=widget))
                    samples.setdefault(row, []).append(timed.ms)
                    kept[row] = kept.get(row, 0) + timed.same_frame
                    parts = (
                        ("_kernel", timed.kernel_ms),
                        ("_asked", timed.asked_ms),
                        ("_reply", timed.reply_ms),
                        ("_browser", timed.browser_ms),
                    )
                    for part, ms in parts:
                        if ms is not None:
                            samples.setdefault(row + part, []).append(ms)
            for row, times in samples.items():
                results.put(f"{viewer}_{row}", case, times)
            for row, count in kept.items():
                results.put(f"{viewer}_{row}_kept", case, f"{count} of {len(samples[row])}")
