"""What Model Explorer frames cost the browser: each widget's draw, then the CPU the page uses at rest.

    .venv/bin/python -m benchmarks.probe_frame_cost --widgets 3
    PYTHONPATH=/path/to/another/checkout .venv/bin/python -m benchmarks.probe_frame_cost   # an A/B

One JupyterLab page, tall enough for every widget to be on screen, runs ``--widgets`` cells that each
show GPT-2 small in Model Explorer, one after the other. It prints each widget's draw time (the
widget's own renderMs: graph in the page -> drawn), then, with every widget drawn and nothing
happening, the CPU time Chromium's processes used over ``--rest`` seconds, by process type (from
/proc: Linux only). Figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks.lab_page import RUN_CELL, lab_page, trace_cell

CELL = "tlw.explore(log)"
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def chromium_cpu_ticks() -> dict[str, tuple[str, int]]:
    """pid -> (process type, user + system CPU ticks so far) for every Chromium process."""
    found: dict[str, tuple[str, int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "chromium" not in command:
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        types = ("renderer", "gpu-process", "utility")
        kind = next((k for k in types if f"--type={k}" in command), "browser")
        found[pid] = (kind, int(fields[11]) + int(fields[12]))
    return found


def cpu_at_rest(seconds: float) -> dict[str, float]:
    """Percent of one core each Chromium process type used over ``seconds``."""
    before = chromium_cpu_ticks()
    time.sleep(seconds)
    after = chromium_cpu_ticks()
    used: dict[str, float] = {}
    for pid, (kind, ticks) in after.items():
        if pid in before:
            used[kind] = used.get(kind, 0.0) + (ticks - before[pid][1]) / TICKS_PER_SECOND / seconds * 100
    return {kind: round(percent, 1) for kind, percent in sorted(used.items())}


def run(args: argparse.Namespace) -> None:
    setup = trace_cell("gpt2")
    cells = [setup] + [CELL] * args.widgets
    with lab_page("frame-cost.ipynb", cells, height=900 * args.widgets) as lab:
        for cell in range(1, args.widgets + 1):
            lab.page.evaluate(RUN_CELL, cell)
            lab.page.wait_for_function(
                "n => document.querySelectorAll('.tlw-status[data-state=ready]').length >= n",
                arg=cell,
                timeout=300_000,
            )
            render_ms = lab.page.evaluate(
                "i => document.querySelectorAll('.tlw-root')[i].parentElement.dataset.renderMs", cell - 1
            )
            print(f"widget {cell}: graph in page -> drawn {render_ms} ms")
        lab.page.wait_for_timeout(3_000)  # the last draw's after-work (the saved picture) is done
        rest = cpu_at_rest(args.rest)
        print(f"at rest, {args.rest:g} s, % of one core by Chromium process type: {rest}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widgets", type=int, default=3)
    parser.add_argument("--rest", type=float, default=10.0, help="seconds of rest to measure")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
