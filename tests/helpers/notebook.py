"""A notebook in a real JupyterLab page for the e2e tests: the recorded page (its requests, console and a
failure picture), the session a module's fixture yields, and notebook_session, which writes, opens and
runs a notebook until its widgets settled."""

from __future__ import annotations

import os
import re
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers.harness import JupyterServer, KernelAccess, is_loopback_url, open_notebook, run_all_cells

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

SAFE_NAME = re.compile(r"[^\w.-]+")

# Every page still open, so that a failed test leaves a picture of what the user saw.
OPEN_PAGES: weakref.WeakSet[RecordedPage] = weakref.WeakSet()


# Counts the top window's live "message" listeners (each viewer frame's bridge adds one) and its live
# interval timers (a view's draw deadline and status line tick while it waits for its frame).
LISTENER_COUNTER = """(() => {
  const intervals = new Set();
  const setInterval_ = window.setInterval;
  const clearInterval_ = window.clearInterval;
  window.setInterval = function (...args) {
    const id = setInterval_.apply(this, args);
    intervals.add(id);
    return id;
  };
  window.clearInterval = function (id) {
    intervals.delete(id);
    return clearInterval_.call(this, id);
  };
  window.__tlwLiveIntervals = () => intervals.size;
  const live = new Set();
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (this === window && type === "message") live.add(listener);
    return add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    if (this === window && type === "message") live.delete(listener);
    return remove.call(this, type, listener, options);
  };
  window.__tlwMessageListeners = () => live.size;
})();"""


# The text each cell output of a page shows (a widget's status line, an error), for a failure's report.
OUTPUTS_TEXT = (
    "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
    ".map(output => output.innerText.slice(0, 300))"
)


class RecordedPage:
    """A Chromium page that records every request it (and its frames and workers) makes."""

    def __init__(
        self, browser: object, width: int = 1400, height: int = 1000, color_scheme: str = "light"
    ) -> None:
        # color_scheme="no-override" lets frames follow their own color-scheme (Playwright's default
        # emulates "light" in every frame, whatever the page asks for).
        self.context = browser.new_context(  # type: ignore[attr-defined]
            viewport={"width": width, "height": height}, color_scheme=color_scheme
        )
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.console_messages: list[str] = []  # every type (Chromium's WebGL warnings are "warning")
        self.settled_s = 0.0  # notebook_session: seconds from Run All to every widget settled
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.console_errors.append(f"uncaught: {error}"))
        OPEN_PAGES.add(self)

    def _on_console(self, message: Any) -> None:
        self.console_messages.append(message.text)
        if message.type == "error":
            self.console_errors.append(message.text)

    def count_window_listeners(self) -> None:
        """From the next navigation on, window.__tlwMessageListeners() counts live "message" listeners
        and window.__tlwLiveIntervals() live interval timers."""
        self.context.add_init_script(LISTENER_COUNTER)

    def off_machine_requests(self) -> list[str]:
        return [url for url in self.requests if not is_loopback_url(url)]

    def save_failure_picture(self) -> None:
        """A screenshot of this page and its console log in test-artifacts/failed/, named by the test."""
        test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split(" ")[0].split("::")[-1]
        stem = ARTIFACTS / "failed" / f"{SAFE_NAME.sub('_', test)}-{id(self):x}"
        stem.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.page.screenshot(path=f"{stem}.png", full_page=True, timeout=10_000)
        except Exception as error:  # a crashed page: its console log still helps
            self.console_messages.append(f"(no screenshot: {error})")
        Path(f"{stem}.console.txt").write_text("\n".join(self.console_messages))
        # CI keeps only what the test printed: what the cells' outputs say, and the console's last lines.
        print(f"\nthe page's outputs when it failed: {self.outputs_text()}")
        print("its console's last lines:\n  " + "\n  ".join(self.console_messages[-20:]))

    def outputs_text(self) -> list[str]:
        """The text each cell output of the page shows (a widget's status line, an error), for a failure."""
        try:
            texts = self.page.evaluate(OUTPUTS_TEXT)
        except Exception as error:  # a crashed page
            return [f"(unreadable: {error})"]
        return [str(text) for text in texts]

    def close(self) -> None:
        OPEN_PAGES.discard(self)
        if sys.exc_info()[1] is not None:  # closed by a `finally` while a test fails
            self.save_failure_picture()
        self.context.close()


