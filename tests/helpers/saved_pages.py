"""What a page saved by ``w.save_html()`` holds, read back the way the page's bootstrap reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

RECORDING = re.compile(r'<script type="application/json" id="tlw-recording">(.*?)</script>', re.S)


def saved(path: Path) -> dict[str, Any]:
    """The bundle and recording a saved page holds (read back the way the page's bootstrap does)."""
    text = path.read_text(encoding="utf-8")
    blocks = RECORDING.findall(text)
    assert len(blocks) == 1  # nothing in the data closed the JSON block early
    return json.loads(blocks[0])
