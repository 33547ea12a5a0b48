"""An explorer's memory answers: torchlens' summary of where the trace's memory peaks, its peak op
selected on the graph, the status line that states the summary while memory is shown, and the memory
strip under the graph (``w.timeline``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import MemoryTimelineError, TimelineNameError
from .._protocol import TIMELINES, MemoryTimelineParams, MemoryTimelineResult, Reply
from ..memory import MemoryTimeline, memory_summary, memory_timeline
from ..memory.strip import strip_series
from .base import ViewerWidget
from .debugging import Debugging


class MemoryAnswers:
    """torchlens' memory picture of one trace, on a widget's traits (``_memory_line``, ``notice``) and
    through its :class:`Debugging` (the peak's selection and status line).

    Given explicitly: the widget whose traits it sets, the trace, the widget's ``debugging``,
    ``record`` (the live record of a label) and ``node_ids`` (the nodes labels are drawn as in the
    viewer on screen, "" for none). torchlens builds the timeline when first asked (a second on GPT-2 small
    the first time in a kernel), never before memory is shown or asked for.
    """

    def __init__(
        self,
        widget: ViewerWidget,
        log: Any,
        debugging: Debugging,
        *,
        record: Callable[[str], Any],
        node_ids: Callable[[list[str]], list[str]],
    ) -> None:
        self._widget = widget
        self._log = log
        self._debugging = debugging
        self._record = record
        self._node_ids = node_ids

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

    # ----- the strip (w.timeline) -------------------------------------------------------------------

    def check_timeline(self, value: Any) -> str | None:
        """``w.timeline``'s new value, once torchlens has built what it shows: None (or "") hides the
        strip; "memory" needs torchlens' timeline, whose refusal is put in ``notice`` and raised (the
        trait keeps its value, so no strip is half drawn)."""
        if value is None or value == "":
            return None
        if value not in TIMELINES:
            raise TimelineNameError(
                f"No timeline {value!r}. Remedy: w.timeline = 'memory' (torchlens' live bytes over "
                "execution order, under the graph) or None to hide it."
            )
        try:
            self.timeline  # noqa: B018 -- built (and cached) now, so a refusal raises in the cell
        except MemoryTimelineError as error:
            self._widget.set_trait("notice", str(error))
            raise
        self._widget.set_trait("notice", "")
        return str(value)

    def strip(self, _params: MemoryTimelineParams) -> Reply[MemoryTimelineResult]:
        """The ``memory_timeline`` request: the strip's series, node ids of the viewer on screen."""
        return strip_series(self.timeline, self._node_ids), []
