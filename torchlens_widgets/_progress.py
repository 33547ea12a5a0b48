"""A progress bar in the cell for long kernel-side work (save_html), and nothing outside a notebook."""

from __future__ import annotations

import time
from typing import Any

# Below this many steps the work takes a few seconds at most: no bar (and none in tests or scripts).
MANY_STEPS = 200


def in_notebook() -> bool:
    """True when running in a Jupyter kernel, where a widget can be shown in the cell."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class Progress:
    """``IntProgress`` + a line of text under the cell's code, updated at most ~10 times a second."""

    def __init__(self, total: int, description: str, show: bool | None = None) -> None:
        self.total = max(total, 1)
        self._bar: Any = None
        self._text: Any = None
        self._sent = 0.0
        if show is None:
            show = total >= MANY_STEPS and in_notebook()
        if show:
            import ipywidgets
            from IPython.display import display

            self._bar = ipywidgets.IntProgress(value=0, min=0, max=self.total, description=description)
            self._text = ipywidgets.Label("")
            display(ipywidgets.HBox([self._bar, self._text]))

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def update(self, done: int, text: str = "") -> None:
        if self._bar is None:
            return
        now = time.monotonic()
        if done < self.total and now - self._sent < 0.1:
            return  # each update is a message to the browser: keep them few
        self._sent = now
        self._bar.value = min(done, self.total)
        self._text.value = text or f"{done:,} of {self.total:,}"

    def finish(self, text: str, ok: bool = True) -> None:
        if self._bar is None:
            return
        self._bar.value = self.total if ok else self._bar.value
        self._bar.bar_style = "success" if ok else "danger"
        self._text.value = text
