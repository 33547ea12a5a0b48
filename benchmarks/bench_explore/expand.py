"""A module group opened on a drawn graph, in the widget's frame and in the viewer's own served page, by
the same script inside each page: Model Explorer reveals an op inside collapsed layers (its own
select-node message, which expands every layer on the way), Netron opens a module call's body (a click
on its box's "show function" icon, then back). Timed inside the page, until painted. Then, on Model
Explorer's graph left opened (its last target selected, the layers around it expanded), the overlays,
baseline and highlight of the inplace part, timed as there and read from the page's pixels too
(pixels.py): a frame of an opened graph costs many times a collapsed one's in software WebGL, so how
many the app draws per change shows here. Last, the memory strip shown under that graph, and its mark
moved by selects."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.bench_explore.cells import ME_CELL, NETRON_CELL
from benchmarks.bench_explore.in_place import BASELINE_CHANGES, SETUP, Timed, _timed, _timed_me_marks, quiet
from benchmarks.bench_explore.notebook import Notebook
from benchmarks.bench_explore.page_scripts import RENDER_TIMEOUT_MS
from benchmarks.bench_explore.pixels import PagePixels, canvas_box
from benchmarks.bench_explore.results import Results, step
from tests.helpers.harness import KernelAccess

# Model Explorer: ms from its select-node message for `nodeId` until every layer holding it is expanded
# in the graph the renderer draws and two frames painted. Refuses a node already shown.
ME_EXPAND = f"""async (nodeId) => {{
  const renderer = window.me_test?.renderers?.['0'];
  if (!renderer) throw new Error('no Model Explorer renderer on this page');
  const shown = () => {{
    const graph = renderer.curModelGraph;
    const node = graph?.nodesById[nodeId];
    if (!node) return false;
    for (let parent = node.nsParentId; parent; parent = graph.nodesById[parent]?.nsParentId) {{
      if (!graph.nodesById[parent]?.expanded) return false;
    }}
    return true;
  }};
  if (shown()) throw new Error(nodeId + ' is shown already: nothing to expand');
  const started = performance.now();
  window.postMessage({{cmd: 'model-explorer-select-node-by-node-id', nodeId}}, '*');
  await new Promise((resolve, reject) => {{
    const poll = () => {{
      if (shown()) requestAnimationFrame(() => requestAnimationFrame(resolve));
      else if (performance.now() - started > {RENDER_TIMEOUT_MS}) reject(new Error(nodeId + ' never shown'));
      else requestAnimationFrame(poll);
    }};
    poll();
  }});
  return performance.now() - started;
}}"""

# Netron: ms from a click on the "show function" icon of the box `name` on the root graph until its
# body is laid out on a new canvas and painted; then back to the root graph (not timed).
NETRON_EXPAND = f"""async (name) => {{
  const laidOut = (before) => new Promise((resolve, reject) => {{
    const started = performance.now();
    const poll = () => {{
      const canvas = document.getElementById('canvas');
      const drawn = canvas && canvas !== before && document.body.classList.contains('default')
        && canvas.querySelector('g.node[transform]');
      if (drawn) requestAnimationFrame(() => requestAnimationFrame(resolve));
      else if (performance.now() - started > {RENDER_TIMEOUT_MS}) reject(new Error(name + ' never drawn'));
      else requestAnimationFrame(poll);
    }};
    poll();
  }});
  const box = document.getElementById('node-name-' + name);
  const icons = box ? [...box.querySelectorAll('.node-item-type')] : [];
  const icon = icons.find((item) => item.querySelector('text')?.textContent === '\\u0192');
  if (!icon) throw new Error('no module-call box ' + name + ' with a body on the graph drawn');
  const root = document.getElementById('canvas');
  const started = performance.now();
  icon.dispatchEvent(new MouseEvent('click', {{bubbles: true}}));
  await laidOut(root);
  const ms = performance.now() - started;
  const opened = document.getElementById('canvas');
  const back = document.getElementById('toolbar-path-back-button');
  back.dispatchEvent(new MouseEvent('click', {{bubbles: true}}));
  await laidOut(opened);
  return ms;
}}"""


def me_expand_targets(kernel: KernelAccess, count: int) -> list[str]:
    """Ops in ``count`` different blocks, chosen in the kernel (bench_kernel.me_expand_targets): only
    their ids come back (a repr of every node would be cut at 1,000 items)."""
    return list(kernel.value(f"me_expand_targets(me._source.payload.collection, {count})"))


def netron_expand_target(kernel: KernelAccess) -> str:
    """The module call on Netron's root graph with the most boxes inside (bench_kernel)."""
    return str(kernel.value("netron_expand_target(nt._source.index)"))


