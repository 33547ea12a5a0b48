#!/usr/bin/env bash
# Builds the wheel into dist/ (or the folder given) and checks that it contains the frontend bundle.
# A pip failure stops it with pip's output; the listing is read whole before it is searched (a
# `zipfile -l | grep -q` pipeline dies of a broken pipe under pipefail when grep exits first).
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
dist="${1:-dist}"
rm -rf "$dist"
if ! output=$("$py" -m pip wheel -q --no-deps -w "$dist" . 2>&1); then
  echo "$output" >&2
  echo "== building the wheel failed; pip's output is above" >&2
  exit 1
fi
wheels=("$dist"/*.whl)
listing=$("$py" -m zipfile -l "${wheels[0]}")
if ! grep -q "torchlens_widgets/static/widget.js" <<<"$listing"; then
  echo "== ${wheels[0]} lacks torchlens_widgets/static/widget.js (the JS bundle): was Node.js missing?" >&2
  exit 1
fi
echo "${wheels[0]} contains torchlens_widgets/static/widget.js"
