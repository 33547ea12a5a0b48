"""The same graphs in the viewers served by their own packages (model-explorer, netron.serve)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_explore.expand import ME_EXPAND, NETRON_EXPAND
from benchmarks.bench_explore.in_place import QUIET_S
from benchmarks.bench_explore.page_scripts import ME_RENDERED, NETRON_RENDERED, RENDER_TIMEOUT_MS
from benchmarks.bench_explore.results import Results, step
from tests.helpers.harness import KernelAccess, free_port, is_loopback_url


@dataclass
class PageLoad:
    ms: float
    body_bytes: int
    off_machine: int


def plain_page_load(
    browser: Any,
    url: str,
    watch: str,
    *,
    consent_cookie: bool = False,
    then: Callable[[Any], None] | None = None,
) -> PageLoad:
    """Opens ``url`` in a fresh context (empty cache): navigation -> ``watch`` sets __renderedAt; then
    ``then`` (if given) gets the page's CDP session, to act on the drawn graph."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        if consent_cookie:  # Netron asks a first-time visitor to accept cookies before it opens anything
            context.add_cookies([{"name": "consent", "value": str(int(time.time() * 1000)), "url": url}])
        page = context.new_page()
        page.add_init_script(watch)
        off_machine: list[str] = []
        # Both apps ask the internet for something (fonts; consent, analytics): answered at once, empty.
        page.route(
            lambda address: not is_loopback_url(address),
            lambda route: (off_machine.append(route.request.url), route.fulfill(status=200, body="{}")),
        )
        finished: list[Any] = []
        page.on("requestfinished", lambda request: finished.append(request))
        cdp = context.new_cdp_session(page)
        started = time.time() * 1000
        page.goto(url)
        rendered = 0.0
        deadline = time.monotonic() + RENDER_TIMEOUT_MS / 1000
        while not rendered:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} not rendered within {RENDER_TIMEOUT_MS / 1000:.0f} s")
            answer = cdp.send(
                "Runtime.evaluate", {"expression": "window.__renderedAt || 0", "returnByValue": True}
            )
            rendered = float(answer["result"]["value"])
            time.sleep(0.05)
        body = sum(
            request.sizes()["responseBodySize"] for request in finished if is_loopback_url(request.url)
        )
        if then is not None:
            then(cdp)
        return PageLoad(rendered - started, body, len(off_machine))
    finally:
        context.close()


@contextmanager
def model_explorer_server(graph: str, folder: str) -> Iterator[tuple[str, float]]:
    """``model-explorer <graph.json>`` on 127.0.0.1: (the page URL it prints, ms to start serving)."""
    port = free_port()
    command = [sys.executable, "-m", "model_explorer", graph, "--host=127.0.0.1", f"--port={port}"]
    # Its version check (PyPI, GitHub) gets a dead proxy: nothing leaves the machine, nothing waits.
    dead = "http://127.0.0.1:9"
    env = {**os.environ, "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "NO_PROXY": "127.0.0.1,localhost"}
    output = Path(folder) / "model-explorer.log"
    started = time.monotonic()
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--no_open_in_browser"], env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        prefix = f"http://127.0.0.1:{port}/"
        url = ""
        while not url:
            if process.poll() is not None or time.monotonic() - started > 120:
                raise RuntimeError(f"model-explorer did not serve: {output.read_text()[-1000:]}")
            url = next((line for line in output.read_text().splitlines() if line.startswith(prefix)), "")
            time.sleep(0.05)
        yield url, (time.monotonic() - started) * 1000
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def timed_in_page(cdp: Any, script: str, targets: list[str]) -> list[float]:
    """``script`` (an async function of one target, resolving with ms) run on each target in turn, in
    the page of ``cdp``, each once the page has been quiet (as timed_in_widget does in the widget)."""
    times = []
    for target in targets:
        time.sleep(QUIET_S)
        answer = cdp.send(
            "Runtime.evaluate",
            {"expression": f"({script})({json.dumps(target)})", "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(answer["exceptionDetails"].get("exception", {}).get("description", answer))
        times.append(float(answer["result"]["value"]))
    return times


def served(
    results: Results,
    case: str,
    browser: Any,
    kernel: KernelAccess,
    repeat: int,
    expand_targets: tuple[list[str], str] | None = None,
) -> list[int]:
    """Both viewers' own servers on the same graphs; returns off-machine request counts (ME, Netron).
    With ``expand_targets`` (what expand() opened in the widgets), the last page load of each viewer
    opens the same module groups."""
    import netron

    me_targets, netron_target = expand_targets or ([], "")
    expands: dict[str, list[float] | str] = {}

    def expanding(row: str, script: str, targets: list[str], last: bool) -> Callable[[Any], None] | None:
        if not (last and targets):
            return None

        def then(cdp: Any) -> None:
            try:
                expands[row] = timed_in_page(cdp, script, targets)
            except Exception as error:  # the page's own load time still counts
                expands[row] = f"failed: {type(error).__name__}: {str(error)[:200]}"

        return then

    offline = [0, 0]
    with tempfile.TemporaryDirectory() as folder:
        me_path, netron_path = kernel.value(f"write_served_files(log, {folder!r})", timeout=900)
        with step(results, case, ("me_served", "me_server_start", "me_bytes_served")):
            with model_explorer_server(me_path, folder) as (url, start_ms):
                results.put("me_server_start", case, start_ms)
                loads = [
                    plain_page_load(
                        browser,
                        url,
                        ME_RENDERED,
                        then=expanding("me_expand_served", ME_EXPAND, me_targets, i == repeat - 1),
                    )
                    for i in range(repeat)
                ]
            results.put("me_served", case, [load.ms for load in loads])
            results.put("me_bytes_served", case, loads[-1].body_bytes)
            offline[0] = loads[-1].off_machine
        with step(results, case, ("netron_served", "netron_bytes_served")):
            address = netron.serve(netron_path, None, address=("127.0.0.1", 0), browse=False)
            try:
                url = f"http://{address[0]}:{address[1]}/"
                netron_targets = [netron_target] * repeat if netron_target else []
                loads = [
                    plain_page_load(
                        browser,
                        url,
                        NETRON_RENDERED,
                        consent_cookie=True,
                        then=expanding(
                            "netron_expand_served", NETRON_EXPAND, netron_targets, i == repeat - 1
                        ),
                    )
                    for i in range(repeat)
                ]
            finally:
                netron.stop(address)
            results.put("netron_served", case, [load.ms for load in loads])
            results.put("netron_bytes_served", case, loads[-1].body_bytes)
            offline[1] = loads[-1].off_machine
    for row, times in expands.items():
        results.put(row, case, times)
    return offline
