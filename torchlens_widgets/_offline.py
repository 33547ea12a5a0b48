"""``w.save_html(path)``: one self-contained HTML file that shows the widget with no kernel.

The file holds the frontend bundle and a *recording* of everything the kernel would answer: the
viewer assets, the graph under every overlay the capture can show (the graph bytes stored once),
the refusals for the others, node id -> label, and the inspector facts of every node. In the page,
``js/kernel/offline.ts`` replays it through the same view code the notebook runs. Nothing is fetched: the
page's Content-Security-Policy allows no network at all.

:func:`write_page` streams the recording into the file (binary parts through a spool file, each reply
written as it is computed) and keeps the page within ``max_bytes``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import pathlib
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from ._errors import SaveSizeError, ViewerAssetsError
from ._gzip_json import compact_json
from ._protocol import RECORDING_FORMAT, Reply
from .inspector.facts import python_string

# The saved page may run its inline bootstrap and the blob: modules it makes; its frames inherit this.
# 'unsafe-inline' stays here (the page's own inline script and style could be hashed, but a hash would
# switch it off for the frames too): the viewer frames are srcdoc documents, which inherit the page's
# policy (measured in Chromium), and they run inline code whose text is only known in the browser:
# Netron's import map (blob: URLs minted in its frame) and Model Explorer's component styles (Angular's,
# at run time). Each frame's own policy narrows that to its script's hash or nonce
# (js/model-explorer/document.ts frameCsp, js/netron/document.ts netronCsp).
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


# The default size bound of a saved file: GPT-2 small with every inspector fact takes 4.6 MB, so
# this keeps a several-times larger model whole while the file stays easy to open, mail and attach.
DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class BufferPool:
    """Binary parts of the replies, base64-encoded once each however many replies share them.

    With a ``spool`` (a binary file) each new part is written there as a JSON string as it comes and
    only its digest is kept, so a saved page never holds every reply in memory at once.
    """

    def __init__(self, spool: IO[bytes] | None = None) -> None:
        self.encoded: list[str] = []  # only without a spool
        self.count = 0
        self.bytes = 0  # of the JSON array's items, separators included
        self._spool = spool
        self._index: dict[bytes, int] = {}

    def cost(self, buffers: Iterable[bytes]) -> int:
        """Bytes that adding ``buffers`` would write (parts already in the pool cost nothing)."""
        new = {_digest(buffer): len(buffer) for buffer in buffers}
        return sum(_b64_length(size) + 3 for digest, size in new.items() if digest not in self._index)

    def add(self, buffers: Iterable[bytes]) -> list[int]:
        indices = []
        for buffer in buffers:
            digest = _digest(buffer)
            if digest not in self._index:
                self._index[digest] = self.count
                text = base64.b64encode(bytes(buffer)).decode("ascii")
                if self._spool is None:
                    self.encoded.append(text)
                else:
                    self._spool.write((("," if self.count else "") + f'"{text}"').encode("ascii"))
                self.bytes += len(text) + 3
                self.count += 1
            indices.append(self._index[digest])
        return indices

    def reply(self, reply: Reply) -> dict[str, Any]:
        result, buffers = reply
        return {"result": result, "buffers": self.add(buffers)}


def _digest(buffer: bytes) -> bytes:
    return hashlib.blake2b(buffer, digest_size=16).digest()


def _b64_length(size: int) -> int:
    return 4 * ((size + 2) // 3)


def _recording_head(
    pool: BufferPool,
    state: Mapping[str, Any],
    assets: Reply,
    graphs: Mapping[str, tuple[Reply, str]],
    refused: Mapping[str, str],
    labels: Mapping[str, str],
    timeline: Reply | None,
    runs: Mapping[str, tuple[Mapping[str, tuple[Reply, str]], Mapping[str, str]]] | None = None,
) -> dict[str, Any]:
    head: dict[str, Any] = {
        "format": RECORDING_FORMAT,
        "state": dict(state),
        "assets": pool.reply(assets),
        "graphs": {
            name: {"reply": pool.reply(reply), "summary": summary}
            for name, (reply, summary) in graphs.items()
        },
        "refused": dict(refused),
        "labels": dict(labels),
    }
    # The memory strip's reply (js/kernel/offline.ts answers memory_timeline with it).
    if timeline is not None:
        head["timeline"] = pool.reply(timeline)
    if runs is not None:  # a comparison: every run's graphs, which the page's run scrubber switches among
        head["runs"] = {
            run: {
                "graphs": {
                    name: {"reply": pool.reply(reply), "summary": summary}
                    for name, (reply, summary) in run_graphs.items()
                },
                "refused": dict(run_refused),
            }
            for run, (run_graphs, run_refused) in runs.items()
        }
    return head


def _page_frame(title: str) -> tuple[str, str]:
    """The page before and after its JSON block."""
    head = (
        "<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">\n'
        f"<title>{html.escape(title)}</title>\n"
        "<style>body{margin:0;padding:12px;font-family:system-ui,sans-serif}"
        "#tlw-caption{margin:0 0 8px;font-size:12px;color:#555}</style>\n</head>\n<body>\n"
        f"<p id='tlw-caption'>{html.escape(title)}: saved by torchlens-widgets; "
        "no kernel, the facts are as they were when saved.</p>\n"
        "<div id='tlw'>Loading the saved widget…</div>\n"
        '<script type="application/json" id="tlw-recording">'
    )
    tail = f'</script>\n<script type="module">{_BOOTSTRAP}</script>\n</body>\n</html>\n'
    return head, tail


def _json(value: Any) -> str:
    # "<" escaped as \\u003c: no "</script>" (or "<!--") can end the JSON block early, whatever a
    # label or the bundle contains. JSON outside strings has no "<", so this is lossless, and it can be
    # applied to any piece of the block on its own.
    return compact_json(value).replace("<", "\\u003c")


@dataclass
class SaveReport:
    """What save_html() wrote: the file, its size, and how many nodes kept their value summaries."""

    path: pathlib.Path
    bytes: int
    nodes: int
    summarized: int  # nodes whose inspector reply is whole
    trimmed: int  # nodes kept with their facts only, the value summary left out (size bound)
    bare: int  # nodes with a marker only (size bound)


def write_page(
    target: pathlib.Path,
    *,
    bundle: str,
    title: str,
    state: Mapping[str, Any],
    assets: Reply,
    graphs: Mapping[str, tuple[Reply, str]],
    refused: Mapping[str, str],
    labels: Mapping[str, str],
    inspect: Callable[[str], Reply] | None,
    timeline: Reply | None = None,
    runs: Mapping[str, tuple[Mapping[str, tuple[Reply, str]], Mapping[str, str]]] | None = None,
    first: str = "",
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Callable[[int], None] = lambda done: None,
) -> SaveReport:
    """Write the page to ``target`` (atomically), at most ``max_bytes`` bytes, never all replies in memory.

    The viewer, the graphs and, for every node, at least a marker must fit, or SaveSizeError is raised
    before anything is written. Inspector replies are then added in graph order (``first`` label first)
    while they fit; past the bound a node keeps its facts with the value summary left out (said so in
    its panel), or only a marker. ``progress(n)`` is called after each inspected node.
    """
    nodes = list(dict.fromkeys(labels.values()))
    if first in nodes:
        nodes.remove(first)
        nodes.insert(0, first)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as spool:
        pool = BufferPool(spool)
        head = _recording_head(pool, state, assets, graphs, refused, labels, timeline, runs)
        frame_head, frame_tail = _page_frame(title)
        opening = (
            frame_head + _json({"bundle": bundle})[:-1] + ',"recording":' + _json(head)[:-1] + ',"inspect":{'
        )
        closing = '},"buffers":[' + "]}}" + frame_tail
        fixed = len(opening.encode()) + len(closing.encode())
        markers = {label: _entry(label, pool.reply(_marker(label, max_bytes))) for label in nodes}
        reserve = sum(len(entry) for entry in markers.values()) + len(nodes)  # entries and commas
        floor = fixed + pool.bytes + (reserve if inspect is not None else 0)
        if floor > max_bytes:
            raise SaveSizeError(
                f"This widget needs at least {floor:,} bytes saved (the viewer, the graph under every "
                f"overlay{' and a line per node' if inspect is not None else ''}); max_bytes={max_bytes:,}. "
                f"Remedy: save_html(path, max_bytes={_round_up(floor):,}) or larger."
            )
        report = SaveReport(target, 0, len(nodes), 0, 0, 0)
        partial = target.with_name(f".{target.name}.partial")
        try:
            with partial.open("wb") as out:
                out.write(opening.encode())
                written = fixed + pool.bytes
                if inspect is not None:
                    written = _write_inspect(
                        out, pool, nodes, markers, inspect, max_bytes, written, report, progress
                    )
                out.write(b'},"buffers":[')
                spool.seek(0)
                shutil.copyfileobj(spool, out)
                out.write(("]}}" + frame_tail).encode())
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
    report.bytes = target.stat().st_size
    return report


def _write_inspect(
    out: IO[bytes],
    pool: BufferPool,
    nodes: list[str],
    markers: dict[str, str],
    inspect: Callable[[str], Reply],
    max_bytes: int,
    written: int,
    report: SaveReport,
    progress: Callable[[int], None],
) -> int:
    """Write the "inspect" entries, whole while they fit; ``written`` counts every byte the page will have."""
    # Room is kept for every later node: its marker for sure, and its facts by the average size of
    # the facts seen so far, so value summaries are what is left out first, facts only after them.
    reserve = sum(len(markers[label]) + 1 for label in nodes)
    facts_seen = 0
    full = True  # until a node's facts alone no longer fit: then every later node gets its marker
    pooled = pool.bytes
    for done, label in enumerate(nodes, 1):
        reserve -= len(markers[label]) + 1
        entry = ""
        if full:
            header, buffers = inspect(label)
            trimmed = _entry(label, pool.reply(_without_value(header, max_bytes)))
            facts_seen += len(trimmed) + 1
            later = len(nodes) - done
            room = reserve if done == 1 else max(reserve, facts_seen * later // done)  # the selection first
            # Buffer indices are at most pool.count + len(buffers): an upper bound of the entry's size.
            whole = _entry(label, {"result": header, "buffers": [pool.count + len(buffers)] * len(buffers)})
            if written + len(whole) + pool.cost(buffers) + 1 + room <= max_bytes:
                entry, report.summarized = _entry(label, pool.reply((header, buffers))), report.summarized + 1
            elif written + len(trimmed) + 1 + reserve <= max_bytes:
                entry, report.trimmed = trimmed, report.trimmed + 1
            else:
                full = False
        if not entry:
            entry, report.bare = markers[label], report.bare + 1
        data = (("," if done > 1 else "") + entry).encode()
        out.write(data)
        written += len(data) + pool.bytes - pooled  # the entry, and the new parts it put in the pool
        pooled = pool.bytes
        progress(done)
    return written


def _entry(label: str, reply: dict[str, Any]) -> str:
    return _json(label) + ":" + _json(reply)


_LEFT_OUT = (
    "{what} left out of this saved file to keep it within max_bytes={max_bytes:,}. Remedy: save it again "
    "with w.save_html(path, max_bytes=...) larger, or look at the node in the live widget."
)


def _without_value(header: dict[str, Any], max_bytes: int) -> Reply:
    """The inspector reply with its facts, the value summaries (the node's, and the difference from a
    baseline's) replaced by a note (no buffers)."""
    header = _value_left_out(header, max_bytes)
    baseline = header.get("baseline")
    if isinstance(baseline, dict):
        header = {**header, "baseline": _value_left_out(baseline, max_bytes)}
    return header, []


def _value_left_out(part: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    value = part.get("value")
    if isinstance(value, dict) and value.get("status") == "summary":
        note = _LEFT_OUT.format(what="Value summary", max_bytes=max_bytes)
        return {**part, "value": {"status": "withheld", "source": value.get("source"), "message": note}}
    return part


def _marker(label: str, max_bytes: int) -> Reply:
    """A node's inspector reply when nothing more fits: its name and why its facts are missing."""
    return (
        {
            "kind": "other",
            "label": label,
            "title": label,
            "privacy_profile": "",
            "expression": f"log[{python_string(label)}]",  # "Copy" gives Python, as every panel does
            "facts": [],
            "value": {
                "status": "withheld",
                "message": f"Facts left out of this file (max_bytes={max_bytes:,}). Remedy: more max_bytes.",
            },
        },
        [],
    )


def _round_up(size: int) -> int:
    step = 1024 * 1024
    return (size + step - 1) // step * step


def read_bundle(path: pathlib.Path) -> str:
    if not path.is_file():
        raise ViewerAssetsError(
            f"The frontend bundle {path} is missing, so there is nothing to save. Remedy: reinstall "
            "with Node.js available (pip install -e .) or install a released wheel."
        )
    return path.read_text(encoding="utf-8")
