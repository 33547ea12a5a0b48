"""An explorer's answers about non-finite values: torchlens' first NaN/Inf op, and where a NaN was born
apart from the ops it only spread into (torchlens' frontier), marked on the graph in two styles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import _debug
from .._privacy import refuse_under_public
from .._protocol import NonFiniteFacts, NonFiniteRole
from .._trace import record_for_label
from ..inspector.facts import call_site
from ..numerics import NonFiniteExplanation, explain_nonfinite, input_ranges
from ..viewers import ViewerSource
from .overlaying import OverlayingWidget


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


class NonFiniteWidget(OverlayingWidget):
    """The non-finite answers of a widget that shows one capture (Explorer)."""

    _log: Any
    _source: ViewerSource
    _privacy_profile: str
    _nonfinite: _debug.NonFinite | None = None
    _explanation: NonFiniteExplanation | None = None

    def first_nonfinite(self) -> Any:
        """torchlens' first op whose saved output holds a NaN or an Inf (``log.find_nan()``, the op
        behind ``log.first_nonfinite()``): selects and centres it and returns its record, or None."""
        answer = self._nonfinite_answer()
        self._show_answer(answer.status, answer.label)
        return answer.record

    def explain_nonfinite(self) -> NonFiniteResult:
        """Where the capture's non-finite values were born, apart from where they only spread.

        torchlens' frontier (``torchlens.notebook.frontier.nonfinite_frontier``) names the ops that
        produced them (their inputs were finite) and the ops that carry them. The producers are
        highlighted filled in magenta, the carriers boxed in purple; the first producer is selected
        and centred, and the inspector shows its inputs' ranges against their dtype's limits and
        its source line. ``w.debug_status`` says what was found and torchlens' coverage.
        """
        explanation = self._nonfinite_explanation()
        producers = list(explanation.producer_labels)
        drawn = set(_debug.drawn_labels(self._source.index, [*producers, *explanation.propagated_labels]))
        roles = {label: "propagated" for label in explanation.propagated_labels if label in drawn}
        roles |= {label: "producer" for label in producers if label in drawn}
        hidden = len(producers) + explanation.propagated - len(roles)
        status = explanation.status + (f" ({hidden} of them not drawn in this view)" if hidden else "")
        with self.hold_trait_notifications():
            self._mark(roles)
            self._show_answer(status, producers[0] if producers else None)
        return NonFiniteResult(
            producers=[record_for_label(self._log, label) for label in producers],
            propagated=explanation.propagated,
            coverage=explanation.coverage,
            status=self.debug_status,
            producer_labels=producers,
            propagated_labels=list(explanation.propagated_labels),
        )

    def _nonfinite_facts(self, label: str) -> NonFiniteFacts | None:
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
        inputs = [row.as_json() for row in input_ranges(self._log, label)]
        return NonFiniteFacts(role=role, source=source, inputs=inputs)

    def _nonfinite_explanation(self) -> NonFiniteExplanation:
        self._refuse_value_question(
            "explain_nonfinite() tells where the capture's NaN or Inf values were born",
            "explore with privacy_profile='local', or ask torchlens yourself: "
            "torchlens.notebook.frontier.nonfinite_frontier(log).",
        )
        if self._explanation is None:
            self._explanation = explain_nonfinite(self._log)
        return self._explanation

    def _nonfinite_answer(self) -> _debug.NonFinite:
        self._refuse_value_question(
            "first_nonfinite() finds the first op whose saved output holds a NaN or an Inf",
            "explore with privacy_profile='local', or ask torchlens yourself: log.find_nan().",
        )
        if self._nonfinite is None:
            self._nonfinite = _debug.first_nonfinite(self._log)
            self._refresh_questions()  # the toolbar offers its buttons once the answer is known
        return self._nonfinite

    def _refuse_value_question(self, what: str, remedy: str) -> None:
        if self._privacy_profile == "public":  # where a value is NaN is a fact about the values
            raise refuse_under_public(what, remedy)

    def _after_graph_reply(self) -> None:
        if self._privacy_profile != "public":  # never asked, so never offered (see _nonfinite_answer)
            self._nonfinite_answer()

    def _refresh_questions(self) -> None:
        questions = ["first_divergence"] if self.baseline is not None else []
        if self._nonfinite is not None and self._nonfinite.label is not None:
            questions += ["first_nonfinite", "explain_nonfinite"]
        self._debug_questions = questions


def _source_line(record: Any) -> str:
    """``file.py:12`` of the op's call as torchlens recorded it, or ""."""
    site = call_site(record)
    return f"{site['file']}:{site['line']}" if site else ""