@dataclass
class NotebookSession:
    """A module's open notebook page and a second client on its kernel (what its fixture yields)."""

    page: RecordedPage
    kernel: KernelAccess

    def root(self, index: int) -> Any:
        return self.page.page.locator(".tlw-root").nth(index)

    def frame(self, index: int) -> Any:
        """The ``index``-th viewer frame on the page."""
        return self.page.page.locator("iframe.tlw-frame").nth(index).content_frame

    def drawn_at(self, index: int) -> str:
        return str(
            self.page.page.evaluate(
                f"document.querySelectorAll('.tlw-root')[{index}].parentElement.dataset.renderedAt"
            )
        )

    def wait_redrawn(self, index: int, before: str, viewer: str | None = None) -> None:
        """Waits until widget ``index`` drew a graph after ``before`` (its renderedAt), in ``viewer``
        if given (a trait change before a viewer switch may redraw the old viewer first), and is ready.
        It looks at the widget first, as its reader would: a viewer frame draws only in the viewport."""
        self.root(index).scroll_into_view_if_needed()
        try:
            self.page.page.wait_for_function(
                """([i, before, viewer]) => {
                  const root = document.querySelectorAll('.tlw-root')[i];
                  const drawn = root.parentElement.dataset;
                  return drawn.renderedAt !== before && (!viewer || drawn.viewer === viewer)
                    && root.querySelector('.tlw-status').dataset.state === 'ready';
                }""",
                arg=[index, before, viewer],
                timeout=180_000,
            )
        except Exception as timeout:
            raise AssertionError(f"widget {index} did not redraw: {self.describe(index)}") from timeout

    def describe(self, index: int) -> str:
        """What widget ``index`` shows now (its status line, state, last draw, error box), for a failure."""
        return str(
            self.page.page.evaluate(
                """i => {
                  const root = document.querySelectorAll('.tlw-root')[i];
                  const status = root.querySelector('.tlw-status');
                  const error = root.querySelector('.tlw-error');
                  return JSON.stringify({
                    status: status?.textContent, state: status?.dataset.state,
                    drawn: {...root.parentElement.dataset}, error: error?.textContent,
                    frames: root.querySelectorAll('iframe').length,
                    displayed: root.getClientRects().length > 0,
                  });
                }""",
                index,
            )
        )


class WidgetFramesSession(NotebookSession):
    """A session whose frames are found within each widget's own root: a paused off-screen explorer
    has no frame, so page-wide positions would shift."""

    def frame_element(self, index: int) -> Any:
        return self.root(index).locator("iframe.tlw-frame")

    def frame(self, index: int) -> Any:
        return self.frame_element(index).content_frame


# Two animation frames and a task after them, in a page or a frame: the rendering update after a change
# has run, and what it queued has too (an IntersectionObserver's report, a panel following a selection).
AFTER_TWO_FRAMES = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done))))"""

# True once n widgets on the page have finished loading, drawn or failed. Meanwhile it scrolls to the
# first widget still loading, as a reader of the notebook would: Chromium renders Model Explorer's
# out-of-process frame only in the viewport, so an explorer below the fold draws once scrolled to.
SETTLED = """n => {
  const done = ".tlw-status[data-state='ready'], .tlw-status[data-state='error']";
  // A view still loading, or paused to keep the page's WebGL budget (it resumes on screen only).
  const loading = [...document.querySelectorAll(".tlw-root")].find((root) =>
    root.querySelector(".tlw-status[data-state='loading'], .tlw-status[data-state='paused']"));
  if (loading && document.querySelectorAll(done).length < n) loading.scrollIntoView({ block: "nearest" });
  return document.querySelectorAll(done).length >= n;
}"""


@contextmanager
def notebook_session(
    server: JupyterServer,
    browser: object,
    name: str,
    cells: list[str],
    widgets: int = 1,
    color_scheme: str = "light",
    count_listeners: bool = False,
    init_script: str | None = None,
    on_page: Callable[[RecordedPage], None] | None = None,
    height: int = 1000,
    settled: Callable[[RecordedPage], None] | None = None,
    open_timeout: float = 120_000,
    reconnect_after: float | None = None,
) -> Iterator[tuple[RecordedPage, KernelAccess]]:
    """Writes ``cells`` as a notebook, opens it, runs every cell and waits for ``widgets`` widgets.

    ``init_script`` runs in every frame of the page before the frame's own scripts; ``on_page(page)``
    before the notebook opens (to listen to the page from its first request); ``height``: the page's;
    ``settled(page)``, when given, is the wait after Run All instead of ``widgets`` settled;
    ``reconnect_after``: see :func:`open_notebook`."""
    notebook = server.write_notebook(name, cells)
    page = RecordedPage(browser, height=height, color_scheme=color_scheme)
    if count_listeners:
        page.count_window_listeners()
    if init_script:
        page.context.add_init_script(init_script)
    if on_page:
        on_page(page)
    try:
        open_notebook(page.page, server, notebook, timeout=open_timeout, reconnect_after=reconnect_after)
        kernel = server.kernel_for(notebook)
        try:
            started = time.monotonic()
            run_all_cells(page.page)
            if settled is not None:
                settled(page)
            else:
                page.page.wait_for_function(SETTLED, arg=widgets, timeout=240_000)
            page.settled_s = time.monotonic() - started
            yield page, kernel
        finally:
            kernel.close()
    finally:
        page.close()
        server.shut_down_notebook(notebook)
