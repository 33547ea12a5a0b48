"""Typed errors. Each message says what went wrong and what to do about it."""

from __future__ import annotations

from collections.abc import Sequence


class TorchlensWidgetsError(Exception):
    """Base class of every error this package raises on purpose."""


class NotATraceError(TorchlensWidgetsError, TypeError):
    """explore()/diff() was handed something other than a torchlens Trace."""

    def __init__(self, argument: object, parameter: str = "log") -> None:
        kind = type(argument).__module__ + "." + type(argument).__qualname__
        super().__init__(
            f"{parameter} must be a torchlens Trace, got {kind}. "
            f"Remedy: capture one first, e.g. `{parameter} = torchlens.trace(model, x)`, "
            f"then pass that object."
        )


class PayloadValidationError(TorchlensWidgetsError, ValueError):
    """torchlens' Model Explorer payload failed its own validation; nothing is drawn."""

    def __init__(self, rows: Sequence[object], cause: BaseException | None = None) -> None:
        self.rows = list(rows)
        listed = "\n".join(f"  - {_describe(row)}" for row in self.rows) or f"  - {cause}"
        super().__init__(
            "The Model Explorer payload built from this trace failed validation, so nothing was drawn:\n"
            f"{listed}\n"
            "Remedy: re-capture with a current torchlens (see the rows above for the failing nodes), or "
            "view the trace with viewer='netron'."
        )


class ViewerAssetsError(TorchlensWidgetsError, RuntimeError):
    """A viewer's web assets are missing from its installed package, or its version is unsupported."""


class ViewerNotAvailableError(TorchlensWidgetsError, ValueError):
    """An unknown viewer name, or a viewer feature this version does not provide."""


class PrivacyProfileError(ViewerNotAvailableError):
    """A value-derived answer or view (a diff, a baseline, the first non-finite op) that
    ``privacy_profile="public"`` withholds; the message says why and names the remedy."""


def _describe(row: object) -> str:
    """One validation row as a line a user can read: code, graph, detail."""
    if isinstance(row, dict) and "code" in row:
        where = f" in graph {row['graph_id']}" if row.get("graph_id") else ""
        return f"{row['code']}{where}: {row.get('detail', '')}"
    return str(row)


class NodeNotFoundError(TorchlensWidgetsError, KeyError):
    """select() was given a name that matches no node in the graph on screen."""

    def __str__(self) -> str:  # KeyError would repr() the message, quotes and escaped newlines included
        return str(self.args[0]) if self.args else ""


class SelfComparisonError(TorchlensWidgetsError, ValueError):
    """A capture was compared with itself; torchlens refuses, since every row would be vacuous."""

    def __init__(
        self, message: str, *, code: str = "differential_subject_is_reference", remedy: str = ""
    ) -> None:
        self.code = code
        self.remedy = remedy
        super().__init__(message)


class OverlayUnavailableError(TorchlensWidgetsError, ValueError):
    """The overlay cannot be drawn for this capture (torchlens' reason and remedy are in the message)."""


class MemoryTimelineError(OverlayUnavailableError):
    """torchlens cannot build a memory timeline for this capture (its ``InvalidArgumentError``, e.g. for a
    sparse recording); the message carries torchlens' reason and remedy. An ``OverlayUnavailableError``:
    a refused ``overlay="memory"`` leaves the previous overlay on the graph."""

    def __init__(self, reason: str, remedy: str = "") -> None:
        self.remedy = remedy or "explore a full torchlens Trace (torchlens.trace(model, x))"
        # torchlens' own message ends with its remedy; a refusal without one is given this package's.
        tail = "" if "Remedy:" in reason else f" Remedy: {self.remedy}."
        super().__init__(
            f"torchlens cannot build a memory timeline for this capture. torchlens says: {reason}{tail}"
        )


class TimelineNameError(TorchlensWidgetsError, ValueError):
    """``w.timeline`` set to something other than a strip it can show (``"memory"``) or None."""


class SaveSizeError(TorchlensWidgetsError, ValueError):
    """save_html() cannot fit even the viewer and the graph in ``max_bytes`` (the message says how many)."""


class OverlayNameError(TorchlensWidgetsError, ValueError):
    """A custom overlay's name is empty or taken by a built-in overlay."""


class NetronOptionError(TorchlensWidgetsError, ValueError):
    """A ``depth`` or ``show_buffers`` value torchlens' Netron exporter refuses."""


class PartialCaptureNotDrawableError(TorchlensWidgetsError, ValueError):
    """A crashed forward pass whose partial capture torchlens cannot draw (it never finalized it)."""


class DebugQuestionError(TorchlensWidgetsError, ValueError):
    """A debug question this widget cannot answer as asked (no baseline to diverge from, no selection)."""


class TransportSettingError(TorchlensWidgetsError, ValueError):
    """A transport mode (``set_transport``, ``TORCHLENS_WIDGETS_TRANSPORT``) that is none of the modes."""


class PrecisionDtypeError(TorchlensWidgetsError, ValueError):
    """run_precision() was given a dtype that is not floating point, or a reference no wider than it:
    the comparison would measure nothing."""

    def __init__(self, dtype: object, reference: object, reason: str) -> None:
        self.dtype = dtype
        self.reference = reference
        super().__init__(
            f"Cannot compare dtype={dtype} against reference={reference}: {reason}. "
            "Remedy: pass a floating dtype (torch.bfloat16, torch.float16 or torch.float32) and a "
            "reference with more bits and a smaller eps (reference=torch.float64, the default)."
        )


class PrecisionRunError(TorchlensWidgetsError, RuntimeError):
    """The model raised when run in the reduced (or the reference) dtype; the original is __cause__."""

    def __init__(self, dtype: object, error: BaseException, where: str = "") -> None:
        self.dtype = dtype
        at = f" {where}" if where else ""
        super().__init__(
            f"The model failed to run in {dtype}{at}: {type(error).__name__}: {error}. "
            f"Remedy: run it in float32, or keep the module holding that op in float32 "
            f"(e.g. `model.<module>.float()` after the cast) and cast its output back."
        )


class PrecisionPathError(TorchlensWidgetsError, RuntimeError):
    """torchlens' bisect compared ops that the drawn capture of the same run does not have: the model's
    forward took another path when it was run again."""

    def __init__(self, missing: Sequence[str]) -> None:
        self.missing = list(missing)
        super().__init__(
            f"torchlens' precision rows {self.missing[:5]} are not in the drawn trace of the same run: the "
            "model's forward took another path when torchlens ran it again (state that changes from call "
            "to call, randomness outside torch's seeded generator, or a branch on either). "
            "Remedy: make the forward take the same path on every call with the same inputs (model.eval(), "
            "no counter or cache that changes between calls, random numbers only from torch), or call "
            "torchlens.debug.bisect_precision(model, x) for the table without the graph."
        )


class RunCountError(TorchlensWidgetsError, ValueError):
    """tlw.compare() was given fewer than 2 or more than 16 runs."""


class RunPathError(TorchlensWidgetsError, ValueError):
    """A run given to tlw.compare() as a path is no trace saved with ``tl.save`` (torchlens' reason is
    the ``__cause__``)."""


class RunNameError(TorchlensWidgetsError, ValueError):
    """A run name (``reference=``, ``c.run``, ``c.reference``, ``names=``) that names no run of the
    comparison, or names that are not one distinct name per run."""


class RunsNotAlignedError(TorchlensWidgetsError, ValueError):
    """Runs given to tlw.compare() share no op with the reference run: no node of one graph stands for
    them all."""
