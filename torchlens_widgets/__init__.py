"""torchlens-widgets: the graph your PyTorch model actually ran, inline in a notebook cell.

import torchlens as tl, torchlens_widgets as tlw
log = tl.trace(model, x)
w = tlw.explore(log)            # also available as tl.widgets.explore(log)
"""

from __future__ import annotations

import sys
from typing import Any

import torchlens as _torchlens

from ._errors import (
    NodeNotFoundError,
    NotATraceError,
    PayloadValidationError,
    TorchlensWidgetsError,
    ViewerAssetsError,
    ViewerNotAvailableError,
)
from ._explorer import Explorer
from ._overlays import OVERLAYS, OverlayUnavailableError

__version__ = "0.1.0"

__all__ = [
    "OVERLAYS",
    "Explorer",
    "NodeNotFoundError",
    "NotATraceError",
    "OverlayUnavailableError",
    "PayloadValidationError",
    "TorchlensWidgetsError",
    "ViewerAssetsError",
    "ViewerNotAvailableError",
    "explore",
]


def explore(
    log: Any,
    *,
    viewer: str = "model-explorer",
    granularity: str = "module",
    overlay: str = "",
    height: int = 640,
    privacy_profile: str = "local",
) -> Explorer:
    """Show ``log`` (a ``torchlens.trace(...)`` result) inline in the cell.

    Parameters
    ----------
    log:
        The torchlens Trace to show.
    viewer:
        ``"model-explorer"`` (Google's Model Explorer) or ``"netron"``; switchable live via ``w.viewer``.
    granularity:
        Netron only: ``"module"`` (module calls as drill-down boxes), ``"op"`` (every op) or ``"rolled"``
        (repeated passes merged); switchable live via ``w.granularity``.
    overlay:
        Colour nodes by a fact torchlens measured: ``"time"``, ``"flops"``, ``"bytes"``, ``"nan"``,
        ``"magnitude"``, ``"grad_norm"`` or ``"field:<record field>"`` (``""`` for none).
    height:
        Height of the widget in pixels.
    privacy_profile:
        ``"local"`` (default) or ``"public"``: torchlens' export profile; public drops source paths,
        code lines and value-derived facts by construction.
    """
    return Explorer(
        log,
        viewer=viewer,
        granularity=granularity,
        overlay=overlay,
        height=height,
        privacy_profile=privacy_profile,
    )


# `tl.widgets.explore(log)` works once this package is imported.
_torchlens.widgets = sys.modules[__name__]
