"""The one way this package puts JSON and text on the wire: compact, gzip-compressed, reproducible."""

from __future__ import annotations

import gzip
import hashlib
import json
from typing import Any

# mtime=0: the same data gives the same bytes (asset keys and saved pages stay reproducible).
_LEVEL = 6


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=_LEVEL, mtime=0)


def gzip_text(text: str) -> bytes:
    return gzip_bytes(text.encode())


def compact_json(value: Any) -> str:
    """JSON without spaces; NaN and Infinity are refused (the browser's JSON.parse has no such values)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def gzip_json(value: Any) -> bytes:
    return gzip_text(compact_json(value))


def content_key(data: bytes) -> str:
    """A short key of ``data``: equal keys, equal bytes (what a view holds is not sent again)."""
    return hashlib.blake2b(data, digest_size=8).hexdigest()
