"""python -m benchmarks.bench_compare [--runs 8] [--repeat 2]: many runs of GPT-2 small on one graph.

In a real JupyterLab in headless Chromium (software WebGL), one kernel, random weights: ``--runs``
traces of GPT-2 small, each a training-like step away from the one before (the weights moved by a
little noise). Prints, beside a single explorer of the first run:

- first draw (cell -> drawn) of ``tlw.compare(runs)`` and of ``tlw.explore(run0)``, each on a fresh page;
- a scrub (``c.run`` set to the next run; kernel change -> the view's next draw), on the first,
  collapsed view and on the graph opened to an op selected deep inside it (as a reader's click opens it),
  each then back over the runs just shown (a run's first visit takes torchlens' ``diff_report`` of it,
  computed while the reader looked at the run before: the next run the way they scrub is computed ahead;
  back, its colours were seen before: the kernel and the view keep what they made of them);
- the same comparison in Netron: its first draw and scrubs to the next run (its view's draw counter);
- the kernel's memory per extra run (tracemalloc), beside one trace's Model Explorer export size.

Figures, never assertions; they move up to 2x between runs on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_explore.cells import REPO, widget_cell
from benchmarks.bench_explore.in_place import Timed, _timed
from benchmarks.bench_explore.notebook import Notebook
from tests.helpers.harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer, open_notebook
from tests.helpers.notebook import OUTPUTS_TEXT

SETUP = """import sys, time, copy, json, torch, torchlens as tl, torchlens_widgets as tlw
sys.path.insert(0, {repo!r})
from benchmarks.bench_kernel import held_mb, shown, _export_cache
from benchmarks.bench_models import build
model, x = build("gpt2")
runs, started = {{}}, {{}}
with torch.no_grad():
    for step in range({runs}):
        runs[f"step{{step}}"] = tl.trace(model, x)
        for parameter in model.parameters():  # a training-like step: every weight moves a little
            parameter.add_(torch.randn_like(parameter) * 1e-3)
