"""Supported versions of the viewer packages whose web assets the widgets load."""

from __future__ import annotations

from importlib import metadata

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ._errors import ViewerAssetsError

# Keep in step with pyproject.toml: the frame shims rely on these builds' internals.
SUPPORTED: dict[str, tuple[str, str]] = {
    # viewer name -> (distribution, specifier)
    "model-explorer": ("ai-edge-model-explorer", ">=0.1.33,<0.2"),
    "netron": ("netron", ">=9.2,<10"),
}


def checked_version(viewer: str) -> str:
    """The installed version of ``viewer``'s package; raises ViewerAssetsError if missing or unsupported."""
    distribution, specifier = SUPPORTED[viewer]
    try:
        installed = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        raise ViewerAssetsError(
            f"The {viewer} viewer needs the Python package {distribution!r}, which is not installed. "
            f"Remedy: pip install '{distribution}{specifier}'"
        ) from None
    if Version(installed) not in SpecifierSet(specifier):
        raise ViewerAssetsError(
            f"{distribution} {installed} is installed, but torchlens-widgets supports {specifier}. "
            f"Remedy: pip install '{distribution}{specifier}'"
        )
    return installed
