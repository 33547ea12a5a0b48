"""Where a Model Explorer widget's first draw spends its time: one timeline per widget.

    .venv/bin/python -m benchmarks.probe_me_boot --case gpt2 --widgets 3
    PYTHONPATH=/path/to/another/checkout .venv/bin/python -m benchmarks.probe_me_boot   # an A/B

One JupyterLab page, tall enough for every widget to be on screen, runs ``--widgets`` cells that each
show the case's trace in Model Explorer, one after the other. A script injected into the page and every
frame before their own scripts records, with the machine's clock: the widget's status lines, the frame's
start, each message between the page and the frame (the boot, the app's graph request, the app's ready
and the shim's "rendered"), the app's first DOM and canvas, its layout worker, and long tasks. Each
widget's events print in ms after its cell started, with the kernel's explore() span. Figures, not a test.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from benchmarks.lab_page import RUN_CELL, lab_page, trace_cell

CELL = "started = time.time()\nw = tlw.explore(log)\nspans.append((started, time.time()))\nw"

# [epoch ms, what] pairs in window.__tlwBoot of the page and of each frame.
PROBE = r"""(() => {
  if (window.__tlwBoot) return;
  const events = (window.__tlwBoot = []);
  const mark = (what) => events.push([Date.now(), what]);
  const page = window.top === window;
  if (!page) mark("frame: document starts");
  window.addEventListener("message", (event) => {
    const cmd = event.data && event.data.cmd;
    if (cmd) mark(`${page ? "page" : "frame"} hears ${cmd}`);
  }, true);
  if (page) {
    new MutationObserver(() => {
      for (const status of document.querySelectorAll(".tlw-status")) {
        if (status.__seen === status.textContent) continue;
        status.__seen = status.textContent;
        mark(`status: ${status.textContent.slice(0, 48)}`);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
    return;
  }
  const RealWorker = window.Worker;
  if (RealWorker) window.Worker = class extends RealWorker {
    constructor(url, options) { mark("frame: layout worker starts"); super(url, options); }
  };
  const seen = new Set();
  new MutationObserver(() => {
    for (const selector of ["app-root *", "webgl-renderer canvas"]) {
      if (seen.has(selector) || !document.querySelector(selector)) continue;
      seen.add(selector);
      mark(`frame: first ${selector}`);
    }
  }).observe(document, { subtree: true, childList: true });
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) {
      if (task.duration >= 200) mark(`frame: long task ${Math.round(task.duration)} ms`);
    }
  }).observe({ type: "longtask", buffered: true });
})()"""
DRAWN = "n => document.querySelectorAll('.tlw-status[data-state=ready]').length >= n"


def events_of(page: Any) -> list[tuple[float, str]]:
    """Every event the page and its frames recorded so far, emptied for the next widget."""
    found: list[tuple[float, str]] = []
    for frame in page.frames:
        try:
            found += [
                (at, what)
                for at, what in frame.evaluate("window.__tlwBoot ? window.__tlwBoot.splice(0) : []")
            ]
        except Exception:  # a frame removed meanwhile
            continue
    return sorted(found)


def run(args: argparse.Namespace) -> None:
    setup = trace_cell(args.case, "spans = []")
    with lab_page("boot.ipynb", [setup] + [CELL] * args.widgets, height=900 * args.widgets) as lab:
        lab.page.context.add_init_script(PROBE)
        lab.page.reload()  # the probe runs from the page's first script on
        lab.page.wait_for_selector(".jp-Notebook", timeout=60_000)
        lab.kernel.run(setup, timeout=1800)
        for cell in range(1, args.widgets + 1):
            events_of(lab.page)  # nothing from the previous widget's after-work
            started = time.time() * 1000
            lab.page.evaluate(RUN_CELL, cell)
            lab.page.wait_for_function(DRAWN, arg=cell, timeout=300_000)
            time.sleep(args.pause)  # the frame's last long task is reported a moment later
            explore_start, explore_end = lab.kernel.value("spans[-1]")
            print(
                f"--- widget {cell} ({args.case}): kernel explore() {explore_start * 1000 - started:.0f}-"
                f"{explore_end * 1000 - started:.0f} ms"
            )
            for at, what in events_of(lab.page):
                if at >= started:
                    print(f"{at - started:7.0f}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="gpt2", help="a case of bench_models.py (default gpt2)")
    parser.add_argument("--widgets", type=int, default=2)
    parser.add_argument(
        "--pause", type=float, default=1.0, help="seconds after each draw before the next cell (default 1)"
    )
    run(parser.parse_args())


if __name__ == "__main__":
    main()
