"""Debian's Firefox ESR on a virtual X display, for the e2e tests' Firefox lane.

Playwright drives only its own Firefox build, which cannot be downloaded here; puppeteer-core drives the
system's ``firefox-esr`` over WebDriver BiDi. ``driver.mjs`` (Node) holds the browser and answers one JSON
command a line; :class:`FirefoxPage` talks to it and offers the few Playwright ``Page`` calls the harness
makes (``goto``, ``evaluate``, ``wait_for_function``, ``screenshot``, ``viewport_size``), so
``open_notebook``, ``run_all_cells`` and ``pixels.painted_fraction`` work on it unchanged. Headless Firefox
has no WebGL here (Model Explorer needs it); under Xvfb it renders WebGL with Mesa's llvmpipe.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.helpers.harness import is_loopback_url, stop_process
from tests.helpers.notebook import ARTIFACTS, OPEN_PAGES, SAFE_NAME

FIREFOX = os.environ.get("TLW_FIREFOX", "/usr/bin/firefox-esr")
XVFB = "/usr/bin/Xvfb"
DRIVER = Path(__file__).resolve().with_name("driver.mjs")
PUPPETEER = Path(__file__).resolve().parents[3] / "node_modules" / "puppeteer-core"
VIEWER_FRAMES = ".tlw-root iframe.tlw-frame"  # one per widget on the page, in page order


def missing_parts() -> list[str]:
    """What the Firefox lane needs and this machine lacks (``scripts/setup.sh test`` installs all)."""
    parts = {FIREFOX: "Debian's firefox-esr", XVFB: "Debian's xvfb", str(PUPPETEER): "npm's puppeteer-core"}
    return [f"{name} ({path})" for path, name in parts.items() if not os.path.exists(path)]


class FirefoxPage:
    """One Firefox window on its own Xvfb display, its page driven through ``driver.mjs``.

    It records the page's requests and console errors (the driver's ``log``). ``close()`` ends Firefox,
    the driver and Xvfb, whatever state they are in, and removes ``workdir``."""

    def __init__(self, workdir: Path, width: int = 1400, height: int = 1000) -> None:
        self.workdir = workdir
        self.viewport_size = {"width": width, "height": height}
        self.firefox_pid: int | None = None
        self.driver: subprocess.Popen[str] | None = None
        self.driver_log: Any = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._next_id = 0
        workdir.mkdir(parents=True, exist_ok=True)
        self.xvfb, display = _start_xvfb(width, height + 200)
        try:
            self._start_driver(display)
        except BaseException:
            self.close()
            raise
        OPEN_PAGES.add(self)  # a failed test leaves a picture of this page too

    def _start_driver(self, display: str) -> None:
        # Firefox's profile goes to TMPDIR, inside workdir, which close() removes even after a kill.
        env = {**os.environ, "DISPLAY": display, "TMPDIR": str(self.workdir)}
        env["MOZ_CRASHREPORTER_DISABLE"] = "1"
        self.driver_log = (self.workdir / "driver.log").open("w")
        size = self.viewport_size
        self.driver = subprocess.Popen(
            ["node", str(DRIVER), FIREFOX, str(size["width"]), str(size["height"])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.driver_log,
            text=True,
            env=env,
        )
        threading.Thread(target=self._read, args=(self.driver.stdout,), daemon=True).start()
        self.firefox_pid = json.loads(self._line(timeout=60))["firefoxPid"]

    def _read(self, stream: Any) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)  # the driver ended

    def _line(self, timeout: float) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            silent = f"the Firefox driver said nothing for {timeout:.0f} s"
            raise TimeoutError(silent + self._log_tail()) from None
        if line is None:
            raise RuntimeError(f"the Firefox driver ended{self._log_tail()}")
        return line

    def _log_tail(self) -> str:
        path = self.workdir / "driver.log"
        return f": {path.read_text()[-2000:]}" if path.exists() else ""

    def call(self, op: str, timeout: float = 60, **params: Any) -> Any:
        """Sends one command to the driver and returns its value (raises with the driver's error)."""
        assert self.driver is not None and self.driver.stdin is not None
        self._next_id += 1
        self.driver.stdin.write(json.dumps({"id": self._next_id, "op": op, **params}) + "\n")
        self.driver.stdin.flush()
        answer = json.loads(self._line(timeout))
        assert answer["id"] == self._next_id, answer
        if not answer["ok"]:
            raise RuntimeError(f"Firefox {op}: {answer['error']}")
        return answer["value"]

    # The Playwright Page calls the harness makes (timeouts in ms, as Playwright's).

    def goto(self, url: str) -> None:
        self.call("goto", url=url, timeout=120)

    def evaluate(self, source: str, arg: Any = None, frame: int | None = None) -> Any:
        """Calls the function ``source`` with ``arg`` in the page, or in the ``frame``-th viewer frame
        (of :data:`VIEWER_FRAMES`)."""
        where = {"selector": VIEWER_FRAMES, "index": frame} if frame is not None else None
        return self.call("evaluate", source=source, arg=arg, frame=where)

    def wait_for_function(
        self, source: str, arg: Any = None, timeout: float = 30_000, frame: int | None = None
    ) -> Any:
        """Polls ``source`` (as :meth:`evaluate`) until it returns a truthy value, and returns it."""
        deadline = time.monotonic() + timeout / 1000
        while True:
            value = self.evaluate(source, arg, frame)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still {value!r} after {timeout / 1000:.0f} s: {source}")
            time.sleep(0.2)

    def screenshot(self, clip: dict[str, float], timeout: float = 30_000) -> bytes:
        """A PNG of the page's ``clip`` rectangle, the frames' contents included."""
        return base64.b64decode(self.call("screenshot", clip=clip, timeout=timeout / 1000))

    # What a user does: presses at page coordinates and types.

    def click(self, x: float, y: float, modifiers: tuple[str, ...] = ()) -> None:
        self.call("click", x=x, y=y, modifiers=list(modifiers))

    def type(self, text: str) -> None:
        self.call("type", text=text)

    # What the page did.

    def recorded(self) -> dict[str, list[str]]:
        return dict(self.call("log"))

    def off_machine_requests(self) -> list[str]:
        return [url for url in self.recorded()["requests"] if not is_loopback_url(url)]

    def save_failure_picture(self) -> None:
        """A screenshot of the window and the console errors in test-artifacts/failed/, named by the test."""
        test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split(" ")[0].split("::")[-1]
        stem = ARTIFACTS / "failed" / f"{SAFE_NAME.sub('_', test)}-firefox"
        stem.parent.mkdir(parents=True, exist_ok=True)
        try:
            size = self.viewport_size
            Path(f"{stem}.png").write_bytes(self.screenshot({"x": 0, "y": 0, **size}, timeout=10_000))
            Path(f"{stem}.console.txt").write_text("\n".join(self.recorded()["consoleErrors"]))
        except (RuntimeError, TimeoutError) as error:  # a dead driver: nothing to picture
            Path(f"{stem}.console.txt").write_text(f"(no picture: {error})")

    def close(self) -> None:
        """Closes Firefox through the driver, then stops whatever still runs, and removes the workdir."""
        OPEN_PAGES.discard(self)
        closed = False
        if self.driver and self.driver.poll() is None and self.driver.stdin:
            self.driver.stdin.close()  # the driver closes the browser and exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                closed = self.driver.wait(15) == 0
        if self.firefox_pid and not closed:
            # puppeteer starts Firefox as the leader of its own process group (its content processes too).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.firefox_pid, signal.SIGKILL)
        stop_process(self.driver)
        stop_process(self.xvfb)
        if self.driver_log:
            self.driver_log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _start_xvfb(width: int, height: int) -> tuple[subprocess.Popen[bytes], str]:
    """Starts Xvfb on a display it picks itself (``-displayfd``: no race with the other test worker)."""
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        [XVFB, "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=[write],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as displayfd:
            number = displayfd.readline().strip()  # empty if Xvfb exited
    except BaseException:
        stop_process(xvfb)
        raise
    if not number:
        stop_process(xvfb)
        raise RuntimeError(f"{XVFB} did not start (exit status {xvfb.wait()})")
    return xvfb, f":{number}"
