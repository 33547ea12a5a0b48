"""A click in the viewer -> on_select in the kernel -> the status line updated in the browser."""

from __future__ import annotations

from benchmarks.bench_explore.cells import ME_CELL, NETRON_CELL
from benchmarks.bench_explore.notebook import Notebook
from benchmarks.bench_explore.page_scripts import BACK_AT, WATCH_CLICKS
from benchmarks.bench_explore.results import Results, step
from tests.helpers.harness import KernelAccess


def click_round_trips(
    notebook: Notebook, cell: int, command: str, key: str, targets: list[tuple[str, str]], count: int
) -> tuple[list[float], list[float]]:
    """Clicks ``targets`` ((selector in the frame, node label) pairs) in turn: ms to kernel, and back."""
    page, kernel = notebook.page, notebook.kernel
    kernel.run(f"{key}.on_select(lambda record: clicks.append(time.time()))")
    page.evaluate(WATCH_CLICKS, [cell, command])
    frame = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("iframe.tlw-frame").content_frame
    to_kernel, round_trip = [], []
    for i in range(count):
        target, label = targets[i % len(targets)]
        before = kernel.value("len(clicks)")
        clicked_after = page.evaluate("Date.now()")
        click = frame.locator(target).first
        if key == "me":  # found through Model Explorer's search bar, Alt+click selects without zooming
            frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(
                f"^torchlens_label={label}$".replace("(", r"\(").replace(")", r"\)")
            )
            click.wait_for(timeout=30_000)
            click.click(modifiers=["Alt"])
        else:
            click.click()
        kernel.wait_for(f"len(clicks) > {before}", True, timeout=30)
        page.wait_for_function(f"() => ({BACK_AT})([{label!r}, {clicked_after}]) !== null", timeout=30_000)
        clicked = page.evaluate("window.__clickAt[window.__clickAt.length - 1]")
        to_kernel.append(kernel.value("clicks[-1]") * 1000 - clicked)
        round_trip.append(page.evaluate(BACK_AT, [label, clicked_after]) - clicked)
    return to_kernel, round_trip


def me_click_targets(kernel: KernelAccess, count: int) -> list[tuple[str, str]]:
    """Nodes from the second half of the execution graph: their search result, their label."""
    nodes = "me._source.payload.collection['graphs'][0]['nodes']"
    labels = kernel.value(
        f"[a['value'] for n in {nodes}[len({nodes}) // 2:] for a in n['attrs'] "
        "if a['key'] == 'torchlens_label']"
    )[:count]
    ids = [kernel.value(f"me._source.index.id_of_label({label!r})") for label in labels]
    return [
        (f'search-bar mat-tree-node[data-id="{i}"] .edge-node', label)
        for i, label in zip(ids, labels, strict=True)
    ]


def netron_click_targets(kernel: KernelAccess) -> list[tuple[str, str]]:
    """Two boxes of the root graph (module calls first), clicked in turn: a repeat is no new selection."""
    entries = kernel.value(
        "sorted(((not e.module_address, e.node_id, e.label) for e in nt._source.index if not e.graph))[:2]"
    )
    return [(f'g.node[id="node-name-{node_id}"] .node-item-type', label) for _, node_id, label in entries]


def clicks(results: Results, case: str, notebook: Notebook, count: int) -> None:
    kernel = notebook.kernel
    with step(results, case, ("me_click_kernel", "me_click_round")):
        me = click_round_trips(
            notebook, ME_CELL, "model-explorer-node-selected", "me", me_click_targets(kernel, count), count
        )
        results.put("me_click_kernel", case, me[0])
        results.put("me_click_round", case, me[1])
    with step(results, case, ("netron_click_kernel", "netron_click_round")):
        targets = netron_click_targets(kernel)
        netron = click_round_trips(notebook, NETRON_CELL, "tlw-netron-selected", "nt", targets, count)
        results.put("netron_click_kernel", case, netron[0])
        results.put("netron_click_round", case, netron[1])
