"""The viewer frames obey only their own parent, and the page downloads only what the user asked for.

A sandboxed iframe in another output of the same notebook (any HTML output can hold one) reaches
every frame of the page through ``window.top.frames`` and posts the viewers' own commands to each.
Netron's sandboxed frame asks the page for downloads; the page turns only an image the user just
exported through Netron's menu into one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import RecordedPage, notebook_session
from harness import JupyterServer, KernelAccess, open_info_panel
from playwright.sync_api import expect

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from IPython.display import HTML
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
log = tl.trace(model, torch.randn(1, 4))
events = []""",
    "w = tlw.explore(log, height=320)\nw.on_select(lambda record: events.append(('w', record.label)))\nw",
    "n = tlw.explore(log, viewer='netron', granularity='op', height=320)\n"
    "n.on_select(lambda record: events.append(('n', record.label)))\nn",
    """HTML('<iframe class="forger" sandbox="allow-scripts" srcdoc="<p>another output</p>"></iframe>')""",
]

# Every frame records the viewers' commands it hears (before any of its own scripts listen).
HEARD = """(() => {
  window.__tlwHeard = [];
  window.addEventListener("message", (event) => {
    const cmd = event.data && event.data.cmd;
    if (typeof cmd === "string" && cmd !== "tlw-me-fetch-reply") window.__tlwHeard.push(cmd);
  });
})();"""

# Run in the forger's frame: post select commands (and a forged selection report to the page) to
# every frame of the page, found recursively through window.top.frames.
FORGE = """([nodeId, label]) => {
  const frames = [];
  const visit = (win) => {
    for (let i = 0; i < win.length; i += 1) {
      frames.push(win[i]);
      visit(win[i]);
    }
  };
  visit(window.top);
  for (const target of frames) {
    if (target === window) continue;
    target.postMessage({ cmd: "model-explorer-select-node-by-node-id", nodeId }, "*");
    target.postMessage({ cmd: "tlw-netron-select", name: label }, "*");
  }
  window.top.postMessage({ cmd: "model-explorer-node-selected", nodeId }, "*");
  window.top.postMessage({ cmd: "tlw-netron-selected", name: label, type: "", source: "target" }, "*");
  return frames.length;
}"""


@dataclass
class Session:
    page: RecordedPage
    kernel: KernelAccess

    def frame(self, title: str) -> Any:
        handle = self.page.page.locator(f"iframe.tlw-frame[title='{title}']").element_handle(timeout=30_000)
        return handle.content_frame()

    @property
    def forger(self) -> Any:
        return self.page.page.locator("iframe.forger").element_handle(timeout=30_000).content_frame()


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    name = "frame-messages.ipynb"
    with notebook_session(jupyter_lab, browser, name, CELLS, widgets=2, init_script=HEARD) as (page, kernel):
        kernel.wait_ready("w")
        kernel.wait_ready("n")
        yield Session(page, kernel)


def test_forged_select_commands_from_another_output_change_nothing(session: Session) -> None:
    kernel = session.kernel
    forged = kernel.value("log['linear_2_3'].label")
    forged_id = kernel.value(f"w._source.index.id_of_label({forged!r})")
    explorer, netron = session.frame("Model Explorer"), session.frame("Netron")
    explorer.locator("webgl-renderer canvas").first.wait_for(state="attached", timeout=60_000)
    assert session.forger.evaluate(FORGE, [forged_id, forged]) >= 3  # both viewers and the forger
    # Netron's frame received the forged commands (its window heard them) ... Polled on a timer: an
    # off-screen sandboxed frame runs no animation frame, Playwright's default polling. Model
    # Explorer's frame, which runs in a process of its own, is not reached at all: Chromium delivers
    # to it its parent's messages only (measured: the page's, never the forger's or Netron's frame's).
    # Its guard for messages that do arrive is unit-tested (tests/js/frame-shim-messages.test.ts).
    heard = "name => window.__tlwHeard.includes(name)"
    netron.wait_for_function(heard, arg="tlw-netron-select", polling=100)
    # ... and acted on none. A real selection from the kernel goes through, and is the only one.
    kernel.run("w.select('relu_1_2'); n.select('relu_1_2')")
    explorer.frame_element().scroll_into_view_if_needed()  # each viewer shows a selection on screen
    open_info_panel(explorer)  # the widget starts the app's own panel closed
    row = explorer.locator("info-panel tr").filter(has=explorer.locator("td.key", has_text="torchlens_label"))
    expect(row.locator("td.value .one-line-text").first).to_have_text("relu_1_2:1", timeout=30_000)
    netron.frame_element().scroll_into_view_if_needed()
    expect(netron.locator("#sidebar-content")).to_contain_text("relu_1_2", timeout=30_000)
    statuses = session.page.page.locator(".tlw-status")
    expect(statuses.nth(0)).to_contain_text("selected relu_1_2")
    expect(statuses.nth(1)).to_contain_text("selected relu_1_2")
    assert kernel.value("events") == [("w", "relu_1_2:1"), ("n", "relu_1_2:1")]
    assert kernel.value("(w.selected_label, n.selected_label)") == ("relu_1_2:1", "relu_1_2:1")
    assert forged not in netron.locator("#sidebar-content").inner_text()


