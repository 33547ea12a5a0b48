"""torchlens' exports of a trace, kept for the next widget of the same trace: re-running an
``explore(log)`` cell, or a second widget of ``log``, reuses the export instead of running it again
(on a 10,000-op trace the export is most of ``explore()``'s time).

Rules:
- An entry is keyed by the trace object and what was exported (viewer, options, privacy profile).
- It holds the trace only weakly: a trace that is freed drops its entries.
- A trace changed in place is exported again: each entry keeps the trace's stamp (torchlens' graph
  shape hash, its op count, its label, which ops hold gradients), read again on every use. (torchlens'
  annotations and a backward pass leave both exports as they were: checked on 2.36.)
- At most ``MAX_ENTRIES`` entries and ``MAX_BYTES`` of compressed wire bytes are kept, the least
  recently used dropped first.
- The background worker (``_ahead``) asks too (the memory overlay's timeline): the entries are read and
  written under one lock, and an export being made by one thread is waited for by another asking for
  it, not made twice (the memory strip asked while the overlay's timeline is made ahead).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

MAX_ENTRIES = 8
MAX_BYTES = 256 * 2**20  # the entries' wire bytes (their Python objects are about 10x that)


@dataclass
class _Entry:
    trace: weakref.ref[Any]
    stamp: tuple[Any, ...]
    value: Any
    size: int


_entries: OrderedDict[tuple[int, Hashable], _Entry] = OrderedDict()
# Re-entrant: a freed trace's callback (forget) may run in a thread that holds it (a garbage
# collection while it writes).
_entries_lock = threading.RLock()
# The exports being made, by key: a second thread asking waits on it. Re-entrant: no make() asks for its
# own export; a Netron export may ask for Model Explorer's, never the other way round (no cycle).
_making: dict[tuple[int, Hashable], threading.RLock] = {}


def stamp(log: Any) -> tuple[Any, ...]:
    """What would change an export when a trace is changed in place: its graph (torchlens'
    ``graph_shape_hash`` and op count), its label (the graph's name) and the ops that hold gradients
    (a backward pass since). Reading it is linear in the ops, far below the export itself."""
    ops = list(getattr(log, "layer_list", None) or ())
    with_grads = tuple(index for index, op in enumerate(ops) if getattr(op, "has_saved_gradient", False))
    label = getattr(log, "trace_label", None)
    return (getattr(log, "graph_shape_hash", None), len(ops), label, with_grads)


def cached(log: Any, what: Hashable, make: Callable[[], T], size: Callable[[T], int]) -> T:
    """``make()``'s export of ``log`` for ``what`` (viewer and options), from the cache when the
    trace is the one exported and unchanged since; ``size(value)`` is its wire bytes, for the bound."""
    key = (id(log), what)
    current = stamp(log)
    with _entries_lock:
        found = _kept(key, log, current)
        if found is not None:
            return found.value
        making = _making.setdefault(key, threading.RLock())
    with making:  # another thread making it: wait, then take what it made
        with _entries_lock:
            found = _kept(key, log, current)
        if found is not None:
            return found.value
        try:
            value = make()
        except BaseException:  # torchlens refused: the next ask tries again
            with _entries_lock:
                _making.pop(key, None)
            raise

        def forget(_gone: weakref.ref[Any]) -> None:
            with _entries_lock:
                _entries.pop(key, None)

        with _entries_lock:
            _making.pop(key, None)
            try:
                reference = weakref.ref(log, forget)
            except TypeError:  # an object that takes no weak reference: never kept
                return value
            _entries[key] = _Entry(reference, current, value, size(value))
            _entries.move_to_end(key)
            _bound()
        return value


def _kept(key: tuple[int, Hashable], log: Any, current: tuple[Any, ...]) -> _Entry | None:
    """The entry for ``key`` if it is of this very trace, unchanged since (made most recently used)."""
    entry = _entries.get(key)
    if entry is not None and entry.trace() is log and entry.stamp == current:
        _entries.move_to_end(key)
        return entry
    return None


def _bound() -> None:
    while len(_entries) > MAX_ENTRIES or (len(_entries) > 1 and _total() > MAX_BYTES):
        _entries.popitem(last=False)


def _total() -> int:
    return sum(entry.size for entry in _entries.values())


def clear() -> None:
    """Forget every kept export (tests; a user never needs it: freed traces drop theirs)."""
    with _entries_lock:
        _entries.clear()
