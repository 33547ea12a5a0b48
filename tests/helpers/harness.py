"""A real JupyterLab (or Notebook 7) server on 127.0.0.1, driven by headless Chromium via Playwright.

The tests reach the kernel the page runs through a second jupyter_client connection, so they can
read widget state (``w.selected_label``) and act from the kernel (``w.select(...)``) exactly as a
user's next cell would.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from ipaddress import ip_address
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import nbformat
from jupyter_client import BlockingKernelClient

CHROMIUM = os.environ.get("TLW_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Model Explorer draws with WebGL: software rendering, headless.
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def is_loopback_url(url: str) -> bool:
    """True for URLs that stay on this machine (or never touch the network: blob:, data:, about:)."""
    parsed = urlparse(url)
    if parsed.scheme in ("blob", "data", "about", "chrome-error", "javascript", ""):
        return True
    host = parsed.hostname or ""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def wait_until_serving(
    process: subprocess.Popen[bytes], log_path: Path, ready: Callable[[], object], what: str, timeout: float
) -> None:
    """Returns once ``ready()`` stops raising OSError; raises with the end of the log if ``process``
    exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {log_path.read_text()[-3000:]}")
        try:
            ready()
            return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"{what} did not start: {log_path.read_text()[-3000:]}")


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """Terminates ``process`` if it still runs, and kills it if it has not ended after 20 s."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class JupyterServer:
    """``jupyter lab`` bound to 127.0.0.1 with a token, in its own throw-away directories."""

    root: Path
    app: str = "lab"  # "lab" or "notebook"
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    extra_args: list[str] = field(default_factory=list)  # e.g. an allow_origin for another page
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. WarmKernels.env()
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> JupyterServer:
        state = self.root / ".jupyter-state"
        env = {
            **os.environ,
            "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
            "JUPYTER_CONFIG_DIR": str(state / "config"),
            "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces"),
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        command = [
            sys.executable,
            "-m",
            "jupyter",
            self.app,
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.disable_check_xsrf=True",
            "--ServerApp.allow_root=True",
            # No news, no update checks: the page must not need the internet.
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            # window.jupyterapp, so the tests can run commands such as run-all-cells.
            "--LabServerApp.expose_app_in_browser=True"
            if self.app == "lab"
            else "--JupyterNotebookApp.expose_app_in_browser=True",
            *self.extra_args,
        ]
        self.log_path = state / f"{self.app}.log"
        state.mkdir(parents=True, exist_ok=True)
        # No "get notified about news?" toast over the cells.
        notification = (
            state / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        )
        notification.parent.mkdir(parents=True, exist_ok=True)
        notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            command, env=env, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.root
        )
        self.runtime_dir = state / "runtime"
        wait_until_serving(
            self.process,
            self.log_path,
            lambda: self.api("GET", "/api/status"),
            f"jupyter {self.app}",
            timeout,
        )
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            for kernel in self.api("GET", "/api/kernels"):
                self.api("DELETE", f"/api/kernels/{kernel['id']}")
        stop_process(self.process)
        self._log.close()

    def api(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
        return json.loads(text) if text else None

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}?token={self.token}"

    def write_notebook(self, name: str, cells: list[str]) -> str:
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(notebook, self.root / name)
        return name

    def shut_down_notebook(self, notebook: str) -> None:
        """Ends the kernel session of ``notebook``: a finished module's kernel holds a GB of traces."""
        for session in self.api("GET", "/api/sessions"):
            if session.get("path") == notebook:
                self.api("DELETE", f"/api/sessions/{session['id']}")

    def kernel_for(self, notebook: str, timeout: float = 60) -> KernelAccess:
        """A second client on the kernel the page started for ``notebook``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for session in self.api("GET", "/api/sessions"):
                if session.get("path") == notebook and session.get("kernel"):
                    connection = self.runtime_dir / f"kernel-{session['kernel']['id']}.json"
                    if connection.exists():
                        return KernelAccess(connection)
            time.sleep(0.3)
        raise TimeoutError(f"no kernel session for {notebook}")


class KernelAccess:
    def __init__(self, connection_file: Path) -> None:
        self.client = BlockingKernelClient(connection_file=str(connection_file))
        self.client.load_connection_file()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str, timeout: float = 120) -> None:
        """Run ``code`` in the notebook's kernel; raise if it raised."""
        reply = self.client.execute_interactive(
            code, timeout=timeout, store_history=False, output_hook=lambda _msg: None
        )
        if reply["content"]["status"] != "ok":
            content = reply["content"]
            raise RuntimeError(f"{content.get('ename')}: {content.get('evalue')}")

    def value(self, expression: str, timeout: float = 60) -> Any:
        """The value of a Python expression in the kernel (its repr, read back with literal_eval)."""
        import ast

        msg_id = self.client.execute(
            "", user_expressions={"v": expression}, silent=False, store_history=False
        )
        deadline = time.monotonic() + timeout
        while True:
            reply = self.client.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        result = reply["content"]["user_expressions"]["v"]
        if result["status"] != "ok":
            raise RuntimeError(f"{result.get('ename')}: {result.get('evalue')}")
        return ast.literal_eval(result["data"]["text/plain"])

    def wait_for(self, expression: str, expected: Any, timeout: float = 60) -> Any:
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.value(expression)
            if value == expected:
                return value
            time.sleep(0.2)
        raise AssertionError(f"{expression} stayed {value!r}, expected {expected!r}")

    def wait_ready(self, widget: str, timeout: float = 60) -> None:
        """Waits until a view of ``widget`` has painted a graph and its status settled on "ready".

        A status alone can be left from an earlier draw (or come before the frame painted): this
        waits for the draw counter too. To wait for a redraw after a change, use :meth:`wait_drawn`.
        """
        self.wait_drawn(widget, since=0, timeout=timeout)

    def draws(self, widget: str) -> int:
        """How many graphs the views of ``widget`` have painted so far (read before a change)."""
        return int(self.value(f"{widget}.draws"))

    def wait_drawn(self, widget: str, since: int, timeout: float = 60) -> None:
        """Waits until ``widget`` painted a graph after its draw count was ``since``, and is "ready"
        (a failure says what the widget reported last: its draw count, status and error)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.value(f"({widget}.draws, {widget}.status, {widget}.error)")
            if state[0] > since and state[1] == "ready":
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{widget} drew no graph since draw {since}: {state!r}")
            time.sleep(0.2)

    def close(self) -> None:
        self.client.stop_channels()


# The notebook's kernel connection in JupyterLab's page (a JavaScript expression): undefined while the
# page has none, and a call on it then throws (the parentheses end the optional chain).
KERNEL = "(window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel)"

NOTEBOOK_READY = f"""() => {{
  const kernel = {KERNEL};
  const notebook = window.jupyterapp?.shell.currentWidget?.content;
  return Boolean(kernel && kernel.status === 'idle' && notebook && notebook.widgets.length);
}}"""

KERNEL_STATUS = f"""() => {{
  const kernel = {KERNEL};
  return kernel ? `${{kernel.status}}, ${{kernel.connectionStatus}}` : 'no kernel';
}}"""

# The widget model with the id given, in JupyterLab's page (a JavaScript async function of the id): found
# through the widget manager of the current notebook's rendered outputs.
WIDGET_MODEL = """async (modelId) => {
  const seen = new Set();
  const find = (widget) => {
    if (!widget || seen.has(widget)) return null;
    seen.add(widget);
    if (widget._manager && widget._manager.promise) return widget;
    for (const child of widget.widgets ?? widget.layout?.widgets ?? []) {
      const found = find(child);
      if (found) return found;
    }
    return null;
  };
  const renderer = find(window.jupyterapp.shell.currentWidget);
  return (await renderer._manager.promise).get_model(modelId);
}"""


def open_notebook(
    page: Any,
    server: JupyterServer,
    notebook: str,
    timeout: float = 120_000,
    reconnect_after: float | None = None,
) -> None:
    """Opens ``notebook`` in the page and waits until its kernel is idle (cells sent earlier are lost).

    ``reconnect_after`` (ms): if the kernel is not idle by then, reconnect to it once, as the Kernel
    menu's "Reconnect to Kernel" does, and wait out ``timeout`` again."""
    if server.app == "lab":
        # A workspace of its own, reset: JupyterLab would otherwise reopen every notebook an earlier
        # test opened on this server, and their widgets would share the page.
        workspace = "".join(ch if ch.isalnum() else "-" for ch in notebook)
        page.goto(server.url(f"/lab/workspaces/{workspace}/tree/{notebook}") + "&reset")
    else:
        page.goto(server.url(f"/notebooks/{notebook}"))
    if reconnect_after is not None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            page.wait_for_function(NOTEBOOK_READY, timeout=reconnect_after)
            return
        except PlaywrightTimeout:
            status = page.evaluate(KERNEL_STATUS)
            waited = f"{reconnect_after / 1000:.0f} s"
            print(f"\n{notebook}: kernel not idle after {waited} ({status}): reconnecting")
            page.evaluate(f"() => {KERNEL}.reconnect()")
    page.wait_for_function(NOTEBOOK_READY, timeout=timeout)


