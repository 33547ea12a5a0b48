#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh test) and runs every check and test:
# lint and types (ruff, mypy, tsc, biome), JS unit tests (vitest), Python tests (pytest), end-to-end tests
# in a real JupyterLab and headless Chromium, the wheel's contents, and the example notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
py=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"
# pytest runs two workers on two cores, each with its kernels: a torch op's extra threads would only
# spin while the other worker waits for the CPU. One thread per process (kernels inherit it): the unit
# tests alone took 142 s of CPU with the default threads and 92 s with one (2026-12-06).
export OMP_NUM_THREADS=1
mkdir -p test-artifacts

echo "== ruff"
ruff check torchlens_widgets tests benchmarks
ruff format --check torchlens_widgets tests benchmarks
echo "== mypy"
mypy
echo "== tsc"
npx tsc --noEmit -p .
echo "== biome (format and lint of js/ and tests/js/)"
npx biome ci js tests/js
echo "== vitest"
npx vitest run
echo "== wheel contains the bundle"
bash scripts/check_wheel.sh
echo "== pytest (unit, end-to-end, notebooks)"
# --durations: the slowest tests, so the next engineer sees where the time goes (docs/benchmarks.md).
# --no-loadscope-reorder: files in the collection's order (tests/conftest.py puts the longest first), not
# by their number of tests (which left the long few-test files for last).
# -p tests.helpers.warm_notebook_kernels: the notebooks' kernels start with torch and transformers
# imported, as the e2e tests' JupyterLab kernels do (tests/helpers/warm_kernels.py).
$py -m pytest -q -p no:cacheprovider -p tests.helpers.warm_notebook_kernels -n 2 --dist loadfile \
  --no-loadscope-reorder --durations=25 --nbmake tests notebooks