# Run in Netron's frame, as a compromised frame would: export requests no click came before, then a
# selection report (messages from one frame arrive in order: once it is handled, so are they).
# Playwright evaluates as a user gesture, so the script first waits for that activation to expire.
FORGED_EXPORTS = """async () => {
  while (navigator.userActivation.isActive) await new Promise((resolve) => setTimeout(resolve, 100));
  const html = new Blob(["<script>alert(1)</script>"], { type: "text/html" });
  window.parent.postMessage({ cmd: "tlw-netron-export", file: "setup.exe", blob: html }, "*");
  window.parent.postMessage({ cmd: "tlw-netron-export", file: "page.html", blob: html }, "*");
  const png = new Blob(["not really a png"], { type: "image/png" });
  window.parent.postMessage({ cmd: "tlw-netron-export", file: "graph.png", blob: png }, "*");
  const selected = { cmd: "tlw-netron-selected", name: "linear_1_1", type: "", source: "target" };
  window.parent.postMessage(selected, "*");
}"""


def test_export_messages_without_a_click_download_nothing(session: Session) -> None:
    downloads: list[Any] = []
    page = session.page.page

    def on_download(download: Any) -> None:
        downloads.append(download)

    page.on("download", on_download)
    try:
        session.frame("Netron").evaluate(FORGED_EXPORTS)
        session.kernel.wait_for("n.selected_node", "linear_1_1", timeout=30)
        notice = page.locator(".tlw-notice").nth(1)
        expect(notice).to_contain_text("export was not downloaded: no click in the viewer", timeout=30_000)
        assert downloads == []
    finally:
        page.remove_listener("download", on_download)


MENU_EXPORTS = [("Export as SVG", "svg", b"<svg"), ("Export as PNG", "png", b"\x89PNG")]


@pytest.mark.parametrize(("item", "extension", "magic"), MENU_EXPORTS)
def test_export_through_netrons_menu_downloads_the_image(
    session: Session, tmp_path: Any, item: str, extension: str, magic: bytes
) -> None:
    netron = session.frame("Netron")
    netron.locator("#menu-button").click()
    with session.page.page.expect_download(timeout=60_000) as download_info:
        netron.locator("button.menu-command", has_text=item).click()
    download = download_info.value
    assert download.suggested_filename.endswith(f".{extension}"), download.suggested_filename
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    assert magic in path.read_bytes()[:200]


# A link to a javascript: URL in Netron's frame (Netron's own sidebar buttons are such links).
JAVASCRIPT_LINK = """() => {
  const link = document.createElement("a");
  link.id = "tlw-test-js-link";
  link.href = "javascript:window.__tlwRan = (window.__tlwRan || 0) + 1";
  link.textContent = "run";
  link.style.cssText = "position: fixed; top: 0; right: 0; z-index: 99; background: yellow";
  document.body.appendChild(link);
}"""
# What the frame's CSP says when something navigates it to a javascript: URL.
CSP_REFUSAL = "Running the JavaScript URL violates the following Content Security Policy"


def test_javascript_urls_never_run_in_netrons_frame(session: Session) -> None:
    netron = session.frame("Netron")
    netron.evaluate(JAVASCRIPT_LINK)
    netron.locator("#tlw-test-js-link").click()  # the link guard: no navigation
    # Past the guard (a script navigating the frame itself), the CSP refuses to run the URL.
    with session.page.page.expect_console_message(
        lambda message: CSP_REFUSAL in message.text, timeout=30_000
    ):
        netron.evaluate(
            "() => { location.href = 'javascript:window.__tlwRan = (window.__tlwRan || 0) + 1'; }"
        )
    expect(session.page.page.locator(".tlw-status").nth(1)).to_have_attribute("data-state", "ready")
    assert netron.evaluate("window.__tlwRan") is None
    session.page.console_errors[:] = [text for text in session.page.console_errors if CSP_REFUSAL not in text]


def test_no_console_errors(session: Session) -> None:
    assert session.page.console_errors == []
