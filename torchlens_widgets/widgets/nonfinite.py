"""An explorer's answers about non-finite values: torchlens' first NaN/Inf op, and where a NaN was born
apart from the ops it only spread into (torchlens' frontier), marked on the graph in two styles."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from .. import _debug
from .._privacy import refuse_under_public
from .._protocol import NonFiniteFacts, NonFiniteRole
from .._trace import NodeLookup, record_for_label
from ..inspector.facts import call_site
from ..numerics import NonFiniteExplanation, explain_nonfinite, input_ranges
from .debugging import Debugging


@dataclass(frozen=True)
class NonFiniteResult:
    """What ``explain_nonfinite()`` found, in torchlens' words.

    ``producers`` are the records of the ops where non-finite values were born (torchlens'
    first-dirty sites, in execution order; a graph input when they came in through it);
    ``propagated`` counts the other ops that carry them; ``coverage`` is torchlens' line on what
    was checked: an empty answer is only as good as it.
    """

    producers: list[Any]
    propagated: int
    coverage: str
    status: str
    producer_labels: list[str] = field(default_factory=list)
    propagated_labels: list[str] = field(default_factory=list, repr=False)

    @property
    def found(self) -> bool:
        return bool(self.producer_labels)


class NonFiniteAnswers:
    """The non-finite answers about one capture, shown through a widget's :class:`Debugging`.

    Given explicitly: the trace, the privacy profile (value facts are refused under "public"), the
    widget's ``debugging``, ``index`` (the node index of what the view draws now), ``holding`` (the
    widget's ``hold_trait_notifications``: an answer's marks and selection reach the views at once)
    and ``on_known`` (called once torchlens' first non-finite op is known: the toolbar offers its
    buttons from then on).
    """

    def __init__(
        self,
        log: Any,
        privacy_profile: str,
        debugging: Debugging,
        *,
        index: Callable[[], NodeLookup],
        holding: Callable[[], AbstractContextManager[Any]],
        on_known: Callable[[], None],
    ) -> None:
        self._log = log
        self._privacy_profile = privacy_profile
        self._debugging = debugging
        self._index = index
        self._holding = holding
        self._on_known = on_known
        # torchlens' answers, asked once: the first non-finite op after the first graph reply (it reads
        # every saved output, a second on a 10,000-op trace, and the graph need not wait for it) or when
        # the user asks; the frontier when explain_nonfinite() asks.
        self._nonfinite: _debug.NonFinite | None = None
        self._explanation: NonFiniteExplanation | None = None

    @property
    def found(self) -> bool:
        """Whether torchlens' first non-finite op is known to exist (not asked yet: False)."""
        return self._nonfinite is not None and self._nonfinite.label is not None

    def first_nonfinite(self) -> Any:
        """``Explorer.first_nonfinite``: selects torchlens' first NaN/Inf op; its record, or None."""
        answer = self._answer()
        self._debugging.show_answer(answer.status, answer.label)
        return answer.record

    def explain_nonfinite(self) -> NonFiniteResult:
        """``Explorer.explain_nonfinite``: the producers and carriers marked, the first producer selected."""
        explanation = self._explain()
        producers = list(explanation.producer_labels)
        drawn = set(_debug.drawn_labels(self._index(), [*producers, *explanation.propagated_labels]))
        roles = {label: "propagated" for label in explanation.propagated_labels if label in drawn}
        roles |= {label: "producer" for label in producers if label in drawn}
        hidden = len(producers) + explanation.propagated - len(roles)
        status = explanation.status + (f" ({hidden} of them not drawn in this view)" if hidden else "")
        with self._holding():
            self._debugging.mark(roles)
            self._debugging.show_answer(status, producers[0] if producers else None)
        return NonFiniteResult(
            producers=[record_for_label(self._log, label) for label in producers],
            propagated=explanation.propagated,
            coverage=explanation.coverage,
            status=self._debugging.status,
            producer_labels=producers,
            propagated_labels=list(explanation.propagated_labels),
        )

    def facts(self, label: str) -> NonFiniteFacts | None:
        """The inspector's section for an op that holds non-finite values, once explain_nonfinite()
        has run (None for any other op, and under the public profile)."""
        explanation = self._explanation
        if explanation is None or self._privacy_profile == "public":
            return None
        role: NonFiniteRole
        if label in explanation.producer_labels:
            role = "producer"
        elif label in explanation.propagated_labels:
            role = "propagated"
        else:
            return None
        source = _source_line(record_for_label(self._log, label))
        inputs = input_ranges(self._log, label)
        return NonFiniteFacts(role=role, source=source, inputs=inputs)

    def prefetch(self) -> None:
        """Ask torchlens now (while the browser draws the first graph), unless the profile refuses it."""
        if self._privacy_profile != "public":  # never asked, so never offered (see _answer)
            self._answer()

    def _explain(self) -> NonFiniteExplanation:
        self._refuse_value_question(
            "explain_nonfinite() tells where the capture's NaN or Inf values were born",
            "explore with privacy_profile='local', or ask torchlens yourself: "
            "torchlens.notebook.frontier.nonfinite_frontier(log).",
        )
        if self._explanation is None:
            self._explanation = explain_nonfinite(self._log)
        return self._explanation

    def _answer(self) -> _debug.NonFinite:
        self._refuse_value_question(
            "first_nonfinite() finds the first op whose saved output holds a NaN or an Inf",
            "explore with privacy_profile='local', or ask torchlens yourself: log.find_nan().",
        )
        if self._nonfinite is None:
            self._nonfinite = _debug.first_nonfinite(self._log)
            self._on_known()
        return self._nonfinite

    def _refuse_value_question(self, what: str, remedy: str) -> None:
        if self._privacy_profile == "public":  # where a value is NaN is a fact about the values
            raise refuse_under_public(what, remedy)


def _source_line(record: Any) -> str:
    """``file.py:12`` of the op's call as torchlens recorded it, or ""."""
    site = call_site(record)
    return f"{site['file']}:{site['line']}" if site else ""
