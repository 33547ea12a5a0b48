"""``w.save_html(path)``: one self-contained HTML file that shows the widget with no kernel.

The file holds the frontend bundle and a *recording* of everything the kernel would answer: the
viewer assets, the graph under every overlay the capture can show (the graph bytes stored once),
the refusals for the others, node id -> label, and the inspector facts of every node. In the page,
``js/offline.ts`` replays it through the same view code the notebook runs. Nothing is fetched: the
page's Content-Security-Policy allows no network at all.
"""

from __future__ import annotations

import base64
import html
import json
import pathlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._channel import Reply
from ._errors import ViewerAssetsError

RECORDING_FORMAT = "torchlens-widgets/recording@1"  # js/offline.ts checks it

# The saved page may run its inline bootstrap and the blob: modules it makes; its frames inherit this.
PAGE_CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src blob: 'unsafe-inline'",
        "style-src blob: 'unsafe-inline'",
        "img-src blob: data:",
        "font-src blob: data:",
        "worker-src blob:",
        "frame-src blob: data: about:",
        "connect-src blob: data:",
    ]
)

_BOOTSTRAP = """
const out = document.getElementById("tlw");
try {
  const data = JSON.parse(document.getElementById("tlw-recording").textContent);
  const url = URL.createObjectURL(new Blob([data.bundle], { type: "text/javascript" }));
  const widget = await import(url);
  widget.renderRecording(out, data.recording);
} catch (error) {
  out.textContent = "torchlens-widgets could not open this saved widget: " + error +
    ". Remedy: open the file in a current Chromium, Firefox or Safari.";
}
"""


class BufferPool:
    """Binary parts of the replies, base64-encoded once each however many replies share them."""

    def __init__(self) -> None:
        self.encoded: list[str] = []
        self._index: dict[bytes, int] = {}

    def add(self, buffers: Iterable[bytes]) -> list[int]:
        indices = []
        for buffer in buffers:
            data = bytes(buffer)
            if data not in self._index:
                self._index[data] = len(self.encoded)
                self.encoded.append(base64.b64encode(data).decode("ascii"))
            indices.append(self._index[data])
        return indices

    def reply(self, reply: Reply) -> dict[str, Any]:
        result, buffers = reply
        return {"result": result, "buffers": self.add(buffers)}


def build_recording(
    *,
    state: Mapping[str, Any],
    assets: Reply,
    graphs: Mapping[str, tuple[Reply, str]],
    refused: Mapping[str, str],
    labels: Mapping[str, str],
    inspect: Callable[[str], Reply] | None,
) -> dict[str, Any]:
    """The recording ``js/offline.ts`` replays.

    ``graphs`` maps each overlay the file can show ("" for none) to its graph reply and toolbar
    summary; ``inspect`` answers for one torchlens label (None: no inspector facts in the file).
    """
    pool = BufferPool()
    recording: dict[str, Any] = {
        "format": RECORDING_FORMAT,
        "state": dict(state),
        "assets": pool.reply(assets),
        "graphs": {
            name: {"reply": pool.reply(reply), "summary": summary}
            for name, (reply, summary) in graphs.items()
        },
        "refused": dict(refused),
        "labels": dict(labels),
        "inspect": {},
    }
    if inspect is not None:
        for label in sorted(set(labels.values())):
            recording["inspect"][label] = pool.reply(inspect(label))
    recording["buffers"] = pool.encoded
    return recording


def page_html(recording: Mapping[str, Any], bundle: str, title: str) -> str:
    """The self-contained page: the bundle and the recording as one inert JSON block, and a bootstrap."""
    # "<" escaped as \\u003c: no "</script>" (or "<!--") can end the JSON block early, whatever a
    # label or the bundle contains. JSON outside strings has no "<", so this is lossless.
    data = json.dumps({"bundle": bundle, "recording": recording}, separators=(",", ":"), allow_nan=False)
    data = data.replace("<", "\\u003c")
    return (
        "<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">\n'
        f"<title>{html.escape(title)}</title>\n"
        "<style>body{margin:0;padding:12px;font-family:system-ui,sans-serif}"
        "#tlw-caption{margin:0 0 8px;font-size:12px;color:#555}</style>\n</head>\n<body>\n"
        f"<p id='tlw-caption'>{html.escape(title)}: saved by torchlens-widgets; "
        "no kernel, the facts are as they were when saved.</p>\n"
        "<div id='tlw'>Loading the saved widget…</div>\n"
        f'<script type="application/json" id="tlw-recording">{data}</script>\n'
        f'<script type="module">{_BOOTSTRAP}</script>\n</body>\n</html>\n'
    )


def read_bundle(path: pathlib.Path) -> str:
    if not path.is_file():
        raise ViewerAssetsError(
            f"The frontend bundle {path} is missing, so there is nothing to save. Remedy: reinstall "
            "with Node.js available (pip install -e .) or install a released wheel."
        )
    return path.read_text(encoding="utf-8")
