"""Work started ahead of need: torchlens' answers a reader is likely to ask for next, computed on one
background thread while they look: a drawn graph's cost overlays, the memory overlay once they near the
overlay menu, a comparison's next run (its delta, its overlay). A switch or a scrub then does not wait
for torchlens.

One worker for the whole kernel: at most one such answer is computed at a time, whatever the number of
widgets, and a cell the user runs meanwhile shares the interpreter with that one answer only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Answer = TypeVar("Answer")

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tlw-ahead")


class Ahead(Generic[Key, Answer]):
    """Answers started on the background worker, by key, until taken."""

    def __init__(self) -> None:
        self._started: dict[Key, Future[Answer]] = {}

    def start(self, key: Key, compute: Callable[[], Answer]) -> None:
        """Starts ``compute`` on the worker unless it was started for ``key`` already."""
        if key not in self._started:
            self._started[key] = _WORKER.submit(compute)

    def take(self, key: Key, compute: Callable[[], Answer]) -> Answer:
        """The answer for ``key``: the one started ahead (waited for if running; its error raised here as
        if computed here), else ``compute()`` run now, as it is for one still queued behind another
        answer (cancelled there: the reader waits for their own answer only)."""
        started = self._started.pop(key, None)
        if started is not None and not started.cancel():
            try:
                return started.result()
            except CancelledError:
                pass
        return compute()

    def drop(self, keep: Callable[[Key], bool]) -> None:
        """Forgets the answers whose key ``keep`` refuses (not started yet: cancelled)."""
        for key in [key for key in self._started if not keep(key)]:
            self._started.pop(key).cancel()
