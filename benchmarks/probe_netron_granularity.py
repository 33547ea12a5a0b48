"""What Netron does with a big trace at each granularity: one widget per granularity, in a real page.

    .venv/bin/python -m benchmarks.probe_netron_granularity --case synthetic-50k

One JupyterLab page shows the case's trace in Netron at each ``--granularities`` in turn, one cell each.
For each it prints the kernel's export (explore() and the first graph reply, timed in the kernel), the
cell -> drawn time (or the widget's error, or "not drawn" after ``--timeout`` s), the nodes Netron drew
in its SVG and torchlens' warnings about the graph's extent. Figures, not a test.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from benchmarks.lab_page import RUN_CELL, lab_page, trace_cell

# Widget g's cell: the kernel's own export time is measured first (the view's request then finds it).
CELL = """started = time.time()
g = tlw.explore(log, viewer="netron", granularity={granularity!r}, height=600)
g._answer_graph({{}})
exported[{granularity!r}] = time.time() - started
g"""

# The cell's widget: its status ("ready", "error") and what its Netron frame drew.
STATE = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  const status = root?.querySelector('.tlw-status');
  const frame = root?.querySelector('iframe.tlw-frame');
  return {state: status?.dataset.state || '', text: root?.querySelector('.tlw-error')?.textContent || '',
          renderedAt: Number(root?.parentElement.dataset.renderedAt || 0), hasFrame: !!frame};
}"""


def drawn_nodes(page: Any, cell: int) -> int:
    """The node boxes in the cell's Netron SVG."""
    frame = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("iframe.tlw-frame").content_frame
    return int(frame.locator("#canvas g.node").count())


def run(args: argparse.Namespace) -> None:
    cells = [trace_cell(args.case, "exported = {}")]
    cells += [CELL.format(granularity=granularity) for granularity in args.granularities]
    with lab_page("granularity.ipynb", cells, height=800) as lab:
        for cell, granularity in enumerate(args.granularities, start=1):
            lab.page.locator(".jp-Notebook .jp-Cell").nth(cell).scroll_into_view_if_needed()
            started = time.time() * 1000
            lab.page.evaluate(RUN_CELL, cell)
            deadline = time.monotonic() + args.timeout
            state: dict[str, Any] = {}
            while time.monotonic() < deadline:
                state = lab.page.evaluate(STATE, cell)
                if state["state"] in ("ready", "error"):
                    break
                lab.page.wait_for_timeout(250)
            export_s = lab.kernel.value(f"exported.get({granularity!r})")
            info = lab.kernel.value("g._graph_info") if export_s is not None else {}
            if state.get("state") == "ready":
                boxes = drawn_nodes(lab.page, cell)
                outcome = f"drawn in {state['renderedAt'] - started:,.0f} ms, {boxes:,} boxes"
            elif state.get("state") == "error":
                outcome = f"error: {state['text'][:300]}"
            else:
                outcome = f"not drawn after {args.timeout} s (status {state.get('state')!r})"
            export = f"{export_s * 1000:,.0f} ms" if export_s is not None else "not finished"
            print(f"--- {args.case}, granularity {granularity!r}: explore() + graph reply, kernel: {export}")
            print(f"    root graph nodes: {(info.get('graphs') or {}).get(granularity, '-')}; {outcome}")
            for warning in info.get("warnings") or []:
                print(f"    torchlens: {warning[:300]}")
            lab.page.locator(".jp-Notebook .jp-Cell").nth(cell).screenshot(
                path=f"{args.screenshots}/netron-{args.case}-{granularity}.png"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="synthetic-50k", help="a case of bench_models.py")
    parser.add_argument("--granularities", nargs="+", default=["module", "op"])
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for each draw")
    parser.add_argument("--screenshots", default="/tmp", help="where each widget's picture is saved")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
