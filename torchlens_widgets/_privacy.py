"""The privacy profiles a widget can be opened with (torchlens' own export profiles)."""

from __future__ import annotations

from ._errors import ViewerNotAvailableError

PRIVACY_PROFILES = ("local", "public")


def check_privacy_profile(profile: object) -> str:
    if profile not in PRIVACY_PROFILES:
        raise ViewerNotAvailableError(
            f"Unknown privacy_profile {profile!r}. Remedy: use 'local' (everything torchlens measured) "
            "or 'public' (no source paths, code lines or value-derived facts)."
        )
    return str(profile)
