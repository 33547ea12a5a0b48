"""Viewer web assets, read from the installed viewer packages (never vendored into this repo): the
bundle type, its answer to the browser, and helpers the viewers (viewers/) read their files with.

A bundle is read and gzip-compressed once per kernel; the frontend asks for it once per page
(keyed by ``AssetBundle.key``) and keeps it, so a second widget on the page transfers nothing.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable

from ._errors import ViewerAssetsError
from ._gzip_json import gzip_bytes
from ._protocol import AssetFile, AssetsParams, AssetsResult, Reply, Role, ViewerName
from ._viewer_versions import SUPPORTED


@dataclass(frozen=True)
class AssetBundle:
    """The files one viewer needs in the browser, by relative name, each with its role.

    ``files`` keeps the order the browser needs (entry scripts and ES modules in load order).
    """

    viewer: ViewerName
    version: str
    files: dict[str, bytes]
    roles: dict[str, Role]
    key: str = field(init=False)

    def __post_init__(self) -> None:
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode())
            digest.update(hashlib.sha256(self.files[name]).digest())
        object.__setattr__(self, "key", f"{self.viewer}@{self.version}:{digest.hexdigest()[:16]}")

    @property
    def raw_bytes(self) -> int:
        return sum(len(data) for data in self.files.values())

    @functools.cached_property
    def compressed(self) -> list[tuple[str, bytes]]:
        """(name, gzip bytes) pairs: what goes over the widget channel."""
        return [(name, gzip_bytes(data)) for name, data in self.files.items()]

    def reply(self) -> Reply[AssetsResult]:
        """The answer to a browser's "assets" request: names and roles, then gzip bytes as buffers."""
        files = [AssetFile(name=name, role=self.roles[name]) for name, _ in self.compressed]
        result = AssetsResult(
            key=self.key, viewer=self.viewer, version=self.version, encoding="gzip", files=files
        )
        return result, [data for _, data in self.compressed]

    @property
    def wire_bytes(self) -> int:
        return sum(len(data) for _, data in self.compressed)


def answer_assets(params: AssetsParams, bundles: Iterable[AssetBundle]) -> Reply[AssetsResult]:
    """The reply to a browser's "assets" request: the bundle named by ``params["key"]``.

    Not the current viewer's: the browser stores the reply under the key it asked for, and a viewer
    switch can come between the request and the answer. Every bundle this widget has published
    stays addressable; a key none of them has is refused (the browser then caches nothing).
    """
    key: object = params.get("key")
    known = {bundle.key: bundle for bundle in bundles}
    if not isinstance(key, str) or not key:
        raise ViewerAssetsError(
            "The browser asked for viewer assets without naming a bundle key. Remedy: reload the page "
            "(its torchlens-widgets frontend is older than the kernel's)."
        )
    if key not in known:
        raise ViewerAssetsError(
            f"This kernel has no viewer assets {key!r} (it has {', '.join(sorted(known)) or 'none'}). "
            "Remedy: re-run the cell that shows the widget."
        )
    return known[key].reply()


def read_asset(root: Traversable, name: str, viewer: str) -> bytes:
    item = root.joinpath(name)
    if not item.is_file():
        distribution, specifier = SUPPORTED[viewer]
        raise ViewerAssetsError(
            f"{distribution} is installed but its web asset {name!r} is missing, so the {viewer} viewer "
            f"cannot start. Remedy: pip install --force-reinstall '{distribution}{specifier}'"
        )
    return item.read_bytes()


def one_match(names: list[str], pattern: str, viewer: str) -> str:
    matches = [name for name in names if re.fullmatch(pattern, name)]
    if len(matches) != 1:
        raise ViewerAssetsError(
            f"Expected exactly one file matching {pattern!r} in the {viewer} web app, found {matches}. "
            f"Remedy: install a supported version ({SUPPORTED[viewer][1]})."
        )
    return matches[0]
