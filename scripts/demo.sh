#!/usr/bin/env bash
# Sets everything up and opens the demo notebook in JupyterLab (http://127.0.0.1:8888).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/jupyter lab --ServerApp.ip=127.0.0.1 notebooks/01_explore.ipynb "$@"
