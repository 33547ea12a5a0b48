#!/usr/bin/env bash
# Sets up everything torchlens-widgets needs on a fresh Debian machine with Python 3.10+ and Node 20:
# a virtual environment in .venv with the CPU build of torch 2.13.0, the package (editable; this builds
# the JS bundle with esbuild), and with "test" also Debian's chromium for the browser tests.
#
#   bash scripts/setup.sh          # demo set-up
#   bash scripts/setup.sh test     # also test tools, chromium and the npm parts of the e2e hosts
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-demo}"

if [ "$extra" = "test" ] && [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian's chromium (browser tests)"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
if [ "$extra" = "test" ]; then
  echo "== npm ci (build tools, and the parts of the emulated VS Code notebook in tests/e2e/vscode_host)"
  npm ci --no-audit --no-fund --loglevel=error
fi
py=.venv/bin/python
$py -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" || true
echo "== torch 2.13.0 (CPU) before the project, so nothing pulls a CUDA build"
$py -m pip install -q torch==2.13.0 2>&1 | grep -v "is ignored" || true
echo "== torchlens-widgets[$extra] (editable; builds js/ into torchlens_widgets/static/)"
$py -m pip install -q -e ".[$extra]" 2>&1 | grep -v "is ignored" || true
$py -c "import torchlens_widgets, pathlib; p = pathlib.Path(torchlens_widgets.__file__).parent / 'static' / 'widget.js'; assert p.is_file(), p; print('bundle:', p, p.stat().st_size, 'bytes')"

if [ "$extra" = "test" ]; then
  # VS Code's ipywidgets 8 manager: its dist/ipywidgets.js is self-contained, but its package names
  # JupyterLab's build-time packages (360 MB), so only its own tarball is fetched and unpacked.
  vscode_manager="@vscode/jupyter-ipywidgets8@1.0.9"
  echo "== $vscode_manager (npm pack, unpacked into node_modules/.tlw-vscode-host)"
  rm -rf node_modules/.tlw-vscode-host && mkdir -p node_modules/.tlw-vscode-host
  (cd node_modules/.tlw-vscode-host && npm pack --silent "$vscode_manager" >/dev/null && tar xzf ./*.tgz)
fi
