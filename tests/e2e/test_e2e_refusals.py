"""What the kernel refuses and what fails in it reaches the page: in a real JupyterLab + Chromium.

- a value the page sets on the widget's model that the kernel refuses (an unknown node id) is put back
  in the view and explained in the widget's notice;
- an on_select callback that raises during a real click is named in the notice, and the next runs;
- privacy_profile="public" in Netron: the sidebar's node description names no source file;
- a long save_html() shows a progress bar in the cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.helpers.harness import WIDGET_MODEL, JupyterServer, select_in_viewer_ui
from tests.helpers.notebook import NotebookSession as Session
from tests.helpers.notebook import notebook_session

CELLS = [
    """import tempfile, torch, torchlens as tl, torchlens_widgets as tlw
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=6, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)).eval()
with torch.no_grad():
    log = tl.trace(model, torch.randint(0, 1000, (1, 12)))""",
    """w = tlw.explore(log, height=560)
seen = []
def broken(record):
    raise RuntimeError("my callback is broken")
w.on_select(broken)
w.on_select(lambda record: seen.append(record.label))
w""",
    "local = tlw.explore(log, viewer='netron', granularity='op', height=420)\nlocal",
    "public = tlw.explore(log, viewer='netron', granularity='op', height=420, privacy_profile='public')\n"
    "public",
    # A folder the kernel removes as it exits: every run of the suite left one behind in /tmp.
    "folder = tempfile.TemporaryDirectory()\nsaved = w.save_html(folder.name + '/gpt2.html')",
]

# Sets state on the widget's model in the page, as a view does (model.set + save_changes): the model
# is found through the rendered output's widget manager. It sets once no update of the model is in
# flight: ipywidgets holds an update back while an earlier one awaits the kernel and merges later
# changes into it, so the viewer's late report of the selection could overwrite the value before it
# is sent (the view's picture of the graph is such an earlier update). From then on the page records
# every selected_node the kernel sends the model (ipywidgets applies the kernel's updates with
# set_state; the page's own model.set does not go through it) in window.__tlwKernelSent.
SET_FROM_PAGE = f"""async ([modelId, state]) => {{
  const model = await ({WIDGET_MODEL})(modelId);
  while (model._pending_msgs > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const sent = (window.__tlwKernelSent = []);
  const setState = model.set_state;
  model.set_state = function (update) {{
    if (update && "selected_node" in update) sent.push(update.selected_node);
    return setState.call(this, update);
  }};
  window.__tlwModel = model;
  for (const [key, value] of Object.entries(state)) model.set(key, value);
  model.save_changes();
}}"""

# What the kernel sent back since the set, and what the page's model holds now.
KERNEL_SENT = "() => ({ sent: window.__tlwKernelSent, held: window.__tlwModel.get('selected_node') })"


@pytest.fixture(scope="module")
def session(jupyter_lab: JupyterServer, browser: Any) -> Iterator[Session]:
    with notebook_session(jupyter_lab, browser, "refusals.ipynb", CELLS, widgets=3) as (page, kernel):
        for name in ("w", "local", "public"):
            kernel.wait_ready(name)
        yield Session(page, kernel)


def test_a_refused_value_set_in_the_page_is_reverted_and_explained(session: Session) -> None:
    kernel = session.kernel
    assert kernel.value("(w.notice, local.notice, public.notice)") == (
        "",
        "",
        "",
    )  # drawing sets nothing refused
    kernel.run("w.select('transformer.h.2.mlp.c_fc'); seen.clear()")
    node, label = kernel.value("(w.selected_node, w.selected_label)")
    model_id = kernel.value("w.model_id")
    page = session.page.page
    page.wait_for_function(f"""() => {{
      const status = document.querySelector('.tlw-status');
      return status && status.textContent.includes({label!r});
    }}""")
    page.evaluate(SET_FROM_PAGE, [model_id, {"selected_node": "no-such-node"}])
    # The kernel refused it and sent its own value back: the page's model holds the node again
    # because the kernel said so (not because the view re-set it), and the kernel kept it.
    page.wait_for_function(f"() => ({KERNEL_SENT})().sent.includes({node!r})", timeout=30_000)
    back = page.evaluate(KERNEL_SENT)
    assert set(back["sent"]) == {node} and back["held"] == node, back
    assert kernel.value("(w.selected_node, w.selected_label)") == (node, label)
    assert kernel.value("seen") == []  # no callback ran for the refused value
    # ...and says why, in the kernel and in the view.
    refused = (
        'The view\'s change of selected_node to "no-such-node" was refused: NodeNotFoundError: '
        "No node with viewer id 'no-such-node'. Remedy: use select(name) with a label."
    )
    assert kernel.value("w.notice") == refused
    # The viewer's late report of the node w.select() showed must not clear it (it asks for nothing new).
    expect(session.root(0).locator(".tlw-notice")).to_have_text(refused, timeout=30_000)
    expect(session.root(0).locator(".tlw-status")).to_contain_text(f"selected {label}")
    assert session.page.console_errors == []


def test_a_raising_callback_during_a_click_is_shown_and_the_next_one_runs(
    session: Session, artifacts: Any
) -> None:
    kernel = session.kernel
    target = kernel.value("log['transformer.h.4.mlp.c_proj'].label")
    node_id = kernel.value(f"w._source.index.id_of_label({target!r})")
    select_in_viewer_ui(session.frame(0), target, node_id)
    kernel.wait_for("seen", [target], timeout=30)  # the callback after the broken one ran
    assert "broken raised RuntimeError: my callback is broken" in kernel.value("w.notice")
    expect(session.root(0).locator(".tlw-notice")).to_contain_text("my callback is broken", timeout=30_000)
    session.root(0).screenshot(path=str(artifacts / "callback-error-notice.png"))
    assert session.page.console_errors == []


def sidebar_description(session: Session, index: int, op: str) -> str:
    """Click the first ``op`` box in the index-th widget's Netron and read its sidebar."""
    frame = session.frame(index)
    frame.locator("g.node", has_text=op).first.locator(".node-item-type").first.click()
    sidebar = frame.locator("#sidebar-content")
    expect(sidebar).to_contain_text(op, timeout=30_000)
    return str(sidebar.inner_text())


def test_public_netron_names_no_source_file(session: Session, artifacts: Any) -> None:
    assert "called at" in sidebar_description(session, 1, "addmm")  # torchlens' own description
    text = sidebar_description(session, 2, "addmm")
    assert "called at" not in text and ".py" not in text
    session.root(2).screenshot(path=str(artifacts / "netron-public-sidebar.png"))
    assert session.page.console_errors == []


def test_a_long_save_shows_a_progress_bar_in_the_cell(session: Session) -> None:
    session.kernel.wait_for("'saved' in globals()", True, timeout=120)
    output = session.page.page.locator(
        ".jp-OutputArea-output", has=session.page.page.locator(".widget-hprogress")
    )
    expect(output).to_have_count(1, timeout=30_000)
    expect(output).to_contain_text("gpt2.html", timeout=30_000)
    expect(output).to_contain_text("MB")
    assert session.page.console_errors == []
