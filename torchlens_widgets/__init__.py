"""torchlens-widgets: the graph your PyTorch model actually ran, inline in a notebook cell.

import torchlens as tl, torchlens_widgets as tlw
log = tl.trace(model, x)
w = tlw.explore(log)            # also available as tl.widgets.explore(log)
"""

from __future__ import annotations

import sys
from typing import Any

import torch
import torchlens as _tl

from ._errors import (
    DebugQuestionError,
    MemoryTimelineError,
    NetronOptionError,
    NodeNotFoundError,
    NotATraceError,
    OverlayNameError,
    OverlayUnavailableError,
    PartialCaptureNotDrawableError,
    PayloadValidationError,
    PrecisionDtypeError,
    PrecisionPathError,
    PrecisionRunError,
    PrivacyProfileError,
    RunCountError,
    RunNameError,
    RunPathError,
    RunsNotAlignedError,
    SaveSizeError,
    SelfComparisonError,
    TimelineNameError,
    TorchlensWidgetsError,
    TransportSettingError,
    ViewerAssetsError,
    ViewerNotAvailableError,
)
from ._overlays import OVERLAYS
from ._privacy import check_privacy_profile, refuse_under_public
from ._signature import parameters_of
from ._transport import set_transport
from ._version import __version__
from .numerics import run_precision
from .widgets import Compare, Diff, Explorer, PrecisionExplorer
from .widgets.base import DEFAULT_HEIGHT, DEFAULT_PRIVACY_PROFILE
from .widgets.explorer import DEFAULT_VIEWER
from .widgets.precision import DRIFT_OVERLAY

__all__ = [
    "OVERLAYS",
    "Compare",
    "DebugQuestionError",
    "Diff",
    "Explorer",
    "MemoryTimelineError",
    "NetronOptionError",
    "NodeNotFoundError",
    "NotATraceError",
    "OverlayNameError",
    "OverlayUnavailableError",
    "PartialCaptureNotDrawableError",
    "PayloadValidationError",
    "PrecisionDtypeError",
    "PrecisionExplorer",
    "PrecisionPathError",
    "PrecisionRunError",
    "PrivacyProfileError",
    "RunCountError",
    "RunNameError",
    "RunPathError",
    "RunsNotAlignedError",
    "SaveSizeError",
    "SelfComparisonError",
    "TimelineNameError",
    "TorchlensWidgetsError",
    "TransportSettingError",
    "ViewerAssetsError",
    "ViewerNotAvailableError",
    "__version__",
    "compare",
    "diff",
    "explore",
    "precision",
    "set_transport",
]


@parameters_of(Explorer)
def explore(*args: Any, **kwargs: Any) -> Explorer:
    """Show ``log`` (a ``torchlens.trace(...)`` result) inline in the cell: ``Explorer(log, ...)``, whose
    signature (its parameters and defaults) it has.

    Parameters
    ----------
    log:
        The torchlens Trace to show, or the partial capture of a forward pass that raised
        (``torchlens.partial.from_failed_capture(exc)``): what ran is drawn, the op it failed at is
        highlighted and selected, and the inspector shows the exception. torchlens finalizes the ops
        that ran only when the capture stopped itself at a non-finite value (``raise_on_nan=True``);
        any other crash raises PartialCaptureNotDrawableError saying where it failed.
    viewer:
        ``"model-explorer"`` (Google's Model Explorer) or ``"netron"``; switchable live via ``w.viewer``.
    granularity:
        Netron only: ``"module"`` (module calls as drill-down boxes), ``"op"`` (every op) or ``"rolled"``
        (repeated passes merged); switchable live via ``w.granularity``.
    overlay:
        Colour nodes by a fact torchlens measured: ``"time"``, ``"flops"``, ``"bytes"``, ``"nan"``,
        ``"magnitude"``, ``"grad_norm"`` or ``"field:<record field>"`` (``""`` for none);
        ``"intervention"`` when an intervention fired in the capture; after ``w.add_overlay(name, fn)``,
        that name too.
    height:
        Height of the widget in pixels.
    privacy_profile:
        ``"local"`` (default) or ``"public"``: torchlens' export profile; public drops source paths,
        code lines and value-derived facts by construction.
    baseline:
        Another Trace of the model (or None): torchlens' guarded differential ``diff_report(log, baseline)``
        is shown per node (``diff_status``, ``diff_max_abs_delta``, ``diff_reference``, ``diff_verdict``)
        and as the ``"delta"`` overlay; settable live via ``w.baseline``. Comparing a capture with
        itself raises SelfComparisonError with torchlens' reason. ``w.first_divergence()`` finds the
        first op where the two runs separate.
    depth, show_buffers:
        Netron only, ``tl.export.netron``'s options: the module level of the root graph (an int >= 1)
        and which buffers to draw (``"never"``, ``"meaningful"`` or ``"always"``); live via
        ``w.depth`` / ``w.show_buffers``. Invalid values raise NetronOptionError (a ValueError).
    timeline:
        ``"memory"`` shows torchlens' live bytes over execution order in a strip under the graph (the
        peak and the selected op marked; a click selects the op that ran there); None hides it.
        Settable live via ``w.timeline``; an unknown name raises TimelineNameError.
    """
    return Explorer(*args, **kwargs)


