"""Supported versions of the viewer packages whose web assets the widgets load."""

from __future__ import annotations

from importlib import metadata

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ._errors import ViewerAssetsError

# viewer name -> its Python distribution; the frame shims rely on these builds' internals.
DISTRIBUTIONS = {"model-explorer": "ai-edge-model-explorer", "netron": "netron"}


def _declared_specifiers() -> dict[str, str]:
    """Each viewer distribution's version range as pyproject.toml declares it: one source, read from the
    installed package's metadata (written from pyproject.toml by every install, editable ones too)."""
    requirements = [Requirement(text) for text in metadata.requires("torchlens-widgets") or []]
    declared = {req.name: _lower_bound_first(req.specifier) for req in requirements if req.marker is None}
    missing = sorted(set(DISTRIBUTIONS.values()) - declared.keys())
    if missing:
        raise ViewerAssetsError(
            f"torchlens-widgets' installed metadata names no version range for {missing}. "
            "Remedy: reinstall torchlens-widgets (pip install -e . in a clone)."
        )
    return declared


def _lower_bound_first(specifier: SpecifierSet) -> str:
    """ ">=0.1.33,<0.2", as a reader writes a range (packaging sorts the parts as text)."""
    return ",".join(sorted((str(part) for part in specifier), key=lambda part: not part.startswith(">")))


_SPECIFIERS = _declared_specifiers()
SUPPORTED: dict[str, tuple[str, str]] = {
    # viewer name -> (distribution, specifier)
    viewer: (distribution, _SPECIFIERS[distribution])
    for viewer, distribution in DISTRIBUTIONS.items()
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
