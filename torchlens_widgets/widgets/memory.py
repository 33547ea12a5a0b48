"""An explorer's memory answers: torchlens' summary of where the trace's memory peaks, its peak op
selected on the graph, and the status line that states the summary while memory is shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..memory import MemoryTimeline, memory_summary, memory_timeline
from .base import ViewerWidget
from .debugging import Debugging


class MemoryAnswers:
    """torchlens' memory picture of one trace, on a widget's traits (``_memory_line``) and through its
    :class:`Debugging` (the peak's selection and status line).

    Given explicitly: the widget whose traits it sets, the trace, the widget's ``debugging`` and
    ``record`` (the live record of a label). torchlens builds the timeline when first asked (a second
    on GPT-2 small the first time in a kernel), never before memory is shown or asked for.
    """

    def __init__(
        self, widget: ViewerWidget, log: Any, debugging: Debugging, *, record: Callable[[str], Any]
    ) -> None:
        self._widget = widget
        self._log = log
        self._debugging = debugging
        self._record = record

    @property
    def timeline(self) -> MemoryTimeline:
        """torchlens' timeline of the trace (MemoryTimelineError where torchlens refuses to build one)."""
        return memory_timeline(self._log)

    def summary(self) -> dict[str, Any]:
        return memory_summary(self.timeline)

    def peak(self) -> Any:
        """Selects and centres torchlens' peak op and states the summary; its record, or None when
        torchlens' estimate has no op at its peak (nothing but inputs ran)."""
        summary = self.summary()
        label = summary["peak_label"] or None
        self._debugging.show_answer(summary["line"], label)
        return self._record(label) if label else None

    def show(self, on: bool) -> None:
        """The summary's line in the status line while memory is shown (``on``), none otherwise."""
        self._widget.set_trait("_memory_line", self.summary()["line"] if on else "")
