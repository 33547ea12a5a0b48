"""The frontend bundle as every widget's anywidget ``_esm``.

anywidget keeps a copy of ``_esm`` in each widget's model, and a notebook saved with widget state holds
one copy per widget: 22 explorers saved 22 copies of a 100 KB bundle. The widgets therefore carry the
bundle gzipped and base64-encoded inside a few lines that unpack and import it in the browser (about a
third of the size). With ``ANYWIDGET_HMR=1`` (the watching dev build, CONTRIBUTING.md) the widgets carry
the bundle's path instead, so that anywidget reloads it on every rebuild.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import pathlib

BUNDLE = pathlib.Path(__file__).parent.parent / "static" / "widget.js"

# An install without the built frontend says so in the cell instead of drawing nothing.
MISSING_BUNDLE = (
    "export default { render({ el }) { el.textContent = 'torchlens-widgets: the frontend bundle "
    "torchlens_widgets/static/widget.js is missing. Remedy: reinstall with Node.js available "
    "(pip install -e .) or install a released wheel.'; } };"
)

# Unpacks the gzipped bundle (DecompressionStream: Chromium 80, Firefox 113, Safari 16.4) and imports it
# from a blob: URL, as anywidget imports ``_esm`` itself. PACKED is replaced by the base64 text.
UNPACK = """const packed = PACKED;
const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
const source = await new Response(
  new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
).text();
const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
const bundle = await import(url);
URL.revokeObjectURL(url);
export default bundle.default;
"""


def packed(source: bytes) -> str:
    """``source`` as a module that unpacks and re-exports it (mtime 0: the same bundle packs the same)."""
    text = base64.b64encode(gzip.compress(source, compresslevel=9, mtime=0)).decode("ascii")
    return UNPACK.replace("PACKED", json.dumps(text))


def bundle_source(path: pathlib.Path = BUNDLE) -> pathlib.Path | str:
    if not path.is_file():
        return MISSING_BUNDLE
    if os.environ.get("ANYWIDGET_HMR"):
        return path
    return packed(path.read_bytes())
