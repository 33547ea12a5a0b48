"""Where a Model Explorer click's milliseconds go, and what the info panel costs; figures, not a test.

    .venv/bin/python -m benchmarks.probe_me_click --case gpt2 --clicks 10 --width 1100
    .venv/bin/python -m benchmarks.probe_me_click --modes open,closed --trace /tmp/click-trace

One JupyterLab page, one explorer in a widget ``--width`` px wide. For each mode (``open``: the app's
info panel as it starts; ``closed``: its own hide toggle clicked first; ``closed-float``...), the
same clicks as benchmarks/bench_explore/clicks.py (a search result Alt+clicked), each timed from the app's
``model-explorer-node-selected`` message reaching the page to the status line showing the label the
kernel sent back. One more click per mode runs under a Chromium trace; the main thread's time in
that window is split by what ran (the app's script, our bundle, style, layout, paint, GC...).
Also prints the widths (widget, frame, the graph's canvas, the info panel) before the first click.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.bench_explore.clicks import me_click_targets
from benchmarks.lab_page import RUN_CELL, lab_page, trace_cell
from tests.helpers.harness import KernelAccess

CELL = "me = tlw.explore(log{extra})\nme"

READY = """() => {
  const root = document.querySelector('.jp-Notebook .tlw-root');
  const status = root?.querySelector('.tlw-status');
  return Boolean(status && status.dataset.state === 'ready' && root.parentElement.dataset.renderedAt);
}"""
# Marks the selection message and every status-line change, on the page's clock and in the trace.
WATCH = """() => {
  window.__clickAt = []; window.__backAt = [];
  window.addEventListener('message', (e) => {
    if (e.data && e.data.cmd === 'model-explorer-node-selected') {
      window.__clickAt.push(performance.now()); performance.mark('tlw-probe-click');
    }
  }, true);
  const status = document.querySelector('.jp-Notebook .tlw-root .tlw-status');
  new MutationObserver(() => {
    window.__backAt.push([performance.now(), status.textContent]); performance.mark('tlw-probe-status');
  }).observe(status, {childList: true, characterData: true, subtree: true});
}"""
BACK_AT = """([label, after]) =>
  (window.__backAt.find(([at, text]) => at >= after && text.includes('selected ' + label)) || [null])[0]"""
# Read through Playwright's handle on the frame, which works for a sandboxed (opaque-origin) frame too:
# the page's own scripts cannot reach into that one.
PAGE_WIDTHS = """() => {
  const root = document.querySelector('.jp-Notebook .tlw-root');
  const width = (el) => el ? Math.round(el.getBoundingClientRect().width) : null;
  return {widget: width(root), frame: width(root.querySelector('iframe.tlw-frame')),
          inspector: width(root.querySelector('.tlw-inspector'))};
}"""
FRAME_WIDTHS = """() => {
  const width = (el) => Math.round(el.getBoundingClientRect().width);
  return {canvases: [...document.querySelectorAll('webgl-renderer canvas')].map(width),
          info_panels: [...document.querySelectorAll('info-panel')].map(width)};
}"""
HIDE_INFO_PANELS = """() => {
  const toggles = [...document.querySelectorAll('info-panel .hide-toggle')];
  toggles.forEach((toggle) => toggle.click());
  return toggles.length;
}"""


def app_frame(page: Any) -> Any:
    """The explorer's frame as a Playwright Frame (evaluates in it, whatever its origin)."""
    return page.locator(".jp-Notebook .tlw-root iframe.tlw-frame").element_handle().content_frame()


def widths(page: Any) -> dict[str, Any]:
    return {**page.evaluate(PAGE_WIDTHS), **app_frame(page).evaluate(FRAME_WIDTHS)}


TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8.execute",
    "blink.user_timing",
    "v8",
]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def click(page: Any, frame: Any, kernel: KernelAccess, target: str, label: str) -> tuple[float, float]:
    """One selection: (ms click -> kernel on_select, ms click -> status line with the label)."""
    before = kernel.value("len(clicks)")
    after = page.evaluate("performance.now()")
    frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(
        f"^torchlens_label={label}$".replace("(", r"\(").replace(")", r"\)")
    )
    result = frame.locator(target).first
    result.wait_for(timeout=30_000)
    result.click(modifiers=["Alt"])
    kernel.wait_for(f"len(clicks) > {before}", True, timeout=30)
    page.wait_for_function(f"() => ({BACK_AT})([{label!r}, {after}]) !== null", timeout=30_000)
    clicked = page.evaluate("window.__clickAt[window.__clickAt.length - 1]")
    back = page.evaluate(BACK_AT, [label, after])
    # Kernel clock vs page clock: both wall clocks on this machine.
    offset = page.evaluate("Date.now() - performance.now()")
    return kernel.value("clicks[-1]") * 1000 - (clicked + offset), back - clicked


# ----- the trace -----------------------------------------------------------------------------------


def main_threads(events: list[dict[str, Any]]) -> set[tuple[int, int]]:
    return {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }


def script_names(urls: dict[str, str]) -> dict[str, str]:
    return urls


def analyse(events: list[dict[str, Any]], names: dict[str, str]) -> dict[str, Any]:
    """The main thread between the last click mark and the status mark after it: self time by kind."""
    marks = sorted(
        (e["ts"], e["name"], e["pid"], e["tid"])
        for e in events
        if e.get("name") in ("tlw-probe-click", "tlw-probe-status")
        and e.get("ph") in ("R", "I", "n", "b", "e")
    )
    clicks = [m for m in marks if m[1] == "tlw-probe-click"]
    if not clicks:
        return {"error": "no click mark in the trace"}
    start = clicks[-1][0]
    ends = [m for m in marks if m[1] == "tlw-probe-status" and m[0] > start]
    if not ends:
        return {"error": "no status mark after the click"}
    end = ends[-1][0]
    threads = main_threads(events)
    spans = [
        e
        for e in events
        if e.get("ph") == "X"
        and (e["pid"], e["tid"]) in threads
        and e["ts"] < end
        and e["ts"] + e.get("dur", 0) > start
    ]
    by_thread: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in spans:
        by_thread[(e["pid"], e["tid"])].append(e)
    report: dict[str, Any] = {"window_ms": (end - start) / 1000, "threads": {}}
    for thread, items in by_thread.items():
        items.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        self_time: dict[str, float] = defaultdict(float)
        stack: list[tuple[dict[str, Any], str]] = []
        tasks: list[tuple[float, float, str]] = []
        for e in items:
            while stack and stack[-1][0]["ts"] + stack[-1][0].get("dur", 0) <= e["ts"]:
                stack.pop()
            kind = describe(e, names, stack[-1][1] if stack else "")
            clipped = max(0, min(e["ts"] + e["dur"], end) - max(e["ts"], start))
            self_time[kind] += clipped
            if stack:
                parent_kind = stack[-1][1]
                self_time[parent_kind] -= clipped
            elif e["name"] in ("RunTask", "ThreadControllerImpl::RunTask"):
                tasks.append((e["ts"], e["dur"], kind))
            stack.append((e, kind))
        top = sorted(((v / 1000, k) for k, v in self_time.items() if v > 500), reverse=True)
        long_tasks = []
        for ts, dur, _ in tasks:
            if dur < 10_000:
                continue
            inner = sorted(
                (
                    (sub["dur"], describe(sub, names, ""))
                    for sub in items
                    if sub["ts"] >= ts
                    and sub["ts"] < ts + dur
                    and sub is not None
                    and sub["name"] not in ("RunTask", "ThreadControllerImpl::RunTask")
                ),
                reverse=True,
            )[:3]
            long_tasks.append(
                {
                    "at_ms": round((ts - start) / 1000, 1),
                    "ms": round(dur / 1000, 1),
                    "largest": [(round(d / 1000, 1), k) for d, k in inner],
                }
            )
        report["threads"][f"{thread[0]}:{thread[1]}"] = {
            "busy_ms": round(sum(max(0, min(ts + d, end) - max(ts, start)) for ts, d, _ in tasks) / 1000, 1),
            "self_ms": [(round(ms, 1), kind) for ms, kind in top[:25]],
            "long_tasks": long_tasks,
        }
    return report


