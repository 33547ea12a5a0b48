"""The bundle every widget carries as anywidget's ``_esm``: packed, and unpacked to the same bytes."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchlens_widgets import Explorer
from torchlens_widgets.widgets import bundle


def unpacked(module: str) -> bytes:
    literal = re.match(r"const packed = (\"[A-Za-z0-9+/=]*\");\n", module)
    assert literal, module[:200]
    return gzip.decompress(base64.b64decode(json.loads(literal.group(1))))


def test_a_widget_carries_the_bundle_packed_to_under_half_its_size(tiny_log) -> None:
    source = bundle.BUNDLE.read_bytes()
    esm = Explorer(tiny_log)._esm
    assert unpacked(esm) == source
    assert "export default bundle.default;" in esm
    assert len(esm) < len(source) / 2


def test_the_same_bundle_packs_the_same(tmp_path) -> None:
    path = tmp_path / "widget.js"
    path.write_text("export default { render() {} };")
    assert bundle.bundle_source(path) == bundle.bundle_source(path)  # no timestamp in the gzip


def test_the_watching_dev_build_gets_the_path(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "widget.js"
    path.write_text("export default { render() {} };")
    monkeypatch.setenv("ANYWIDGET_HMR", "1")
    assert bundle.bundle_source(path) == path


def test_a_missing_bundle_says_so_in_the_cell(tmp_path) -> None:
    assert "is missing. Remedy: reinstall" in str(bundle.bundle_source(tmp_path / "missing.js"))


def _sources(folder: Path, root: Path) -> Iterator[str]:
    """Every file under ``folder`` as build.mjs walks it: by name, each folder where it sorts."""
    for entry in sorted(folder.iterdir(), key=lambda path: path.name):
        if entry.is_dir():
            yield from _sources(entry, root)
        else:
            yield entry.relative_to(root).as_posix()


def test_the_bundle_carries_the_id_of_the_sources_it_was_built_from() -> None:
    """build.mjs's ``build:id``, a hash of every file under js/: the parked Model Explorer frame's
    format (js/model-explorer/parked-app.ts), so a build whose frame speaks another protocol never
    takes it, with no number to bump by hand."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for name in _sources(root / "js", root):
        digest.update(f"{name}\0".encode())
        digest.update((root / name).read_bytes())
        digest.update(b"\0")
    assert json.dumps(digest.hexdigest()[:16]) in bundle.BUNDLE.read_text(), (
        "the bundle carries no id of the js/ sources (the parked frame's format): run node build.mjs"
    )
