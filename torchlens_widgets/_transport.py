"""How the kernel carries a reply's buffers: binary websocket frames, or base64 text in the message.

The view asks per request (``"buffers": "base64"`` on VS Code, see js/kernel/host-transport.ts); the kernel
overrides a binary ask with text where binary frames cannot reach the page. jupyter_server's gateway
relay (``GatewayClient.url``: a Jupyter Kernel Gateway or Enterprise Gateway) decodes every binary
frame from the gateway as UTF-8: the first reply with buffers kills the relay, and no later message of
that kernel reaches the page. A reply's ``base64_reason`` says why it came as text.

The mode is, first found: ``set_transport(...)``, the ``TORCHLENS_WIDGETS_TRANSPORT`` environment
variable, then ``"auto"``. ``"text"`` always answers base64; ``"binary"`` answers as the view asks;
``"auto"`` answers base64 when the kernel was launched through a gateway, else as the view asks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal, get_args

from ._errors import TransportSettingError
from ._protocol import Base64Reason

TransportMode = Literal["auto", "text", "binary"]
MODES: tuple[str, ...] = get_args(TransportMode)
ENV_VAR = "TORCHLENS_WIDGETS_TRANSPORT"

# What the kernel's environment holds when it was launched through a gateway, as measured with
# jupyter_kernel_gateway 3.0.1 behind jupyter_server 2.21.1 (GatewayClient.url):
# - KERNEL_GATEWAY=1: set by Jupyter Kernel Gateway's kernel manager in every kernel it starts.
# - KERNEL_LAUNCH_TIMEOUT (e.g. "40"): sent by jupyter_server's GatewayClient with every kernel start
#   request (it always sets a default); a gateway passes the request's KERNEL_* variables on to the
#   kernel, Enterprise Gateway as Kernel Gateway does.
# - KERNEL_WORKING_DIR (the notebook's folder): sent by GatewayClient when the kernel starts for a
#   notebook session; KERNEL_USERNAME only where the server's environment or GatewayClient.http_user
#   sets it. Neither says "gateway" alone: a local kernel may have them too, so they are not used.
GATEWAY_MARKERS: tuple[tuple[str, str | None], ...] = (
    ("KERNEL_GATEWAY", "1"),  # the value must be "1"
    ("KERNEL_LAUNCH_TIMEOUT", None),  # any value
)

_setting: TransportMode | None = None


def _check(mode: object, where: str) -> TransportMode:
    if mode not in MODES:
        raise TransportSettingError(
            f'{where} is {mode!r}, not one of {", ".join(repr(m) for m in MODES)}. Remedy: use "text" '
            "where the kernel's replies must travel as text (a Jupyter Kernel Gateway or another relay "
            'that passes no binary frames), "binary" to answer as the page asks, or "auto" (the default).'
        )
    return mode  # type: ignore[return-value]


def set_transport(mode: TransportMode) -> None:
    """How this kernel's widgets carry their replies: ``"text"`` (base64, for relays that pass no
    binary frames), ``"binary"`` (as the page asks) or ``"auto"`` (text when launched via a gateway).

    It overrides ``TORCHLENS_WIDGETS_TRANSPORT`` and applies to every widget's next request (a view
    that waited in vain draws once its cell is re-run)."""
    global _setting
    _setting = _check(mode, "set_transport's mode")


def launched_via_gateway(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return any(name in env and (value is None or env[name] == value) for name, value in GATEWAY_MARKERS)


def forced_text(environ: Mapping[str, str] | None = None) -> Base64Reason | None:
    """Why replies must be text whatever the view asked ("setting" or "gateway"), or None.

    Raises TransportSettingError for a mode that is none of MODES (the request's error reply shows it)."""
    env = os.environ if environ is None else environ
    if _setting is not None:
        mode = _setting
    else:
        mode = _check(env.get(ENV_VAR, "auto").strip().lower() or "auto", ENV_VAR)
    if mode == "text":
        return "setting"
    if mode == "auto" and launched_via_gateway(env):
        return "gateway"
    return None