@parameters_of(Diff)
def diff(*args: Any, **kwargs: Any) -> Diff:
    """Show two captures side by side in Model Explorer, navigation synced by node id: ``Diff(log_a,
    log_b, ...)``, whose signature it has (``names``: the panes' names; ``top``: how many of the largest
    deltas the summary lists; ``height``, ``privacy_profile`` as for explore).

    Each pane is coloured by torchlens' per-node delta (L2 norm of the saved-output difference, as
    ``tl.export.model_explorer_diff`` computes it). ``log_a`` is the subject: "added" nodes exist only in
    ``log_a``, "removed" ones only in ``log_b``; nodes without saved values are "not comparable", never 0.
    ``d.selected`` is ``(log_a[...], log_b[...])`` with None on a side that lacks the node.
    """
    return Diff(*args, **kwargs)


@parameters_of(Compare)
def compare(*args: Any, **kwargs: Any) -> Compare:
    """Show 2 to 16 runs of one model on one graph, drawn once and recoloured in place for the run shown:
    ``Compare(runs, ...)``, whose signature it has. (Training steps, dtypes, seeds, ranks.)

    Parameters
    ----------
    runs:
        2 to 16 runs: a list or dict of torchlens Traces, a ``tl.Bundle`` (or the path of one saved with
        ``tl.save``), or paths of traces saved with ``tl.save`` (loaded with ``tl.load``). Runs align by
        torchlens' op labels (as ``Bundle.shared_op_labels``); the graph drawn is the reference run's
        with every op only other runs have added, marked "not in runs" with the runs that lack it.
    names:
        One distinct name per run. Default: the dict's keys, the bundle's names, a path's name without
        its suffix, or the trace's own name (``_2``, ``_3`` added where two repeat).
    reference:
        The run the others are compared with (a name; default: the first run). ``c.reference`` is
        settable; ``c.run`` (the run shown) starts at the first other run.
    overlay:
        ``"delta"`` (default): each node's torchlens ``diff_report`` figure (max |difference| of its saved
        output) of the run shown against the reference, the figure ``explore(log, baseline=ref)`` shows;
        ``"spread"``: per node, max - min over the runs of torchlens' "magnitude" figure (mean |output|),
        no value where fewer than two runs measured it; or any overlay ``explore()`` has, computed for
        the run shown. A node the run shown lacks has no value, never a zero.
    viewer, height:
        As for explore; ``c.viewer`` switches live.
    privacy_profile:
        ``"local"`` or ``"public"``; a value-derived overlay (delta, spread, magnitude, nan, grad_norm)
        under "public" raises PrivacyProfileError.

    Bad input raises before anything is drawn: RunCountError, NotATraceError, RunPathError, RunNameError
    (a reference or name that is no run), RunsNotAlignedError (a run that shares no op with the reference).
    ``c.values()``, ``c.most_changed(k)`` and ``c.first_divergence()`` answer per run, from torchlens.
    """
    return Compare(*args, **kwargs)


def precision(
    model: torch.nn.Module,
    x: Any,
    *,
    dtype: torch.dtype = torch.bfloat16,
    reference: torch.dtype = torch.float64,
    kwargs: dict[str, Any] | None = None,
    overlay: str = DRIFT_OVERLAY,
    viewer: str = DEFAULT_VIEWER,
    height: int = DEFAULT_HEIGHT,
    privacy_profile: str = DEFAULT_PRIVACY_PROFILE,
) -> PrecisionExplorer:
    """Where ``model`` loses precision in ``dtype``: its run in ``dtype`` drawn and coloured against a
    ``reference`` run (torchlens' ``bisect_precision``).

    A copy of the model and of the floating-point inputs (``x``: the forward's input or a tuple of
    positional inputs; ``kwargs``: its keyword inputs) is cast to ``dtype`` (a model already in it runs
    as it is) and run beside a ``reference`` run, both through torchlens; the caller's model and inputs
    are never changed. The explorer's overlays: ``"drift"`` (each op's max relative error against the
    reference) and ``"error gain"`` (its error over its inputs' largest: where error is created).
    ``w.first_drift()`` selects torchlens' first diverged op, ``w.drift_ranking(k)`` the ops that create
    the most error. A dtype that is not floating, or a reference no wider than it, raises
    PrecisionDtypeError; a model that fails in ``dtype`` raises PrecisionRunError, one whose forward
    takes another path when run again PrecisionPathError. Value-derived: ``privacy_profile="public"``
    raises PrivacyProfileError.
    """
    if check_privacy_profile(privacy_profile) == "public":
        raise refuse_under_public(
            "precision() compares the values of two runs op by op",
            "call it with privacy_profile='local', or ask torchlens yourself: "
            "torchlens.debug.bisect_precision(model, x).",
        )
    run = run_precision(model, x, kwargs, dtype=dtype, reference=reference)
    return PrecisionExplorer(run, overlay=overlay, viewer=viewer, height=height)


# `tl.widgets.explore(log)` works once this package is imported. (Not `_torchlens`: that name is the
# submodule of private torchlens imports, which Python binds on this package when it is imported.)
_tl.widgets = sys.modules[__name__]
