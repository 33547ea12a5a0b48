"""The inspector's small multiples of a comparison: the selected node in every run, the current
overlay's value per run (the figures ``c.values()`` returns), the run shown and the reference named."""

from __future__ import annotations

from .._errors import OverlayUnavailableError, PrivacyProfileError
from .._protocol import RunsSection, RunValue
from ..inspector.facts import json_number
from .overlays import DELTA_OVERLAY, RunOverlays
from .runs import Runs


def runs_section(
    runs: Runs, overlays: RunOverlays, overlay: str, label: str, *, shown: str, reference: str
) -> RunsSection:
    """The section for the node of ``label`` under ``overlay`` ("" for none: the runs, no values)."""
    return RunsSection(
        overlay=overlay,
        shown=shown,
        reference=reference,
        runs=[_run_value(runs, overlays, overlay, label, run, reference) for run in runs.names],
    )


def _run_value(
    runs: Runs, overlays: RunOverlays, overlay: str, label: str, run: str, reference: str
) -> RunValue:
    lacks = runs.lacks(run, label)
    try:
        # A JSON number or None: a run gone NaN or inf has no value here, never a JSON error.
        value = json_number(overlays.value(run, overlay, label)) if overlay and not lacks else None
    except (OverlayUnavailableError, PrivacyProfileError):  # torchlens refuses it for this run
        return RunValue(name=run, value=None, text="not available", lacks=lacks)
    if value is not None:
        text = f"{value:.4g}"
    elif lacks:
        text = "not in this run"
    elif overlay == DELTA_OVERLAY and run == reference:
        text = "reference"
    else:
        text = "no value" if overlay else "in this run"
    return RunValue(name=run, value=float(value) if value is not None else None, text=text, lacks=lacks)
