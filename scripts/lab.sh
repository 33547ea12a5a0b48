#!/usr/bin/env bash
# Opens notebooks/01_explore.ipynb in JupyterLab on 127.0.0.1 (the demo's second step, after setup.sh).
# Its output is a few lines: the URL to open, then only warnings and errors. Extra arguments go to
# JupyterLab (e.g. --no-browser --ServerApp.port=8890).
set -euo pipefail
cd "$(dirname "$0")/.."
# JupyterLab refuses to start as root (a container, a cloud notebook machine) unless told it may.
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-root)
echo "== JupyterLab with notebooks/01_explore.ipynb: open the URL below (Ctrl-C stops it)"
exec .venv/bin/jupyter lab "${as_root[@]}" \
  --ServerApp.ip=127.0.0.1 --ServerApp.log_level=WARN --LabApp.log_level=WARN \
  notebooks/01_explore.ipynb "$@"
