"""The options of torchlens' Netron exporter a widget exposes (``depth``, ``show_buffers``), checked by it."""

from __future__ import annotations

from typing import Any, Literal

from torchlens.errors import TorchLensError

from ._errors import NetronOptionError
from ._torchlens import validate_netron_options

ShowBuffers = Literal["never", "meaningful", "always"]
SHOW_BUFFERS: tuple[ShowBuffers, ...] = ("never", "meaningful", "always")
# torchlens' defaults for tl.export.netron(depth=, show_buffers=).
DEFAULT_DEPTH = 1
DEFAULT_SHOW_BUFFERS: ShowBuffers = "meaningful"


def check_netron_options(depth: Any, show_buffers: Any) -> tuple[int, ShowBuffers]:
    """``(depth, show_buffers)`` when torchlens' Netron exporter accepts them, else NetronOptionError.

    ``depth`` is the module level shown in the root graph (module granularity); ``show_buffers`` is
    torchlens' buffer policy.
    """
    try:
        validate_netron_options("module", depth, show_buffers)
    except (TorchLensError, ValueError, TypeError) as error:
        raise NetronOptionError(
            f"Netron cannot show depth={depth!r}, show_buffers={show_buffers!r}. Remedy: depth is an "
            f"int >= 1 (the module level of the root graph; default {DEFAULT_DEPTH}), show_buffers one "
            f"of {', '.join(map(repr, SHOW_BUFFERS))}. torchlens says: {error}"
        ) from error
    return depth, show_buffers
