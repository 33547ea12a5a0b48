"""The runs of ``tlw.compare()``: collected from a list, a dict, a torchlens ``Bundle`` or paths saved with
``tl.save``, named, and checked before anything is drawn (how many, what each is, that they align).

Runs align by torchlens' op labels (``"linear_1_1:1"``), as torchlens' own ``Bundle.shared_op_labels``
does (a test pins the two together): a node of the graph drawn stands for the op of that label in every
run that has it; a run that lacks it has no value there, never a zero.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torchlens as tl

from .._errors import (
    NotATraceError,
    RunCountError,
    RunNameError,
    RunPathError,
    RunsNotAlignedError,
    SelfComparisonError,
)
from ..diffing.labels import default_label

MIN_RUNS = 2
MAX_RUNS = 16

_ACCEPTED = (
    "a list or dict of torchlens Traces, a torchlens Bundle (tl.bundle(...)), or paths of traces saved "
    "with tl.save"
)


@dataclass(frozen=True)
class Runs:
    """The runs of a comparison, in order: name -> torchlens Trace."""

    traces: dict[str, Any]
    # name -> the labels of the run's ops (pass-qualified), read once.
    labels: dict[str, frozenset[str]] = field(repr=False)

    @property
    def names(self) -> list[str]:
        return list(self.traces)

    def trace(self, name: str) -> Any:
        return self.traces[self.check_name(name)]

    def check_name(self, name: object, what: str = "run") -> str:
        """``name`` when it names a run; RunNameError naming the runs otherwise."""
        if isinstance(name, str) and name in self.traces:
            return name
        raise RunNameError(
            f"{what} {name!r} is not a run of this comparison. Remedy: use one of its runs' names: "
            f"{', '.join(map(repr, self.traces))}."
        )

    @property
    def shared_labels(self) -> frozenset[str]:
        """The op labels every run has (torchlens' ``Bundle.shared_op_labels``, as a set)."""
        return frozenset.intersection(*self.labels.values())

    def lacks(self, name: str, label: str) -> bool:
        """Whether run ``name`` has no op of that label (a module address or layer label is not an op)."""
        return label not in self.labels[name] and any(label in labels for labels in self.labels.values())


def missing_from(runs: Runs) -> dict[str, str]:
    """Every run's op labels that some runs lack -> those runs' names ("b, c"): the ops the graph drawn
    marks as not in every run (a viewer marks those it draws)."""
    marks = {}
    for label in sorted(frozenset.union(*runs.labels.values())):
        lacking = [name for name in runs.names if label not in runs.labels[name]]
        if lacking:
            marks[label] = ", ".join(lacking)
    return marks


def not_on_graph(runs: Runs, drawn: str) -> dict[str, list[str]]:
    """Run name -> its op labels that run ``drawn`` lacks, for the runs that have any."""
    lacking = {name: sorted(runs.labels[name] - runs.labels[drawn]) for name in runs.names}
    return {name: labels for name, labels in lacking.items() if labels}


def not_on_graph_line(not_drawn: dict[str, list[str]], drawn: str, why: str) -> str:
    """What the status line says of ``not_on_graph``'s answer when the graph shown is run ``drawn``'s,
    and ``why`` ("" when every op is drawn)."""
    if not not_drawn:
        return ""
    counts = ", ".join(f"{len(labels)} of run {name!r}" for name, labels in not_drawn.items())
    return f"ops with no node on this graph (run {drawn!r}'s): {counts}; c.not_drawn lists them; {why}"


def collect_runs(runs: Any, names: Sequence[str] | None = None) -> Runs:
    """The runs as named traces. Raises, typed and naming the remedy: RunCountError (fewer than 2 or more
    than 16), NotATraceError (an entry that is no Trace and no path), RunPathError (a path torchlens
    cannot load as a Trace), RunNameError (``names`` not one distinct name per run)."""
    pairs = _named_entries(runs)
    if not MIN_RUNS <= len(pairs) <= MAX_RUNS:
        raise RunCountError(
            f"tlw.compare() shows {MIN_RUNS} to {MAX_RUNS} runs on one graph; it was given {len(pairs)}. "
            f"Remedy: pass {MIN_RUNS} to {MAX_RUNS} runs ({_ACCEPTED}); to look at one run, use "
            "tlw.explore(trace); of many, pick the steps, seeds or ranks to compare."
        )
    loaded = [(name, _load(entry, position)) for position, (name, entry) in enumerate(pairs)]
    _refuse_repeats([trace for _, trace in loaded])
    if names is not None:
        given = [str(name) for name in names] if not isinstance(names, str) else [names]
        if len(given) != len(loaded) or len(set(given)) != len(given):
            raise RunNameError(
                f"names={list(names) if not isinstance(names, str) else names!r} must give one distinct "
                f"name per run ({len(loaded)} runs). Remedy: pass {len(loaded)} different names, or "
                "leave names=None for the dict's keys, the bundle's names or the traces' own names."
            )
        loaded = [(name, trace) for name, (_, trace) in zip(given, loaded, strict=True)]
    traces = dict(_unique(loaded))
    return Runs(traces=traces, labels={name: op_labels(trace) for name, trace in traces.items()})


def _refuse_repeats(traces: list[Any]) -> None:
    """SelfComparisonError for one capture given twice: torchlens compares a capture only with another."""
    first: dict[int, int] = {}
    for position, trace in enumerate(traces):
        if id(trace) in first:
            raise SelfComparisonError(
                f"runs[{position}] is the same capture as runs[{first[id(trace)]}]: torchlens compares a "
                "capture only with another (its delta with itself would be vacuous). Remedy: pass each run "
                "once, or trace the model again for another run.",
                remedy="pass each run once",
            )
        first[id(trace)] = position


def check_aligned(runs: Runs, reference: str) -> None:
    """RunsNotAlignedError when a run shares no op with the reference but its inputs and outputs: no
    node of the graph drawn would stand for any of its ops."""
    ref_trace = runs.trace(reference)
    computed = {label for label in runs.labels[reference] if not _is_endpoint(ref_trace, label)}
    apart = [name for name in runs.names if name != reference and not computed & runs.labels[name]]
    if apart:
        raise RunsNotAlignedError(
            f"Run(s) {', '.join(map(repr, apart))} share no op with the reference run {reference!r} (runs "
            "align by torchlens' op labels, as tl.bundle(...).shared_op_labels does), so one graph "
            "cannot show them. Remedy: compare runs of the same model (training steps, dtypes, seeds, "
            "ranks), or put two different models side by side with tlw.diff(a, b)."
        )


def op_labels(trace: Any) -> frozenset[str]:
    """The pass-qualified labels of a trace's ops."""
    return frozenset(str(op.label) for op in trace.layer_list)


def _is_endpoint(trace: Any, label: str) -> bool:
    op = trace[label]
    return bool(getattr(op, "is_input", False) or getattr(op, "is_output", False))


def _named_entries(runs: Any) -> list[tuple[str | None, Any]]:
    """(name or None, entry) per run, an entry a Trace or a path (a run is never loaded here)."""
    if isinstance(runs, tl.Bundle):
        return [(str(name), runs.members[name]) for name in runs.names]
    if isinstance(runs, (str, os.PathLike)):  # one path: a saved Bundle holds many runs
        loaded = _load(runs, None)
        if isinstance(loaded, tl.Bundle):
            return _named_entries(loaded)
        return [(None, loaded)]
    if isinstance(runs, tl.Trace):
        return [(None, runs)]
    if isinstance(runs, Mapping):
        return [(str(name), entry) for name, entry in runs.items()]
    if isinstance(runs, Iterable):  # a path's name without its suffix names its run
        return [
            (Path(entry).stem if isinstance(entry, (str, os.PathLike)) else None, entry) for entry in runs
        ]
    raise NotATraceError(runs, "runs")


def _path_name(entry: Any) -> str | None:
    return Path(entry).stem if isinstance(entry, (str, os.PathLike)) else None


def _load(entry: Any, position: int | None) -> Any:
    """A Trace as it is; a path loaded with ``tl.load`` (RunPathError when it holds no Trace)."""
    where = f"runs[{position}]" if position is not None else "runs"
    if isinstance(entry, tl.Trace):
        return entry
    if not isinstance(entry, (str, os.PathLike)):
        raise NotATraceError(entry, where)
    path = Path(entry)
    remedy = (
        "Remedy: pass the directory tl.save(trace, path) wrote (it holds manifest.json), or the Trace itself."
    )
    try:
        loaded = tl.load(path)
    except (tl.errors.TorchLensError, OSError, ValueError) as error:
        raise RunPathError(
            f"{where} = {str(path)!r} is not a saved torchlens trace: {error} {remedy}"
        ) from error
    if position is None and isinstance(loaded, tl.Bundle):
        return loaded
    if not isinstance(loaded, tl.Trace):
        kind = type(loaded).__name__
        raise RunPathError(
            f"{where} = {str(path)!r} holds a torchlens {kind}, not a Trace. Remedy: pass paths of traces "
            "saved with tl.save(trace, path) (a saved Bundle: tlw.compare(path))."
        )
    return loaded


def _unique(entries: list[tuple[str | None, Any]]) -> list[tuple[str, Any]]:
    """Every run named: its given name, else a path's name without its suffix, else the trace's own
    name; a repeated name gets ``_2``, ``_3`` as torchlens' Bundle gives default names."""
    named: list[tuple[str, Any]] = []
    used: set[str] = set()
    for name, trace in entries:
        base = candidate = name if name is not None else default_label(trace)
        count = 1
        while candidate in used:
            count += 1
            candidate = f"{base}_{count}"
        used.add(candidate)
        named.append((candidate, trace))
    return named
