"""What a view sends a widget's kernel side, as the browser sends it: a request and the reply it gets back,
and the comm's state updates."""

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


class Wire:
    """The widget's comm: what the kernel sent the views; a view's update, delivered as ipywidgets does."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget
        self.sent: list[dict[str, Any]] = []
        self.buffers: list[list[bytes]] = []  # each message's, in step with `sent`
        widget.comm.send = self._send

    def _send(self, data: Any = None, buffers: Any = None, **_: Any) -> None:
        self.sent.append(data)
        self.buffers.append(list(buffers or []))

    def colours_sent(self) -> list[tuple[str, Any, list[bytes]]]:
        """In the order sent: each reply sent ahead ("ahead", its result, its buffers) and each new
        `_colour_rev` ("rev", the revision, [])."""
        found: list[tuple[str, Any, list[bytes]]] = []
        for message, buffers in zip(self.sent, self.buffers, strict=True):
            content = message.get("content") or {}
            if message["method"] == "custom" and content.get("type") == "ahead":
                found.append(("ahead", content["result"], buffers))
            elif message["method"] == "update" and "_colour_rev" in message["state"]:
                found.append(("rev", message["state"]["_colour_rev"], []))
        return found

    def update(self, **state: Any) -> None:
        self.widget._handle_msg(
            {"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []}
        )

    def updates(self, name: str) -> list[Any]:
        """The values of ``name`` the kernel sent to every view (plain updates, not echoes)."""
        return [msg["state"][name] for msg in self.sent if msg["method"] == "update" and name in msg["state"]]
