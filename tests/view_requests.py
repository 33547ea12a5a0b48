"""A view's request to a widget's kernel side, as the browser sends it, and the reply it gets back."""

from __future__ import annotations

from typing import Any


def ask(
    widget: Any,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    request_id: int = 1,
    channel: str = "view-a",
    **envelope: Any,
) -> tuple[dict[str, Any], list[bytes]]:
    """One request on ``widget``'s channel (``envelope`` adds fields, e.g. ``buffers="base64"``);
    returns the one reply's content and its buffers."""
    sent: list[tuple[dict[str, Any], list[bytes] | None]] = []
    widget._channel._send = lambda content, buffers=None: sent.append((content, buffers))
    request = {"type": "request", "channel": channel, "id": request_id, "method": method}
    widget._channel.receive({**request, "params": params or {}, **envelope})
    ((content, buffers),) = sent
    return content, list(buffers or [])
