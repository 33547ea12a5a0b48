"""What the browser may change, and how a refusal or a failing callback reaches the user.

ipywidgets applies every state update a view sends, read-only traits included, and a value the kernel
refuses raises inside the comm handler: the kernel log gets the traceback while the views keep showing
the refused value. Here a view may set only the traits listed in ``_browser_writable``; each is
validated on its own, and a refusal puts the kernel's value back in every view and says why in
``notice``. ``on_select`` callbacks run one by one: one that raises is named in ``notice`` and the
others still run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import anywidget

_CALLBACK_NOTICE = "on_select callback "


class BrowserState(anywidget.AnyWidget):
    """An anywidget whose views may set only ``_browser_writable`` traits, each checked by the kernel.

    Subclasses declare a synced, read-only ``notice`` trait (``Unicode``) for the explanations.
    """

    _browser_writable: ClassVar[frozenset[str]] = frozenset()
    # Of those, what the browser reports by itself (not a user's request): they keep the notice.
    _browser_reports: ClassVar[frozenset[str]] = frozenset()
    # The trait a view's update is being applied to right now (observers ask via _set_by_view).
    _from_view: str | None = None

    def _set_by_view(self, name: str) -> bool:
        """True while a view's change of ``name`` is being applied (a toolbar choice, not Python's)."""
        return self._from_view == name

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply a state update from a view: accepted keys one by one, refused ones reverted and explained."""
        for name, value in sync_data.items():
            if name not in self.keys:
                continue  # ipywidgets ignores unknown keys as well
            if name not in self._browser_writable:
                self._refuse(name, value, "it is set by the kernel only")
                continue
            self._apply(name, value)

    def _apply(self, name: str, value: Any) -> None:
        # A new value from the user makes the last explanation stale. The current value sent again is
        # no request: a viewer echoing a selection it was told to show, late, must not clear a refusal.
        if name not in self._browser_reports and not _same(self.get_state(name)[name], value):
            self.set_trait("notice", "")
        old = getattr(self, name)
        try:
            # Validated at once (not deferred to the end of a hold_trait_notifications block, where a
            # non-TraitError refusal would leave the value set): a refusal leaves the kernel's value.
            # The lock keeps ipywidgets from echoing the browser's own value back as an update.
            self._from_view = name
            try:
                with self._lock_property(**{name: value}):
                    self.set_trait(name, value)  # status and error are read-only for Python, not views
            finally:
                self._from_view = None
        except Exception as error:
            if getattr(self, name) != old:  # accepted, then an observer failed (e.g. a viewer's assets)
                self.set_trait(name, old)
            self._refuse(name, value, f"{type(error).__name__}: {_message(error)}")
            return
        if _same(self.get_state(name)[name], value):
            super().set_state({name: value})  # ipywidgets' echo to every client; the value is unchanged
        else:
            self.send_state(name)  # the kernel settled on another value (e.g. a refused overlay)

    def _refuse(self, name: str, value: Any, reason: str) -> None:
        self.send_state(name)  # every view shows the kernel's value again
        shown = json.dumps(value)
        shown = shown if len(shown) <= 80 else shown[:79] + "…"
        self.set_trait("notice", f"The view's change of {name} to {shown} was refused: {reason}")

    def _run_callbacks(self, callbacks: Iterable[Callable[[Any], None]], argument: Any) -> None:
        """Call each callback; one that raises is named in ``notice`` and the others still run."""
        callbacks = list(callbacks)  # a callback may unsubscribe itself
        if self.notice.startswith(_CALLBACK_NOTICE):
            self.set_trait("notice", "")  # the last failure is history once the callbacks run again
        failures = []
        for callback in callbacks:
            try:
                callback(argument)
            except Exception as error:
                failures.append(
                    f"{_callable_name(callback)} raised {type(error).__name__}: {_message(error)}"
                )
        if failures:
            others = " (the other callbacks ran)" if len(failures) < len(callbacks) else ""
            self.set_trait("notice", _CALLBACK_NOTICE + "; ".join(failures) + others)


def _same(kernel_value: Any, browser_value: Any) -> bool:
    # A JSON round trip compares the way the wire does (tuples arrive as lists).
    return bool(json.loads(json.dumps(kernel_value)) == browser_value)


def _message(error: BaseException) -> str:
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    return text if len(text) <= 300 else text[:299] + "…"


def _callable_name(callback: Callable[[Any], None]) -> str:
    return str(
        getattr(callback, "__qualname__", None) or getattr(callback, "__name__", None) or repr(callback)
    )
