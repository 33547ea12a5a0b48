"""The debugging answers on the graph, as both widgets give them: highlights, torchlens' lineage of a
node, its first divergence and (one capture) its first non-finite op. The toolbar's and the inspector's
buttons ask the same methods a user calls from Python (``_answer_debug``), so both say the same."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import traitlets

from .._errors import DebugQuestionError, NodeNotFoundError
from .._protocol import DebugParams, DebugResult, Reply
from .base import ViewerWidget

# What every widget with a graph answers; the others are offered per widget (_debug_questions).
LINEAGE = "lineage"
# The highlight roles' order of precedence where two labels share one drawn node (a Netron module box).
ROLE_ORDER = ("propagated", "ranked", "producer")


class DebuggingWidget(ViewerWidget):
    """A view with debugging answers. Subclasses give the answers (``first_divergence``, ``lineage``, and
    ``first_nonfinite`` where one capture is shown) and name them in ``_answers``."""

    # The torchlens labels of the highlighted nodes (highlight(), lineage(), a partial capture's failing
    # op); set by the kernel only. _highlight_nodes: their node ids in the current viewer and granularity.
    highlighted = traitlets.List(traitlets.Unicode()).tag(sync=True)
    _highlight_nodes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # Node id -> role (HIGHLIGHT_ROLE_COLOURS) of the highlighted nodes an answer tells apart
    # (explain_nonfinite: producers and the ops that carry their values); {} for a plain highlight.
    _highlight_roles = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
    # The status line of the last debug answer (first_divergence, first_nonfinite, lineage, a crash).
    debug_status = traitlets.Unicode("", read_only=True).tag(sync=True)

    # The questions this widget answers besides lineage (each a method of that name, called with no
    # arguments), and the remedy for one it does not.
    _answers: tuple[str, ...] = ("first_divergence",)
    # Label -> role of the highlight an answer marked in roles (_mark); {} for a plain highlight.
    _label_roles: Mapping[str, str] = MappingProxyType({})
    _unanswered_remedy = "ask one of those."

    def first_divergence(self, rtol: float = 1e-5, atol: float = 1e-8) -> tuple[Any, Any] | None:
        raise NotImplementedError

    def lineage(self, name: str | None = None, direction: str = "upstream") -> list[str]:
        raise NotImplementedError

    def _answer_selected_label(self) -> str:
        """The label of what an answer selected ("" when it selected nothing)."""
        raise NotImplementedError

    def _answer_debug(self, params: DebugParams) -> Reply[DebugResult]:
        """A toolbar or inspector button: the same work as the Python call, and its status line."""
        question = str(params.get("question"))
        if question == LINEAGE:
            labels = self.lineage(direction=str(params.get("direction", "upstream")))
        elif question in self._answers:
            found = getattr(self, question)()  # each answer is the method of that name
            label = self._answer_selected_label()
            labels = [label] if found is not None and label else []
        else:
            asked = ", ".join(map(repr, (*self._answers, LINEAGE)))
            raise DebugQuestionError(
                f"Unknown debug question {question!r}: {type(self).__name__} answers {asked}. "
                f"Remedy: {self._unanswered_remedy}"
            )
        return DebugResult(status=self.debug_status, labels=labels), []

    def _show_answer(self, status: str, label: str | None) -> None:
        """An answer's status line, after selecting its op (``label``) when there is one."""
        self.set_trait("debug_status", status + (self._select_answer(label) if label is not None else ""))

    def _select_answer(self, label: str) -> str:
        """Select an answer's op; the status suffix when this view does not draw it."""
        try:
            self.select(label)
        except NodeNotFoundError:
            return " (not drawn in this view, so nothing is selected)"
        return ""

    def select(self, name: str) -> Any:
        raise NotImplementedError

    def _mark(self, roles: dict[str, str]) -> None:
        """Highlight ``roles``' labels (label -> role), each drawn in its role's style; a later plain
        highlight (highlight(), lineage()) drops the roles."""
        self._label_roles = dict(roles)
        with self.hold_trait_notifications():
            self.highlighted = list(roles)
            self._publish_highlight()

    def _publish_highlight(self) -> None:
        """The highlighted labels as the current view's node ids, and the roles of those an answer
        marked in one (a plain highlight has none)."""
        if set(self.highlighted) != set(self._label_roles):
            self._label_roles = {}
        self._highlight_nodes = self._node_ids(self.highlighted)
        ids: dict[str, str] = {}
        for role in ROLE_ORDER:  # a producer's box stays a producer's where a carrier shares it
            marked = [label for label, role_of_label in self._label_roles.items() if role_of_label == role]
            ids |= dict.fromkeys(self._node_ids(marked), role)
        self._highlight_roles = ids

    def _node_ids(self, labels: list[str]) -> list[str]:
        """The current view's node ids that mark ``labels``."""
        raise NotImplementedError

    def _show_lineage(
        self, direction: str, labels: list[str], drawn: list[str], where: str = ""
    ) -> list[str]:
        """Highlight the drawn part of a lineage and say what it holds; returns all of ``labels``."""
        self.highlighted = drawn
        hidden = len(labels) - len(drawn)
        left_out = f"; {hidden} not drawn in this view" if hidden else ""
        self.set_trait(
            "debug_status", f"{direction.capitalize()} of {labels[0]}{where}: {len(labels)} ops{left_out}."
        )
        return labels