names = list(runs)
# An op a third of the way down, deep inside its block: selecting it opens the layers around it.
addmms = [label for label in runs["step0"].layer_labels if label.startswith("addmm")]
deep = addmms[len(addmms) // 3]
others = names[1:]  # the runs with a delta from the reference (step0) to show"""
CELLS = [
    widget_cell("me", "tlw.explore(runs['step0'])"),
    widget_cell("c", "tlw.compare(runs, height=560)"),
    widget_cell("n", "tlw.compare(runs, viewer='netron', height=560)"),
]
ME_CELL, COMPARE_CELL, NETRON_CELL = 0, 1, 2


def median(values: list[float]) -> float:
    return statistics.median(values)


# Where a scrub's time goes, as bench_explore splits an in-place change (in_place.Timed).
SCRUB_PARTS = (
    ("kernel", "kernel_ms"),
    ("asked", "asked_ms"),
    ("reply", "reply_ms"),
    ("browser", "browser_ms"),
)


# Inside the comparison's Model Explorer frame: from now on, every animation frame compares a 64x64 copy
# of the graph canvas with the one taken now, and keeps the wall-clock time of the first that differs.
WATCH_PIXELS = """() => {
  const canvas = document.querySelector('webgl-renderer canvas.main');
  const probe = document.createElement('canvas');
  probe.width = probe.height = 64;
  const context = probe.getContext('2d', { willReadFrequently: true });
  const look = () => {
    context.drawImage(canvas, 0, 0, 64, 64);
    return context.getImageData(0, 0, 64, 64).data.join(',');
  };
  const before = look();
  window.tlwPixelsAt = 0;
  const tick = () => (look() !== before ? (window.tlwPixelsAt = Date.now()) : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
}"""


def scrubs(notebook: Notebook, count: int, key: str, figures: dict[str, list[float]], step: int = 1) -> None:
    """``count`` scrubs to the next run (``step`` -1: the one before), each from the run shown: their ms in
    ``figures[key]``, each part's in ``figures[f"{key}_{part}"]``, and ms until the frame's pixels changed
    in ``figures[f"{key}_pixels"]`` (read in the frame, every animation frame)."""
    cell = notebook.page.locator(".jp-Notebook .jp-Cell").nth(COMPARE_CELL)
    handle = cell.locator("iframe.tlw-frame").first.element_handle()
    frame = handle.content_frame() if handle else None
    if frame is None:
        raise RuntimeError("no Model Explorer frame in the comparison's cell")
    for _ in range(count):
        statement = f"c.run = others[(others.index(c.run) + {step}) % len(others)]"
        frame.evaluate(WATCH_PIXELS)
        timed = _timed(notebook, COMPARE_CELL, statement)
        keep(timed, key, figures)
        changed_at = frame.wait_for_function("() => window.tlwPixelsAt || null", timeout=30_000).json_value()
        started = notebook.kernel.value("started['change']") * 1000
        figures.setdefault(f"{key}_pixels", []).append(float(changed_at) - started)


def netron_scrubs(notebook: Notebook, count: int, key: str, figures: dict[str, list[float]]) -> None:
    """``count`` scrubs of the Netron comparison to the next run: ms until its view's next draw (Netron
    draws SVG: no canvas to read in the frame), with each part's ms as ``scrubs`` keeps them."""
    for _ in range(count):
        statement = "n.run = others[(others.index(n.run) + 1) % len(others)]"
        keep(_timed(notebook, NETRON_CELL, statement), key, figures)


def keep(timed: Timed, key: str, figures: dict[str, list[float]]) -> None:
    """A scrub's ms in ``figures[key]`` and each part's in ``figures[f"{key}_{part}"]``."""
    figures.setdefault(key, []).append(timed.ms)
    for part, field in SCRUB_PARTS:
        value = getattr(timed, field)
        if value is not None:
            figures.setdefault(f"{key}_{part}", []).append(value)


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as root, sync_playwright() as playwright:
        server = JupyterServer(Path(root)).start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            name = server.write_notebook("compare.ipynb", CELLS)
            # Tall enough for both widgets: a view draws only once its frame is in the viewport.
            page = browser.new_page(viewport={"width": 1400, "height": 2200})
            open_notebook(page, server, name)
            kernel = server.kernel_for(name)
            kernel.run(SETUP.format(repo=str(REPO), runs=args.runs), timeout=1800)
            notebook = Notebook(page, kernel)
            for attempt in range(args.repeat):
                if attempt:
                    open_notebook(page, server, name)  # a fresh page: the viewer's assets cross again
                kernel.run("_export_cache.clear()")
                drawn = notebook.cell_to_render_ms(ME_CELL, "me")[""]
                figures.setdefault("explore_first", []).append(drawn)
                page.locator(".jp-Notebook .jp-Cell").nth(COMPARE_CELL).scroll_into_view_if_needed()
                drawn = notebook.cell_to_render_ms(COMPARE_CELL, "c")[""]
                figures.setdefault("compare_first", []).append(drawn)
            scrubs(notebook, 2 * args.repeat, "scrub_collapsed", figures)
            scrubs(notebook, 2 * args.repeat, "scrub_collapsed_back", figures, step=-1)
            kernel.run("c.select(deep)")
            time.sleep(4)  # the layers around it opened and drawn
            scrubs(notebook, 2 * args.repeat, "scrub_opened", figures)
            # Back over the runs just shown, as a reader scrubs back: each run's colours seen before.
            scrubs(notebook, 2 * args.repeat, "scrub_opened_back", figures, step=-1)
            # The same comparison in Netron: its first draw, then scrubs, each run's first visit.
            page.locator(".jp-Notebook .jp-Cell").nth(NETRON_CELL).scroll_into_view_if_needed()
            figures["netron_first"] = [notebook.cell_to_render_ms(NETRON_CELL, "n")[""]]
            netron_scrubs(notebook, 2 * args.repeat, "netron_scrub", figures)
            traced = {
                k: kernel.value(f"held_mb(lambda: shown(tlw.compare(dict(list(runs.items())[:{k}]))), 1)[0]")
                for k in (2, args.runs)
            }
            figures["memory_per_run_mb"] = [(traced[args.runs] - traced[2]) / (args.runs - 2)]
            figures["export_mb"] = [
                kernel.value("len(json.dumps(tl.export.to_model_explorer_dict(runs['step0']))) / 2**20")
            ]
            kernel.close()
        except Exception:
            # What the page showed when it failed: the cells' outputs (a widget's status line, an error).
            print(f"the page's outputs when the benchmark failed: {page.evaluate(OUTPUTS_TEXT)}")
            raise
        finally:
            browser.close()
            server.stop()
    first = median(figures["explore_first"])
    print(f"\ntlw.compare benchmark, {time.strftime('%Y-%m-%d')}: {args.runs} runs of GPT-2 small, medians")
    print(f"  explore(step0): cell -> drawn, ms            {first:8.0f}")
    compare_first = median(figures["compare_first"])
    ratio = compare_first / first
    print(f"  compare({args.runs} runs): cell -> drawn, ms          {compare_first:8.0f}  ({ratio:.2f}x)")
    scrubbed = (
        ("scrub_collapsed", "first view"),
        ("scrub_collapsed_back", "first view, back a run"),
        ("scrub_opened", "opened to a deep op"),
        ("scrub_opened_back", "opened, back a run"),
    )
    for key, title in scrubbed:
        ms = median(figures[key])
        print(f"  scrub to the next run, {title:20} ms {ms:6.0f}  ({ms / compare_first:.2f}x its first draw)")
        parts = ", ".join(f"{part} {median(figures[f'{key}_{part}']):.0f}" for part, _ in SCRUB_PARTS)
        print(f"    of which: {parts}; its pixels changed at {median(figures[f'{key}_pixels']):.0f} ms")
    netron_first = figures["netron_first"][0]
    print(f"  compare in Netron: cell -> drawn, ms          {netron_first:8.0f}")
    ms = median(figures["netron_scrub"])
    ratio = ms / netron_first
    print(f"  scrub to the next run, Netron              ms {ms:6.0f}  ({ratio:.2f}x its first draw)")
    parts = ", ".join(f"{part} {median(figures[f'netron_scrub_{part}']):.0f}" for part, _ in SCRUB_PARTS)
    print(f"    of which: {parts} (the view's draw counter; Netron draws SVG, no canvas to read)")
    print(f"  kernel memory per extra run, MB              {figures['memory_per_run_mb'][0]:8.1f}")
    print(f"  one run's Model Explorer export (JSON), MB   {figures['export_mb'][0]:8.1f}")
    print(f"  all samples: { {key: [round(v) for v in values] for key, values in figures.items()} }")


if __name__ == "__main__":
    main()
