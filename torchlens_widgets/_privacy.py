"""The privacy profiles a widget can be opened with (torchlens' own export profiles), what "public"
refuses, and the source locations it strips that torchlens' exporters leave in."""

from __future__ import annotations

import json
from typing import Any

from ._errors import PrivacyProfileError, ViewerNotAvailableError

PRIVACY_PROFILES = ("local", "public")


def check_privacy_profile(profile: object) -> str:
    if profile not in PRIVACY_PROFILES:
        raise ViewerNotAvailableError(
            f"Unknown privacy_profile {profile!r}. Remedy: use 'local' (everything torchlens measured) "
            "or 'public' (no source paths, code lines or value-derived facts)."
        )
    return str(profile)


def refuse_under_public(what: str, remedy: str) -> PrivacyProfileError:
    """The typed refusal of a value-derived answer: ``what`` it is, why public withholds it, the remedy."""
    return PrivacyProfileError(
        f"{what}, which privacy_profile='public' withholds (it shows no value-derived facts). "
        f"Remedy: {remedy}"
    )


# torchlens' capture advisories ({kind, count, first_location, message}, e.g. a tensor-to-Python scalar
# escape from `.item()`) carry the absolute path of the user's line in first_location. torchlens' own
# public profile drops it from the Model Explorer payload only partly (the graph's group attributes keep
# the advisories as JSON text), and its Netron metadata has no profile; torchlens' bundle scrub sets it to
# None when no source is embedded, and so is it here.
_LOCATION_KEY = "first_location"


def without_source_locations(value: Any) -> Any:
    """A copy of ``value`` (JSON data) with every advisory's ``first_location`` set to None, in nested
    data and in strings that hold JSON (how torchlens writes advisories into attribute values)."""
    if isinstance(value, dict):
        return {
            key: None if key == _LOCATION_KEY else without_source_locations(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [without_source_locations(item) for item in value]
    if isinstance(value, tuple):  # torchlens' Netron metadata rows are (key, value) pairs
        return tuple(without_source_locations(item) for item in value)
    if isinstance(value, str) and _LOCATION_KEY in value and value[:1] in "[{":
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return json.dumps(without_source_locations(parsed))
    return value
