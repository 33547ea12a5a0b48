#!/usr/bin/env bash
# Sets everything up and opens the demo notebook in JupyterLab (on 127.0.0.1; the URL is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec bash scripts/lab.sh "$@"
