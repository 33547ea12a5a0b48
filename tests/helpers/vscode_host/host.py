"""VS Code's notebook, reproduced from its published parts, on 127.0.0.1 for the e2e tests.

Two static servers: the host page (VS Code's side: kernel connection, cell execution) on
127.0.0.1:P and the output webview on localhost:Q, a different site, so Chromium runs it as a
cross-site, out-of-process frame, as VS Code's webviews are. The webview loads RequireJS, jQuery and
VS Code's ipywidgets 8 manager (@vscode/jupyter-ipywidgets8, unpacked by `scripts/setup.sh test`),
then its kernel connection (@jupyterlab/services), whose socket is the host page: every kernel frame
crosses to the webview as JSON, binary frames as arrays of byte values, as VS Code's IPC carries them.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
NODE_MODULES = REPO / "node_modules"
MANAGER_DIR = NODE_MODULES / ".tlw-vscode-host" / "package"
NBEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "nbextensions"
SANDBOX = "allow-same-origin allow-pointer-lock allow-scripts allow-downloads allow-forms"


def manager_version() -> str:
    import json

    return str(json.loads((MANAGER_DIR / "package.json").read_text())["version"])


def build(out: Path) -> Path:
    """Bundles host.ts and webview.ts (esbuild, from the project's node_modules) into ``out``/build."""
    if not (MANAGER_DIR / "dist" / "ipywidgets.js").is_file():
        raise FileNotFoundError(
            f"{MANAGER_DIR} is missing: run `bash scripts/setup.sh test`"
            " (it unpacks @vscode/jupyter-ipywidgets8)"
        )
    subprocess.run(["node", str(HERE / "build.mjs"), str(out)], check=True, cwd=REPO)
    return out


class _Handler(SimpleHTTPRequestHandler):
    """Serves fixed routes (URL prefix -> directory), nothing else; no CSP (VS Code's webview has none)."""

    routes: ClassVar[dict[str, Path]] = {}

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, directory in self.routes.items():
            if path.startswith(prefix):
                target = (directory / path[len(prefix) :].lstrip("/")).resolve()
                if target.is_relative_to(directory.resolve()):
                    return str(target)
        return str(HERE / "__not_found__")

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class StaticServer:
    def __init__(self, routes: dict[str, Path]) -> None:
        handler = type("Handler", (_Handler,), {"routes": routes})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler))
        self.port = int(self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class VSCodeHost:
    """The two servers; ``url()`` is the host page for a kernel of a Jupyter server."""

    host: StaticServer
    webview: StaticServer

    @classmethod
    def start(cls, out: Path) -> VSCodeHost:
        build(out)
        host = StaticServer({"/outer.html": HERE / "outer.html", "/build/": out / "build"})
        webview = StaticServer(
            {
                "/webview.html": HERE / "webview.html",
                "/build/": out / "build",
                "/node_modules/requirejs/": NODE_MODULES / "requirejs",
                "/node_modules/jquery/": NODE_MODULES / "jquery",
                "/manager/": MANAGER_DIR / "dist",
                "/nbextensions/": NBEXTENSIONS,
            }
        )
        return cls(host, webview)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.host.port}"

    @property
    def webview_origin(self) -> str:
        # localhost is another site than 127.0.0.1: a cross-site frame, as VS Code's webview is.
        return f"http://localhost:{self.webview.port}"

    def url(self, server_url: str, token: str, kernel_id: str) -> str:
        from urllib.parse import urlencode

        query = urlencode(
            {
                "server": server_url,
                "token": token,
                "kernel": kernel_id,
                "webview": f"{self.webview_origin}/webview.html",
            }
        )
        return f"{self.origin}/outer.html?{query}"

    def stop(self) -> None:
        self.host.stop()
        self.webview.stop()


class VSCodeNotebook:
    """One host page on one kernel: run cells as VS Code does and reach into its output webview."""

    def __init__(self, page: Any, webview_origin: str) -> None:
        self.page = page
        self.webview_origin = webview_origin
        page.wait_for_function("() => window.vscodeHost !== undefined", timeout=60_000)
        page.evaluate("() => window.vscodeHost.ready")

    def run(self, code: str, timeout: float = 300) -> None:
        """Runs ``code`` as a cell (outputs go to the webview); raises if the cell raised."""
        started = time.monotonic()
        result = self.page.evaluate("code => window.vscodeHost.run(code)", code)
        if result["status"] != "ok":
            raise RuntimeError(f"cell failed after {time.monotonic() - started:.0f} s: {result.get('error')}")

    def counters(self) -> dict[str, int]:
        return dict(self.page.evaluate("() => ({...window.vscodeHost.counters})"))

    @property
    def webview(self) -> Any:
        """The output webview's frame (a Playwright Frame)."""
        for frame in self.page.frames:
            if frame.url.startswith(self.webview_origin):
                return frame
        raise AssertionError(
            f"no webview frame from {self.webview_origin}: {[f.url for f in self.page.frames]}"
        )

    def cell(self, index: int) -> Any:
        """The output element of the index-th cell run, in the webview."""
        return self.webview.locator(f'.cell-output[data-cell="{index}"]')

    def viewer(self, cell: int, index: int = 0) -> Any:
        """The viewer frame (Model Explorer or Netron) inside a cell's widget."""
        return self.cell(cell).locator("iframe.tlw-frame").nth(index).content_frame

    def viewer_frame(self, cell: int, index: int = 0) -> Any:
        """The same viewer as a Playwright Frame (to evaluate scripts in it)."""
        handle = self.cell(cell).locator("iframe.tlw-frame").nth(index).element_handle()
        return handle.content_frame()
