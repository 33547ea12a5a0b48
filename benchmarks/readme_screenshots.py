"""The README's screenshots, taken from a real JupyterLab in headless Chromium; not a test.

    .venv/bin/python -m benchmarks.readme_screenshots --out docs

docs/screenshot.png: GPT-2 (2 layers) in Model Explorer, coloured by measured time, a node selected,
the inspector beside the graph, in the default layout. docs/netron.png: a small BERT in Netron at
module granularity, an op inside a module call selected. docs/memory.png: the same GPT-2 coloured by
torchlens' estimated live bytes, its memory strip under the graph, the peak op selected.
docs/compare.png: four training-like steps of that GPT-2 in tlw.compare, coloured by each node's delta
from the first, an op selected with its small multiples. Widgets ``--width`` px wide.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from tests.helpers.harness import CHROMIUM, CHROMIUM_ARGS, JupyterServer, open_notebook, run_all_cells

CELLS = [
    """import torch, torchlens as tl, torchlens_widgets as tlw
from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=1000, n_positions=64)).eval()
bert = BertModel(BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=128, vocab_size=1000)).eval()
tokens = torch.randint(0, 1000, (1, 12))
with torch.no_grad():
    gpt2_log = tl.trace(gpt2, tokens)
    bert_log = tl.trace(bert, tokens)""",
    "w = tlw.explore(gpt2_log, overlay='time', height=560)\nw",
    "n = tlw.explore(bert_log, viewer='netron', height=560)\nn",
    "m = tlw.explore(gpt2_log, overlay='memory', timeline='memory', height=460)\nm",
    """steps = {}
with torch.no_grad():
    for step in range(4):
        steps[f"step{step}"] = tl.trace(gpt2, tokens)
        for parameter in gpt2.parameters():  # a training-like step: every weight moves a little
            parameter.add_(torch.randn_like(parameter) * 2e-3)
c = tlw.compare(steps, height=460)
c""",
]
READY = """n => document.querySelectorAll(".tlw-status[data-state='ready']").length >= n"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=968)
    parser.add_argument("--out", default="docs")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as root, sync_playwright() as playwright:
        server = JupyterServer(Path(root)).start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            name = server.write_notebook("readme.ipynb", CELLS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            open_notebook(page, server, name)
            kernel = server.kernel_for(name)
            run_all_cells(page)
            roots = page.locator(".tlw-root")
            # A view off screen waits to be scrolled to before it draws, as a reader's would.
            for index in (0, 1, 2, 3):
                roots.nth(index).scroll_into_view_if_needed()
                page.wait_for_function(READY, arg=index + 1, timeout=300_000)
            width = roots.first.bounding_box()["width"]  # type: ignore[index]
            page.set_viewport_size({"width": round(1400 + args.width - width), "height": 1000})
            # An op inside layer 1's MLP; in Netron, the first linear op (inside a module call).
            kernel.run("w.select([l for l in gpt2_log.layer_labels if l.startswith('view')][20])")
            kernel.run("n.select([l for l in bert_log.layer_labels if l.startswith('linear')][0])")
            page.wait_for_timeout(4_000)  # selection, centring and the inspector's answer
            roots.nth(0).scroll_into_view_if_needed()
            page.wait_for_timeout(1_000)
            roots.nth(0).screenshot(path=str(out / "screenshot.png"))
            roots.nth(1).scroll_into_view_if_needed()
            page.wait_for_timeout(1_500)  # Netron's sidebar slides in
            roots.nth(1).screenshot(path=str(out / "netron.png"))
            kernel.run("m.memory_peak()")
            roots.nth(2).scroll_into_view_if_needed()
            page.wait_for_timeout(4_000)  # the peak selected and centred, the inspector's answer
            roots.nth(2).screenshot(path=str(out / "memory.png"))
            kernel.run("c.run = 'step2'")
            kernel.run("c.select([l for l in steps['step0'].layer_labels if l.startswith('addmm')][6])")
            roots.nth(3).scroll_into_view_if_needed()
            page.wait_for_timeout(4_000)  # the recolour, the selection centred, the small multiples
            roots.nth(3).screenshot(path=str(out / "compare.png"))
            kernel.close()
        finally:
            browser.close()
            server.stop()


if __name__ == "__main__":
    main()
