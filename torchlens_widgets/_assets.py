"""Viewer web assets, read from the installed viewer packages (never vendored into this repo).

A bundle is read and gzip-compressed once per kernel; the frontend asks for it once per page
(keyed by ``AssetBundle.key``) and keeps it, so a second widget on the page transfers nothing.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable

from ._errors import ViewerAssetsError
from ._gzip_json import gzip_bytes
from ._protocol import AssetFile, AssetsParams, AssetsResult, Reply, Role, ViewerName
from ._versions import SUPPORTED, checked_version

# Without any one of these the Model Explorer app never becomes ready.
_ME_ATLASES = tuple(
    f"static_files/{stem}.{ext}"
    for stem in ("FontRegular", "FontMedium", "FontBold", "icons_20240521")
    for ext in ("png", "json")
)
# Without it every Material icon renders as its ligature word.
_ME_ICON_FONT = "static_files/material_icon.woff2"
_FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
_STATIC_URL = re.compile(r"url\(/(static_files/[^)]+\.woff2)\)")


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


def _read(root: Traversable, name: str, viewer: str) -> bytes:
    item = root.joinpath(name)
    if not item.is_file():
        distribution, specifier = SUPPORTED[viewer]
        raise ViewerAssetsError(
            f"{distribution} is installed but its web asset {name!r} is missing, so the {viewer} viewer "
            f"cannot start. Remedy: pip install --force-reinstall '{distribution}{specifier}'"
        )
    return item.read_bytes()


def _one(names: list[str], pattern: str, viewer: str) -> str:
    matches = [name for name in names if re.fullmatch(pattern, name)]
    if len(matches) != 1:
        raise ViewerAssetsError(
            f"Expected exactly one file matching {pattern!r} in the {viewer} web app, found {matches}. "
            f"Remedy: install a supported version ({SUPPORTED[viewer][1]})."
        )
    return matches[0]


def _latin_and_icon_fonts(css: str) -> list[str]:
    """The woff2 files of the upright latin faces and the Material Icons face (the rest is cosmetic)."""
    wanted = []
    for rule in _FONT_FACE.findall(css):
        url = _STATIC_URL.search(rule)
        if not url:
            continue
        latin_upright = "font-style:normal" in rule and "unicode-range:U+0000-00FF" in rule
        if latin_upright or url.group(1) == _ME_ICON_FONT:
            wanted.append(url.group(1))
    return sorted(set(wanted))


@functools.cache
def model_explorer_assets() -> AssetBundle:
    """The minimal file set of the Model Explorer web app installed with ai-edge-model-explorer."""
    version = checked_version("model-explorer")
    try:
        root = resources.files("model_explorer").joinpath("web_app")
    except ModuleNotFoundError:  # metadata present but the package itself is gone
        raise ViewerAssetsError(
            "ai-edge-model-explorer's module 'model_explorer' cannot be imported. "
            "Remedy: pip install --force-reinstall 'ai-edge-model-explorer>=0.1.33,<0.2'"
        ) from None
    if not root.is_dir():
        raise ViewerAssetsError(
            f"ai-edge-model-explorer {version} has no web_app folder. "
            "Remedy: pip install --force-reinstall 'ai-edge-model-explorer>=0.1.33,<0.2'"
        )
    names = [item.name for item in root.iterdir()]
    index = _read(root, "index.html", "model-explorer")
    roles: dict[str, Role] = {"index.html": "page"}
    for script in re.findall(rb'src="([^"]+\.js)"', index):  # in the order the page loads them
        roles.setdefault(script.decode(), "entry")
    for style in re.findall(rb'href="(styles-[^"]+\.css)"', index):
        roles.setdefault(style.decode(), "style")
    roles[_one(names, r"worker-[A-Z0-9]+\.js", "model-explorer")] = "worker"
    files = {"index.html": index}
    for name in list(roles)[1:]:
        files[name] = _read(root, name, "model-explorer")
    css = b"".join(data for name, data in files.items() if name.endswith((".css", ".html"))).decode()
    for name in _ME_ATLASES:
        files[name], roles[name] = _read(root, name, "model-explorer"), "data"
    for name in _latin_and_icon_fonts(css):
        files[name], roles[name] = _read(root, name, "model-explorer"), "font"
    if not any(name.startswith("main-") for name in files):
        raise ViewerAssetsError(
            f"ai-edge-model-explorer {version}: index.html names no main-*.js. "
            "Remedy: install a supported version (>=0.1.33,<0.2)."
        )
    return AssetBundle("model-explorer", version, files, roles)
