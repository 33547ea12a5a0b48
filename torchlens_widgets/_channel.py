"""Request/response over a widget's custom messages.

The frontend asks (messages sent before it renders would be lost): it sends
``{"type": "request", "channel": c, "id": n, "method": name, "params": {...}}`` and gets back
``{"type": "response", "channel": c, "id": n, "ok": bool, "result" | "error": ...}`` with binary
buffers. Every view of a widget receives every custom message, and each view numbers its requests
from 1, so ``channel`` (a random id per view, echoed here) says which view a reply is for.

Where the kernel knows every view is about to ask (a recolour: the `_colour_rev` it sets next makes each
view ask `colours`), it sends the reply first, to all of them: ``{"type": "ahead", "method": name,
"result": ...}`` with its buffers. A view takes it instead of asking when it fits what it shows, else it
asks as before; a recolour is then one message from the kernel instead of a round trip.

A request with ``"buffers": "base64"`` gets its buffers as base64 text in ``"base64_buffers"`` and no
binary buffers: the browser asks for that on hosts that would carry binary buffers as JSON arrays of
numbers (VS Code), where base64 costs 4/3 of the bytes instead of about 3.6 times. The kernel answers
base64 whatever was asked where binary frames cannot reach the page (a gateway's relay, or the user's
setting: ``_transport.py``); ``base64_reason`` says which.

Why this is not anywidget's experimental ``command`` API: docs/ARCHITECTURE.md, "The channel".
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Mapping
from typing import Any

from ._protocol import AheadReply, Base64Reason, ErrorResponse, Method, OkResponse, Reply
from ._transport import forced_text

# A handler takes the request's params (a dict from the browser: it checks what it reads) and returns
# its result (one of _protocol's TypedDicts) and buffers.
Handler = Callable[[Any], Reply[Mapping[str, Any]]]

ENCODINGS = ("binary", "base64")

log = logging.getLogger(__name__)


class RequestChannel:
    def __init__(self, send: Callable[..., None], notice: Callable[[str], None] | None = None) -> None:
        self._send = send
        # Where a failure that has no reply to travel in is shown (the widget's `notice`).
        self._notice = notice
        self._handlers: dict[str, Handler] = {}
        self._after_reply: dict[str, Callable[[], None]] = {}
        self._after_reply_failed: set[str] = set()  # logged once each: it would fail on every reply
        self.bytes_sent = 0  # buffer bytes sent so far (replies and replies ahead), before any base64
        # Requests answered, by method (tests and benchmarks read how many a change cost).
        self.answered: dict[str, int] = {}
        # Whether a view has asked anything yet (replies sent ahead go to views that exist), and
        # whether one asked for text buffers (a reply sent ahead reaches every view: text, then).
        self._heard_from_a_view = False
        self._text_asked = False

    def register(
        self, method: Method, handler: Handler, after_reply: Callable[[], None] | None = None
    ) -> None:
        """Answer ``method`` with ``handler``; ``after_reply`` runs once a successful reply has left
        (work the browser need not wait for, done while it draws)."""
        self._handlers[method] = handler
        if after_reply is not None:
            self._after_reply[method] = after_reply

    def receive(self, content: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "request":
            return
        request_id = content.get("id")
        # The view that asked takes the reply (every view of the widget receives it).
        channel = content["channel"] if isinstance(content.get("channel"), str) else None
        method = str(content.get("method", ""))
        encoding = content.get("buffers", "binary")
        self._heard_from_a_view = True
        self._text_asked = self._text_asked or encoding == "base64"
        handler = self._handlers.get(method)
        if handler is None:
            self._send(_error(request_id, channel, f"unknown request {method!r}"))
            return
        if encoding not in ENCODINGS:
            error = f"unknown buffer encoding {encoding!r} (expected one of {', '.join(ENCODINGS)})"
            self._send(_error(request_id, channel, error))
            return
        try:
            forced = forced_text()
            result, buffers = handler(dict(content.get("params") or {}))
        except Exception as error:  # reaches the widget's error box instead of vanishing in a log
            log.exception("torchlens-widgets request %r failed", method)
            self._send(_error(request_id, channel, f"{type(error).__name__}: {error}"))
            return
        self.answered[method] = self.answered.get(method, 0) + 1
        response = OkResponse(type="response", id=request_id, ok=True, result=result)
        if channel is not None:
            response["channel"] = channel
        self._send_with_buffers(response, buffers, forced or ("asked" if encoding == "base64" else None))
        if method in self._after_reply:
            self._run_after_reply(method)

    def send_ahead(self, method: Method, params: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Sends every view the reply to ``method`` with ``params`` before any asks; returns its result.
        None, and nothing sent, before any view has asked anything (none is drawn to take it) or when
        the handler fails (each view then asks, and shows the failure as any reply's)."""
        handler = self._handlers.get(method)
        if handler is None or not self._heard_from_a_view:
            return None
        try:
            result, buffers = handler(dict(params))
        except Exception:
            log.debug("torchlens-widgets: no %r reply sent ahead; the views will ask", method, exc_info=True)
            return None
        ahead = AheadReply(type="ahead", method=method, result=result)
        self._send_with_buffers(ahead, buffers, forced_text() or ("asked" if self._text_asked else None))
        return result

    def _send_with_buffers(
        self, message: OkResponse | AheadReply, buffers: list[bytes], base64_reason: Base64Reason | None
    ) -> None:
        """Sends ``message`` with ``buffers``: binary, or as base64 text in it when ``base64_reason``."""
        self.bytes_sent += sum(len(buffer) for buffer in buffers)
        if base64_reason is None:
            self._send(message, buffers)
            return
        message["base64_buffers"] = [base64.b64encode(buffer).decode("ascii") for buffer in buffers]
        message["base64_reason"] = base64_reason
        self._send(message, [])

    def _run_after_reply(self, method: str) -> None:
        """The hook of ``method``: its reply has left, so a failure is logged (once) and shown in the
        notice instead of escaping into the comm's message handler, where nobody would see it."""
        try:
            self._after_reply[method]()
        except Exception as error:
            if method not in self._after_reply_failed:
                self._after_reply_failed.add(method)
                log.exception("torchlens-widgets work after the %r reply failed", method)
            if self._notice is not None:
                self._notice(f"Work after the {method} reply failed: {type(error).__name__}: {error}")


def _error(request_id: Any, channel: str | None, message: str) -> ErrorResponse:
    response = ErrorResponse(type="response", id=request_id, ok=False, error=message)
    if channel is not None:
        response["channel"] = channel
    return response
