"""The README stays a page a user reads in a few minutes, and every file it links to exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_readme_is_at_most_200_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_links_to_files_that_exist() -> None:
    targets = re.findall(r"\]\(([^)#]+)\)", README.read_text())
    local = [target for target in targets if "://" not in target]
    assert local, "the README links to its docs"
    missing = [target for target in local if not (ROOT / target).exists()]
    assert missing == []