def timed_in_widget(notebook: Notebook, cell: int, script: str, targets: list[str]) -> list[float]:
    """``script`` (an async function of one target, resolving with ms) run on each target in turn
    inside the viewer frame of the widget in ``cell``, each once the page has been quiet (as a reader
    acts on a drawn graph, not while the page still parks an app for the next explorer)."""
    notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).scroll_into_view_if_needed()
    frame = notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("iframe.tlw-frame").content_frame
    times = []
    for target in targets:
        quiet(notebook)
        times.append(frame.locator("body").evaluate(f"(_, target) => ({script})(target)", target))
    return times


# On the opened graph: an overlay set (from none), switched twice, switched to torchlens' memory picture,
# cleared; then a baseline with its delta shown switched and cleared, as in the inplace part. Each row's
# statements run in this order, ``repeat`` rounds (a row of None: untimed).
OPENED_CHANGES: tuple[tuple[str | None, str], ...] = (
    ("me_opened_overlay_on", "me.overlay = 'time'"),
    ("me_opened_overlay", "me.overlay = 'flops'"),
    ("me_opened_overlay", "me.overlay = 'bytes'"),
    ("me_opened_memory", "me.overlay = 'memory'"),  # torchlens' liveness, computed the first round
    ("me_opened_overlay_off", "me.overlay = ''"),
    *((row and f"me_opened_{row}", statement.format(w="me")) for row, statement in BASELINE_CHANGES),
)
# Then the twelve ops around the one the app shows selected (the expands' last, centred: on screen, as a
# reader's highlight is) highlighted and cleared. Ops off screen change no pixel: their marks would be
# timed to the frame's give-up, not to a paint.
OPENED_HIGHLIGHTS = (
    ("me_opened_highlight", "me.highlight(marked)"),
    ("me_opened_highlight", "me.highlight(None)"),
)
SELECTED_IN_APP = "() => window.me_test.renderers['0'].selectedNodeId"


def marked_around(node_id: str) -> str:
    """The statement that sets ``marked`` to the twelve op labels around node ``node_id``, in the trace's
    order."""
    return (
        f"_selected = me._source.index.label_of({node_id!r})\n"
        "_labels = list(log.layer_labels)\n"
        "_at = next(i for i, label in enumerate(_labels) if _selected.split(':')[0] == label.split(':')[0])\n"
        "marked = _labels[max(0, _at - 6):_at + 6]"
    )


OPENED_TIMED = (
    "me_opened_overlay_on",
    "me_opened_overlay",
    "me_opened_memory",
    "me_opened_overlay_off",
    "me_opened_baseline",
    "me_opened_unbaseline",
    "me_opened_highlight",
)
OPENED_ROWS = (
    *OPENED_TIMED,
    *(f"{row}_pixels" for row in OPENED_TIMED),
    "me_opened_pixels_seen",
    "me_opened_pixels_apart",
    "me_opened_pixels_steps",
)
# The screencast's last frames reach the bench a moment after the counter moved.
FRAMES_SETTLE_MS = 300


def me_opened_overlays(results: Results, case: str, notebook: Notebook, repeat: int) -> None:
    """Times OPENED_CHANGES and OPENED_HIGHLIGHTS on the Model Explorer widget as the expands left it
    (kernel change -> drawn; a highlight: -> the frame said its marks are on the canvas), and each the
    same from the page's own pixels (pixels.py): kernel change -> the first frame of the tab whose
    pixels over the canvas changed. Rows "<row>_pixels"; "me_opened_pixels_seen", of how many changes
    the pixels showed one; "me_opened_pixels_apart", pixels minus the widget's figure."""
    page, kernel = notebook.page, notebook.kernel
    kernel.run("me.overlay = ''\nme.baseline = None")  # from none, whatever the inplace part left
    kernel.run(SETUP, timeout=1800)  # the baselines, if the inplace part did not run
    samples: dict[str, list[float]] = {}
    seen = changes = 0
    screen = PagePixels(page)
    screen.start()
    try:

        def timed(row: str, timer: Callable[[Notebook, int, str], Timed], statement: str) -> None:
            nonlocal seen, changes
            box = canvas_box(page, ME_CELL)
            ms = timer(notebook, ME_CELL, statement).ms
            started = kernel.value("started['change']") * 1000
            page.wait_for_timeout(FRAMES_SETTLE_MS)
            pictures = screen.changes(started, box)
            screen.forget()
            samples.setdefault(row, []).append(ms)
            changes += 1
            samples.setdefault("me_opened_pixels_steps", []).append(len(pictures))
            if pictures:
                seen += 1
                samples.setdefault(f"{row}_pixels", []).append(pictures[0] - started)
                samples.setdefault("me_opened_pixels_apart", []).append(pictures[0] - started - ms)

        for _ in range(repeat):
            for row, statement in OPENED_CHANGES:
                if row is None:
                    kernel.run(statement, timeout=1800)
                else:
                    timed(row, _timed, statement)
        frame = page.locator(".jp-Notebook .jp-Cell").nth(ME_CELL).locator("iframe.tlw-frame")
        selected = frame.content_frame.locator("body").evaluate(SELECTED_IN_APP)
        kernel.run(marked_around(str(selected)))
        for _ in range(repeat):
            for row, statement in OPENED_HIGHLIGHTS:
                timed(row, _timed_me_marks, statement)
    finally:
        screen.stop()
    for row, times in samples.items():
        results.put(row, case, times)
    results.put("me_opened_pixels_seen", case, f"{seen} of {changes}")


