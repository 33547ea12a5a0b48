"""Where a low-precision run loses its precision, on the graph: an Explorer of the native-dtype run
(``tlw.precision``) coloured by each op's error against a high-precision reference run, or by how much
error an op adds to what its inputs already carried (torchlens' ``bisect_precision`` table)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import NodeNotFoundError
from ..numerics import OpDrift, PrecisionRun
from .explorer import Explorer

DRIFT_OVERLAY = "drift"
GAIN_OVERLAY = "error gain"


class PrecisionExplorer(Explorer):
    """An Explorer of the native-dtype run of ``tlw.precision(model, x, dtype=...)``: the explorer with
    two custom overlays and two answers, shown through its ``Debugging`` collaborator.

    Overlays ``"drift"`` (each op's max relative error against the reference run) and ``"error gain"``
    (that error over the largest error of the op's inputs: high where an op creates error, about 1
    where it carries it). ``w.run`` is the whole comparison (torchlens' rows, what was skipped).
    """

    def __init__(self, run: PrecisionRun, *, overlay: str = DRIFT_OVERLAY, **explore_options: Any) -> None:
        self._run = run
        super().__init__(run.trace, **explore_options)
        self.add_overlay(DRIFT_OVERLAY, _by_label(run, lambda drift: drift.rel_error))
        self.add_overlay(GAIN_OVERLAY, _by_label(run, lambda drift: drift.gain))
        self.overlay = overlay
        self._debugging.say(run.summary())

    @property
    def run(self) -> PrecisionRun:
        """The comparison behind the overlays: the dtypes, torchlens' result, the per-op drifts."""
        return self._run

    def first_drift(self) -> Any:
        """torchlens' first op whose native output drifts beyond its dtype's tolerance from the
        reference run (``bisect_precision``): selects and centres it and returns its record, or None
        when no op drifted (``w.debug_status`` says so and how many ops were compared)."""
        label = self._run.first_label
        if label is None:
            self._debugging.say(self._run.summary())
            return None
        drift = self._run.drifts.get(label)
        error = f", max relative error {drift.rel_error:.3g}" if drift and drift.rel_error is not None else ""
        self._debugging.show_answer(f"First drift at {label}{error}. {self._run.summary()}", label)
        return self._record(label)

    def drift_ranking(self, k: int = 10) -> list[OpDrift]:
        """The ``k`` ops that create the most error (highest error gain), each with ``.record``,
        ``.rel_error`` and ``.gain``; highlights them and says the top one in ``w.debug_status``."""
        if not isinstance(k, int) or k < 1:
            raise ValueError(
                f"drift_ranking(k={k!r}): k is how many ops to return. Remedy: pass an int >= 1."
            )
        ranked = self._run.ranking(k)
        drawn = [drift.label for drift in ranked if self._source.index.id_of_label(drift.label) is not None]
        if not ranked:
            self._debugging.say("No op could be ranked: none was compared. " + self._run.summary())
            return ranked
        top = ranked[0]
        gain = f"{top.gain:.3g}" if top.gain is not None else "unknown"
        status = (
            f"The {len(ranked)} ops that create the most error, filled yellow; first {top.label} "
            f"(gain {gain})."
        )
        with self.hold_trait_notifications():
            self._debugging.mark(dict.fromkeys(drawn, "ranked"))
            self._debugging.show_answer(status, top.label)  # selected and centred: its group opens
        return ranked

    def _record(self, label: str) -> Any:
        try:
            return self._source.record(label)
        except (KeyError, NodeNotFoundError):
            return None


def _by_label(run: PrecisionRun, value: Callable[[OpDrift], float | None]) -> Callable[[Any], float | None]:
    """An overlay function: the op's value from the comparison, None where it was not compared."""

    def of(record: Any) -> float | None:
        drift = run.drifts.get(str(getattr(record, "label", "")))
        return None if drift is None else value(drift)

    return of