def run_all_cells(page: Any) -> None:
    """Runs every cell, as the Run All menu entry does (without waiting for them to finish)."""
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def alt_click_search_result(frame: Any, query: str, node_id: str | None = None) -> None:
    """Selects a node the way a user does in Model Explorer: its own search box (a regex over node
    attributes), then an Alt+click on the result (the node with ``node_id``, or the first one)."""
    frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]').fill(query)
    nodes = "search-bar mat-tree-node" + (f'[data-id="{node_id}"]' if node_id else "[data-id]")
    result = frame.locator(f"{nodes} .edge-node").first
    result.wait_for(timeout=30_000)
    result.click(modifiers=["Alt"])


def open_info_panel(frame: Any) -> None:
    """Opens Model Explorer's own info panel with its own toggle, as a user does: the widget starts it
    closed (the inspector shows its facts). ``frame``: the viewer's frame (a Playwright frame locator)."""
    panel = frame.locator("info-panel").first
    panel.locator(".hide-toggle").wait_for(state="attached", timeout=30_000)
    if panel.evaluate("el => el.getBoundingClientRect().width") < 100:
        panel.locator(".hide-toggle").click()


def select_in_viewer_ui(frame: Any, label: str, node_id: str) -> None:
    """Select a node the way a user can without aiming at the WebGL canvas: the app's own search box.

    The search matches attributes as key=value; Alt+click on a result selects the node (a plain
    click only centres it).
    """
    search = frame.locator('search-bar input[placeholder="Search nodes/layers by regex"]')
    search.fill(f"^torchlens_label={re.escape(label)}$")
    result = frame.locator(f'search-bar mat-tree-node[data-id="{node_id}"] .edge-node')
    result.wait_for(timeout=30_000)
    result.click(modifiers=["Alt"])


def press(button: Any) -> None:
    """Activates a button from the keyboard: Enter on the focused button, which the page must see as
    the button's click (no viewer frame takes the focus from it). Every button here is pressed so: a
    mouse click goes where the button was when Playwright looked, and one on "First divergence" once
    left no trace in a full run (the page showed the notebook scrolled, the button half under
    JupyterLab's toolbar)."""
    button.evaluate(
        "b => { b.__tlwClicked = false;"
        " b.addEventListener('click', () => { b.__tlwClicked = true; }, { once: true }); }"
    )
    button.press("Enter")
    focused = button.evaluate("b => document.activeElement?.outerHTML.slice(0, 120)")
    assert button.evaluate("b => b.__tlwClicked"), f"Enter never reached the button; focus on {focused}"