def describe(event: dict[str, Any], names: dict[str, str], inherited: str) -> str:
    name = event["name"]
    data = event.get("args", {}).get("data", {}) or {}
    url = data.get("url") or data.get("scriptName") or ""
    if name in ("FunctionCall", "EvaluateScript", "v8.compile", "v8.callFunction", "v8.run"):
        if url:
            return f"script: {names.get(url, short(url))}"
        return inherited if inherited.startswith("script") else f"script: {name}"
    if name in (
        "TimerFire",
        "FireAnimationFrame",
        "EventDispatch",
        "HandlePostMessage",
        "XHRReadyStateChange",
    ):
        return inherited if inherited.startswith("script") else f"{name}"
    if inherited.startswith("script") and name.startswith(
        ("V8.", "v8.", "MinorGC", "MajorGC", "ThreadState")
    ):
        return f"{inherited} ({'GC' if 'GC' in name else 'v8'})"
    return name


def short(url: str) -> str:
    return url if len(url) < 80 else url[:40] + "..." + url[-30:]


def frame_script_names(page: Any) -> dict[str, str]:
    return app_frame(page).evaluate(
        """() => {
      const names = {};
      const scripts = [...document.querySelectorAll('script[src]')];
      scripts.forEach((s, i) => { names[s.src] = 'Model Explorer ' + (i ? 'script ' + i : 'first script'); });
      return names;
    }"""
    )


# ----- the run -------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> None:
    setup = trace_cell(args.case, "clicks = []")
    cells = [setup, CELL.format(extra=args.explore_args)]
    with lab_page("probe.ipynb", cells, width=args.viewport) as lab:
        browser, page, kernel = lab.browser, lab.page, lab.kernel
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        log("traced")
        page.evaluate(RUN_CELL, 1)
        page.wait_for_function(READY, timeout=300_000)
        page.wait_for_timeout(1500)
        root_width = page.evaluate(
            "document.querySelector('.jp-Notebook .tlw-root').getBoundingClientRect().width"
        )
        if args.width and abs(root_width - args.width) > 2:
            page.set_viewport_size({"width": int(args.viewport + args.width - root_width), "height": 1000})
            page.wait_for_timeout(2000)
        kernel.run("me.on_select(lambda record: clicks.append(time.time()))")
        page.evaluate(WATCH)
        frame = page.locator(".jp-Notebook .tlw-root iframe.tlw-frame").content_frame
        targets = me_click_targets(kernel, args.clicks + 1)
        names = frame_script_names(page)
        results: dict[str, Any] = {}
        for mode in args.modes.split(","):
            if mode == "closed":
                hidden = app_frame(page).evaluate(HIDE_INFO_PANELS)
                log(f"clicked {hidden} hide toggle(s)")
                page.wait_for_timeout(1000)
            sizes = widths(page)
            log(f"{mode}: widths {sizes}")
            to_kernel, round_trip = [], []
            for target, label in targets[: args.clicks]:  # distinct nodes: each click a new selection
                k, r = click(page, frame, kernel, target, label)
                to_kernel.append(k)
                round_trip.append(r)
                page.wait_for_timeout(300)
            log(f"{mode}: round trips {[round(r) for r in round_trip]}")
            trace = {}
            if args.trace:
                target, label = targets[-1]
                browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
                click(page, frame, kernel, target, label)
                page.wait_for_timeout(200)
                raw = browser.stop_tracing()
                Path(f"{args.trace}-{mode}.json").write_bytes(raw)
                events = json.loads(raw)
                events = events["traceEvents"] if isinstance(events, dict) else events
                trace = analyse(events, names)
            results[mode] = {
                "widths": sizes,
                "click_to_kernel_ms": round(statistics.median(to_kernel), 1),
                "click_to_status_ms": round(statistics.median(round_trip), 1),
                "click_to_status_samples": [round(r) for r in round_trip],
                "trace": trace,
            }
        print(json.dumps(results, indent=1))
        if errors:
            log(f"console errors: {errors[:5]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="gpt2")
    parser.add_argument("--clicks", type=int, default=10)
    parser.add_argument("--width", type=int, default=1100, help="widget width to aim at, px")
    parser.add_argument("--viewport", type=int, default=1400)
    parser.add_argument("--modes", default="open,closed")
    parser.add_argument("--trace", default="", help="write a Chromium trace per mode to <this>-<mode>.json")
    parser.add_argument("--explore-args", default="", help="appended to explore(log...), e.g. ', height=640'")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
