"""Where a NaN or inf was born: torchlens' non-finite frontier, reshaped for a widget's one line.

``nonfinite_frontier`` names the first-dirty sites (flagged ops none of whose parents is flagged),
their clean parents and their children. This module keeps its answer as it is and only splits the
flagged ops into producers (the first-dirty sites) and the ops that merely carry the value on.

A NaN that enters through a graph input is born at that input: torchlens flags the input record
itself and names it as the first-dirty site, so the input's own label is the producer (tested).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torchlens.notebook.frontier import nonfinite_frontier

from ._records import module_address, record, saved_tensor


@dataclass(frozen=True)
class NonFiniteExplanation:
    """The frontier's answer, split into who produced the non-finite value and who carried it."""

    producer_labels: tuple[str, ...]
    propagated_labels: tuple[str, ...]
    parent_labels: tuple[str, ...]
    flagged_total: int
    coverage: str
    status: str

    @property
    def propagated(self) -> int:
        """How many ops only carry the value on (the flagged ops minus the producers)."""
        return len(self.propagated_labels)

    @property
    def found(self) -> bool:
        """Whether torchlens flagged any op; False is only as strong as ``coverage``."""
        return self.flagged_total > 0


def explain_nonfinite(trace: Any) -> NonFiniteExplanation:
    """Split torchlens' non-finite frontier of ``trace`` into producers, carriers and clean parents."""
    frontier = nonfinite_frontier(trace)
    producers = tuple(site.label for site in frontier.sites if site.role == "first_dirty")
    parents = tuple(site.label for site in frontier.sites if site.role == "parent")
    produced = set(producers)
    # The same list the frontier reads (trace.nonfinite_ops), in torchlens' order: execution order.
    flagged = tuple(str(label) for label in (getattr(trace, "nonfinite_ops", ()) or ()))
    propagated = tuple(label for label in flagged if label not in produced)
    status = _status(trace, producers, len(propagated), frontier.flagged_total, frontier.coverage)
    return NonFiniteExplanation(
        producer_labels=producers,
        propagated_labels=propagated,
        parent_labels=parents,
        flagged_total=frontier.flagged_total,
        coverage=frontier.coverage,
        status=status,
    )


def _status(trace: Any, producers: tuple[str, ...], carried: int, flagged: int, coverage: str) -> str:
    """The widget's one line; an empty answer quotes the coverage instead of claiming "clean"."""
    if flagged == 0:
        checked = getattr(getattr(trace, "nonfinite_coverage", None), "checked", None)
        if checked == 0:
            return (
                "No non-finite value was found, but torchlens checked no op output (no verdict). "
                f"Coverage: {coverage}"
            )
        return f"No non-finite value was found in the checked outputs. Coverage: {coverage}"
    if not producers:
        return (
            f"{flagged} ops carry non-finite values, but torchlens names no first-dirty site. "
            f"Coverage: {coverage}"
        )
    first = producers[0]
    kind, where = _kind_and_place(trace, first)
    count = f"{len(producers)} producer" + ("s" if len(producers) > 1 else "")
    others = f" (also {', '.join(producers[1:])})" if len(producers) > 1 else ""
    ops = "op carries" if carried == 1 else "ops carry"
    return f"{kind} born at {first}{where}, {count}{others}; {carried} {ops} it. Coverage: {coverage}"


def _kind_and_place(trace: Any, label: str) -> tuple[str, str]:
    """("NaN" | "inf" | "NaN and inf" | "Non-finite value", " (module)") for one producer."""
    try:
        op = record(trace, label)
    except (KeyError, ValueError, IndexError):
        return "Non-finite value", ""
    out = saved_tensor(op)
    kind = "Non-finite value"
    if out is not None and (out.is_floating_point() or out.is_complex()):
        has_nan = bool(torch.isnan(out).any())
        has_inf = bool(torch.isinf(out).any())
        kind = {(True, False): "NaN", (False, True): "inf", (True, True): "NaN and inf"}.get(
            (has_nan, has_inf), kind
        )
    if bool(getattr(op, "is_input", False)):
        return kind, " (a graph input)"
    address = module_address(op)
    return kind, f" ({address})" if address else ""
