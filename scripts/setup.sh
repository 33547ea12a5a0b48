#!/usr/bin/env bash
# Sets up everything torchlens-widgets needs on a fresh Debian machine with Python 3.10+ and Node 20:
# a virtual environment in .venv with the CPU build of torch 2.13.0, the package (editable; this builds
# the JS bundle with esbuild), and with "test" also Debian's chromium, firefox-esr and xvfb for the browser
# tests (Firefox runs on an Xvfb display: tests/helpers/firefox).
#
#   bash scripts/setup.sh          # demo set-up
#   bash scripts/setup.sh test     # also test tools, the browsers and the npm parts of the e2e hosts
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-demo}"

# A set-up already done from these very files is current: only the JS bundle is rebuilt (js/ may have
# changed). The stamp names what the set-up installed from; a fresh clone has none.
stamp=".venv/.tlw-setup-$extra"
inputs=$( (cat pyproject.toml package-lock.json scripts/setup.sh 2>/dev/null || true) | sha256sum | cut -d' ' -f1)
# The browsers come from apt, not from these files: the stamp holds only while they are installed.
browsers_installed() { [ -x /usr/bin/chromium ] && [ -x /usr/bin/firefox-esr ] && [ -x /usr/bin/Xvfb ]; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] && [ -x node_modules/.bin/esbuild ] \
  && { [ "$extra" != "test" ] || { browsers_installed && [ -d node_modules/.tlw-vscode-host/package ]; }; }; then
  echo "== set-up is current ($stamp); rebuilding the JS bundle only"
  node build.mjs
  exit 0
fi

if [ "$extra" = "test" ] && ! browsers_installed; then
  echo "== installing Debian's chromium, firefox-esr and xvfb (browser tests)"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium firefox-esr xvfb >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
# The repository's package.json says "type": "module", and Node applies the nearest package.json to
# every .js file below it, .venv included: JupyterLab's yarn.js then fails to load (a screen of
# minified JavaScript at each start). Inside .venv, .js files are CommonJS, as their packages expect.
echo '{"type": "commonjs"}' > .venv/package.json
if [ "$extra" = "test" ]; then
  echo "== npm ci (build tools, the emulated VS Code notebook's parts, puppeteer-core for Firefox)"
  npm ci --no-audit --no-fund --loglevel=error
fi
py=.venv/bin/python

# pip, quiet: nothing on success but its warnings; on failure its whole output and the set-up stops.
pip_install() {
  local log status=0
  log=$(mktemp)
  "$py" -m pip install -q "$@" >"$log" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    cat "$log" >&2
    rm -f "$log"
    echo "== pip install $* failed (exit $status); its output is above" >&2
    exit "$status"
  fi
  grep -v "is ignored" "$log" || true  # only the display is filtered, never the status
  rm -f "$log"
}

pip_install --upgrade pip
echo "== torch 2.13.0 (CPU) before the project, so nothing pulls a CUDA build"
pip_install torch==2.13.0
echo "== torchlens-widgets[$extra] (editable; builds js/ into torchlens_widgets/static/)"
pip_install -e ".[$extra]"
$py -c "import torchlens_widgets, pathlib; p = pathlib.Path(torchlens_widgets.__file__).parent / 'static' / 'widget.js'; assert p.is_file(), p; print('bundle:', p, p.stat().st_size, 'bytes')"

if [ "$extra" = "test" ]; then
  # VS Code's ipywidgets 8 manager: its dist/ipywidgets.js is self-contained, but its package names
  # JupyterLab's build-time packages (360 MB), so only its own tarball is fetched and unpacked.
  vscode_manager="@vscode/jupyter-ipywidgets8@1.0.9"
  echo "== $vscode_manager (npm pack, unpacked into node_modules/.tlw-vscode-host)"
  rm -rf node_modules/.tlw-vscode-host && mkdir -p node_modules/.tlw-vscode-host
  (cd node_modules/.tlw-vscode-host && npm pack --silent "$vscode_manager" >/dev/null && tar xzf ./*.tgz)
fi
echo "$inputs" > "$stamp"