# The memory strip of the widget in cell i: its data-* once shown and drawn anew (its mark: once the
# selected point is not `before`).
STRIP_DRAWN = """([i, before, key]) => {
  const data = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-strip')?.dataset;
  if (!data || data.visible !== 'true' || !data.drawnAt || (data[key] ?? '') === before) return null;
  return {...data};
}"""
STRIP_DATA = """i => ({
  ...document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-strip')?.dataset,
})"""
# Two ops a reader selects while the strip is shown: a quarter and three quarters down the trace.
STRIP_TARGETS = "strip_targets = [log.layer_labels[len(log.layer_labels) * k // 4] for k in (1, 3)]"
STRIP_ROWS = ("me_strip_shown", "me_strip_draw", "me_strip_mark")


def me_opened_strip(results: Results, case: str, notebook: Notebook, repeat: int) -> None:
    """The memory strip on the Model Explorer widget as the expands left it: shown (kernel change ->
    drawn; of that, its reply in the page -> drawn), then its mark moved by a select from Python
    (kernel change -> the strip's selected point drawn), then hidden; ``repeat`` rounds."""
    page, kernel = notebook.page, notebook.kernel
    kernel.run(STRIP_TARGETS)
    targets = list(kernel.value("strip_targets"))
    samples: dict[str, list[float]] = {}

    def drawn_after(statement: str, key: str) -> dict[str, str]:
        before = page.evaluate(STRIP_DATA, ME_CELL).get(key, "")
        kernel.run(f"started['change'] = time.time()\n{statement}")
        drawn = page.wait_for_function(STRIP_DRAWN, arg=[ME_CELL, before, key], timeout=RENDER_TIMEOUT_MS)
        return dict(drawn.json_value())

    for _ in range(repeat):
        quiet(notebook)
        data = drawn_after("me.timeline = 'memory'", "drawnAt")
        started = kernel.value("started['change']") * 1000
        samples.setdefault("me_strip_shown", []).append(float(data["drawnAt"]) - started)
        samples.setdefault("me_strip_draw", []).append(float(data["drawnAt"]) - float(data["repliedAt"]))
        for target in targets:
            quiet(notebook)
            data = drawn_after(f"me.select({target!r})", "selectedPoint")
            moved = float(data["drawnAt"]) - kernel.value("started['change']") * 1000
            samples.setdefault("me_strip_mark", []).append(moved)
        kernel.run("me.timeline = None")
    for row, times in samples.items():
        results.put(row, case, times)


def expand(results: Results, case: str, notebook: Notebook, repeat: int) -> tuple[list[str], str]:
    """Times the expands in both widgets (the page inline() left); returns the targets, for the served
    pages to time the same."""
    kernel = notebook.kernel
    me_targets = me_expand_targets(kernel, repeat)
    netron_target = netron_expand_target(kernel)
    with step(results, case, ("me_expand",)):
        results.put("me_expand", case, timed_in_widget(notebook, ME_CELL, ME_EXPAND, me_targets))
    with step(results, case, OPENED_ROWS):
        me_opened_overlays(results, case, notebook, repeat)
    with step(results, case, STRIP_ROWS):
        me_opened_strip(results, case, notebook, repeat)
    with step(results, case, ("netron_expand",)):
        targets = [netron_target] * repeat
        results.put("netron_expand", case, timed_in_widget(notebook, NETRON_CELL, NETRON_EXPAND, targets))
    return me_targets, netron_target
