"""Benchmark: explore() in a real JupyterLab + headless Chromium, on five traces, in one run.

    .venv/bin/python -m benchmarks.bench_explore            # the full matrix, 3 repeats (~20 min, 2 CPUs)
    .venv/bin/python -m benchmarks.bench_explore --quick    # 1 repeat, fewer clicks (~10 min)
    .venv/bin/python -m benchmarks.bench_explore --cases gpt2,bert --repeat 5

Cases (benchmarks/bench_models.py; transformers models from configs, random weights, nothing
downloaded): GPT-2 small, BERT base, ViT base, GPT-2 with 48 layers (64 wide), a synthetic
10,000-op trace. For each, in a kernel of its own:

  - Python: explore() and its first graph reply (where it exports) against the bare torchlens
    export it wraps (both viewers), best of 3;
  - cell execution -> graph rendered inline (first widget on a fresh page, where the viewer's assets
    cross the widget channel; a later one, its cell run as soon as the first drew; for Model Explorer
    also a next one, its cell run NEXT_CELL_PAUSE_S later, as a reader runs the next cell, by when
    an app is parked for it: js/model-explorer/parked-app.ts), against the same graph in the same
    viewer served by its own package (Model Explorer's server from ai-edge-model-explorer,
    netron.serve) and opened in a plain page (navigation -> rendered);
  - bytes: over the widget channel for the first and a later widget; HTTP bodies of the served page;
  - a click in the viewer -> on_select in the kernel -> status line updated in the browser;
  - kernel memory held per widget (tracemalloc and resident set), against the bare export;
  - the same Model Explorer cell in an emulated VS Code notebook (tests/helpers/vscode_host: VS Code's
    ipywidgets manager in a cross-site webview, fed as VS Code's IPC feeds it): cell -> rendered and
    the widget-message bytes its webview received, beside JupyterLab's kernel-socket bytes.

    .venv/bin/python -m benchmarks.bench_explore --cases gpt2 --quick --parts inline,vscode

Prints one table (medians; ratios inline/served and explore/export), and progress on stderr.
Figures, not assertions: nothing here fails on a slow machine; a step that fails prints why.

The package: cells.py (the notebook each case's kernel runs), page_scripts.py (what the pages evaluate),
rows.py (the table's rows), results.py (the figures and a failed step's reason), notebook.py (the
JupyterLab page: cell -> rendered), kernel_side.py (explore() and memory in the kernel), clicks.py,
served.py (the viewers served by their own packages), vscode.py (the emulated VS Code host), run.py (one
case, all cases), table.py, cli.py (the flags and the printed report).
"""
