"""Benchmark: what one explorer's first draw costs in widget messages, JupyterLab vs the VS Code host.

    .venv/bin/python benchmarks/bench_transport.py                  # GPT-2, 4 layers, both hosts
    .venv/bin/python benchmarks/bench_transport.py --layers 12 --hosts lab

For each host, on a fresh page and a fresh kernel: a cell traces GPT-2 (random weights), the next
cell runs ``tlw.explore(log)``; measured from sending that cell to the view's "ready" (first draw,
the viewer's assets included), and the bytes of kernel messages the page received meanwhile:

  - JupyterLab: the kernel websocket's frames as received by the page (Playwright), text and binary;
  - VS Code host (tests/e2e/vscode_host, when present): what its output webview received, counted
    by the host page as JSON text (VS Code's IPC: binary frames as arrays of byte values).

For JupyterLab it also prints what VS Code's IPC would carry for the very same frames (each frame as
VS Code's extension host relays it: text as a JSON string, binary as a JSON array of numbers), so
the ratio can be read without the VS Code host. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

E2E = Path(__file__).resolve().parents[1] / "tests" / "e2e"
sys.path.insert(0, str(E2E))

from harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer, KernelAccess, open_notebook  # noqa: E402

SETUP = """import time, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer={layers}, n_embd=768, n_head=12)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 50257, (1, 16)))"""
EXPLORE = "w = tlw.explore(log)\nw"
READY = ".tlw-status[data-state='ready']"
# Runs one cell of the open notebook until its code has run; returns when it was sent (ms).
RUN_CELL = """async index => {
  const started = Date.now();
  const app = window.jupyterapp;
  app.shell.currentWidget.content.activeCellIndex = index;
  await app.commands.execute("notebook:run-cell");
  return started;
}"""


def relayed_size(frame: str | bytes, frame_id: int) -> int:
    """Bytes of JSON VS Code's extension host posts to the webview for one kernel frame."""
    if isinstance(frame, str):
        message: dict[str, Any] = {"type": "IPyWidgets_msg", "payload": {"id": str(frame_id), "data": frame}}
    else:
        message = {"type": "IPyWidgets_binary_msg", "payload": {"id": str(frame_id), "data": [list(frame)]}}
    return len(json.dumps(message, separators=(",", ":"), ensure_ascii=False))


def encoding_of(elements: Any) -> str:
    """The buffer encoding the view chose (a version without the choice always used binary)."""
    if not elements.count():
        return "binary (no choice)"
    return str(elements.first.get_attribute("data-buffer-encoding"))


def frame_size(frame: str | bytes) -> int:
    return len(frame.encode()) if isinstance(frame, str) else len(frame)


def measure_lab(browser: Any, layers: int, root: Path) -> dict[str, Any]:
    server = JupyterServer(root / "lab").start()
    try:
        notebook = server.write_notebook("transport.ipynb", [SETUP.format(layers=layers), EXPLORE])
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        frames: list[str | bytes] = []
        recording = {"on": False}

        def on_socket(socket: Any) -> None:
            socket.on("framereceived", lambda payload: frames.append(payload) if recording["on"] else None)

        page.on("websocket", on_socket)
        open_notebook(page, server, notebook)
        kernel = server.kernel_for(notebook)
        try:
            # The setup cell alone, then the explorer cell timed from the moment it is sent.
            page.evaluate(RUN_CELL, 0)
            page.wait_for_function(
                "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'"
            )
            recording["on"] = True
            started = page.evaluate(RUN_CELL, 1)
            page.wait_for_selector(READY, timeout=300_000)
            drawn = int(page.locator("[data-rendered-at]").first.get_attribute("data-rendered-at") or 0)
            time.sleep(1)  # status messages still in flight
            recording["on"] = False
            encoding = encoding_of(page.locator("[data-buffer-encoding]"))
            kernel_bytes = sum(frame_size(f) for f in frames)
            relayed = sum(relayed_size(f, i) for i, f in enumerate(frames))
            return {
                "first_draw_ms": drawn - started,
                "bytes": kernel_bytes,
                "messages": len(frames),
                "largest": max((frame_size(f) for f in frames), default=0),
                "vscode_relay_bytes_of_these_frames": relayed,
                "encoding": encoding,
            }
        finally:
            kernel.close()
            context.close()
    finally:
        server.stop()


def measure_vscode(browser: Any, layers: int, root: Path) -> dict[str, Any]:
    from vscode_host.host import VSCodeHost, VSCodeNotebook

    host = VSCodeHost.start(root / "vscode-host")
    allow = [f"--ServerApp.allow_origin={host.origin}"]
    server = JupyterServer(root / "vscode-jupyter", extra_args=allow).start()
    try:
        kernel_id = server.api("POST", "/api/kernels", {"name": "python3"})["id"]
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(host.url(server.base_url, server.token, kernel_id))
        notebook = VSCodeNotebook(page, host.webview_origin)
        kernel = KernelAccess(server.runtime_dir / f"kernel-{kernel_id}.json")
        try:
            notebook.run(SETUP.format(layers=layers), timeout=600)
            before = notebook.counters()
            started = int(page.evaluate("() => Date.now()"))
            notebook.run(EXPLORE)
            notebook.cell(1).locator(READY).wait_for(timeout=300_000)
            rendered = notebook.cell(1).locator("[data-rendered-at]").first
            drawn = int(rendered.get_attribute("data-rendered-at") or 0)
            time.sleep(1)
            after = notebook.counters()
            encoding = encoding_of(notebook.cell(1).locator("[data-buffer-encoding]"))
            return {
                "first_draw_ms": drawn - started,
                "bytes": after["kernelBytes"] - before["kernelBytes"],
                "messages": after["kernelMessages"] - before["kernelMessages"],
                "largest": after["largestMessage"],
                "encoding": encoding,
            }
        finally:
            kernel.close()
            context.close()
    finally:
        server.stop()
        host.stop()


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hosts", default="lab,vscode")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    import torchlens_widgets

    print(f"torchlens_widgets from {Path(torchlens_widgets.__file__).parent}", file=sys.stderr)
    hosts = {"lab": measure_lab, "vscode": measure_vscode}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name in args.hosts.split(","):
                for run in range(args.repeat):
                    with tempfile.TemporaryDirectory() as root:
                        try:
                            result = hosts[name](browser, args.layers, Path(root))
                        except Exception as error:  # a figure that could not be taken says why
                            result = {"error": f"{type(error).__name__}: {error}"}
                    print(json.dumps({"host": name, "layers": args.layers, "run": run, **result}), flush=True)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
