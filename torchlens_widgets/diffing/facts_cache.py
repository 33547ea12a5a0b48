"""The baseline facts a widget computed, kept per reference trace while that trace lives: a reader who
clears a baseline and sets it again (or goes back and forth between two) waits for torchlens'
``diff_report`` once per reference, not at every set. The facts hold no reference to the trace; the
cache holds the trace weakly, so a baseline the user dropped is freed as before. And what is made of
those facts (wire bytes, the delta overlay), kept per facts object."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .baseline import BaselineFacts

# References whose facts are kept (the most recently used), and facts whose products are.
KEPT = 4
Made = TypeVar("Made")


class FactsByReference:
    """Reference trace -> its facts against one subject trace, for up to KEPT live references."""

    def __init__(self) -> None:
        self._kept: OrderedDict[int, tuple[weakref.ref[Any], BaselineFacts]] = OrderedDict()

    def get(self, ref: Any) -> BaselineFacts | None:
        entry = self._kept.get(id(ref))
        if entry is None or entry[0]() is not ref:
            return None
        self._kept.move_to_end(id(ref))
        return entry[1]

    def put(self, ref: Any, facts: BaselineFacts) -> None:
        key = id(ref)
        try:
            # The entry goes with the trace (its id may then name another object).
            held = weakref.ref(ref, lambda _: self._kept.pop(key, None))
        except TypeError:  # an object that takes no weak reference: not kept
            return
        self._kept[key] = (held, facts)
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)


class MadeOncePerFacts(Generic[Made]):
    """What is made of a baseline's facts (a viewer's wire bytes of them, the delta overlay), made once
    per facts object and kept for the last KEPT: a reader going back and forth between baselines gets
    the same bytes again, not a new encoding of every node's facts."""

    def __init__(self) -> None:
        self._kept: list[tuple[BaselineFacts, Made]] = []

    def get(self, facts: BaselineFacts, make: Callable[[], Made]) -> Made:
        for held, made in self._kept:
            if held is facts:
                return made
        made = make()
        self._kept = [*self._kept[-(KEPT - 1) :], (facts, made)]
        return made
