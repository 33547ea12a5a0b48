"""Request/response over a widget's custom messages.

The frontend asks (messages sent before it renders would be lost): it sends
``{"type": "request", "id": n, "method": name, "params": {...}}`` and gets back
``{"type": "response", "id": n, "ok": bool, "result" | "error": ...}`` with binary buffers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

Reply = tuple[dict[str, Any], list[bytes]]
Handler = Callable[[dict[str, Any]], Reply]

log = logging.getLogger(__name__)


class RequestChannel:
    def __init__(self, send: Callable[..., None]) -> None:
        self._send = send
        self._handlers: dict[str, Handler] = {}
        self.bytes_sent = 0  # buffer bytes answered so far (benchmarks read it)

    def register(self, method: str, handler: Handler) -> None:
        self._handlers[method] = handler

    def receive(self, content: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "request":
            return
        request_id = content.get("id")
        method = str(content.get("method", ""))
        handler = self._handlers.get(method)
        if handler is None:
            self._send(
                {"type": "response", "id": request_id, "ok": False, "error": f"unknown request {method!r}"}
            )
            return
        try:
            result, buffers = handler(dict(content.get("params") or {}))
        except Exception as error:  # reaches the widget's error box instead of vanishing in a log
            log.exception("torchlens-widgets request %r failed", method)
            self._send(
                {
                    "type": "response",
                    "id": request_id,
                    "ok": False,
                    "error": f"{type(error).__name__}: {error}",
                }
            )
            return
        self.bytes_sent += sum(len(buffer) for buffer in buffers)
        self._send({"type": "response", "id": request_id, "ok": True, "result": result}, buffers)
