"""The debugging answers on a widget's graph, whichever widget holds them: highlights (plain, or marked
in roles), an answer's status line after selecting its op, a lineage's status, and the toolbar's and
the inspector's buttons, which ask the same methods a user calls from Python, so both say the same."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .._errors import DebugQuestionError, NodeNotFoundError
from .._protocol import DebugParams, DebugResult, Reply
from .base import ViewerWidget

# What every widget with a graph answers; the others are offered per widget (_debug_questions).
LINEAGE = "lineage"
# The highlight roles' order of precedence where two labels share one drawn node (a Netron module box).
ROLE_ORDER = ("propagated", "ranked", "producer")


class Debugging:
    """A widget's debug answers shown on its traits (``highlighted``, ``_highlight_nodes``,
    ``_highlight_roles``, ``debug_status``; ViewerWidget declares them).

    Given explicitly: the widget whose traits it sets, ``select`` (select an op by label: NodeNotFoundError
    where the view does not draw it), ``node_ids`` (labels -> the node ids that mark them in what the
    view draws now), ``selected_label`` (the label an answer selected, "" for none), ``lineage``
    (direction -> labels, the lineage button), the ``answers`` the buttons may ask besides lineage (name
    -> the widget's method, called with no arguments) and the remedy for a question it does not answer.
    """

    def __init__(
        self,
        widget: ViewerWidget,
        *,
        select: Callable[[str], object],
        node_ids: Callable[[list[str]], list[str]],
        selected_label: Callable[[], str],
        lineage: Callable[[str], list[str]],
        answers: Mapping[str, Callable[[], object]],
        unanswered_remedy: str = "ask one of those.",
    ) -> None:
        self._widget = widget
        self._select = select
        self._node_ids = node_ids
        self._selected_label = selected_label
        self._lineage = lineage
        self._answers = dict(answers)
        self._unanswered_remedy = unanswered_remedy
        # Label -> role of the highlight an answer marked in roles (mark); {} for a plain highlight.
        self._label_roles: dict[str, str] = {}

    @property
    def status(self) -> str:
        """The status line of the last answer."""
        return str(self._widget.debug_status)

    def answer(self, params: DebugParams) -> Reply[DebugResult]:
        """A toolbar or inspector button: the same work as the Python call, and its status line."""
        question = str(params.get("question"))
        if question == LINEAGE:
            labels = self._lineage(str(params.get("direction", "upstream")))
        elif question in self._answers:
            found = self._answers[question]()
            label = self._selected_label()
            labels = [label] if found is not None and label else []
        else:
            asked = ", ".join(map(repr, (*self._answers, LINEAGE)))
            raise DebugQuestionError(
                f"Unknown debug question {question!r}: {type(self._widget).__name__} answers {asked}. "
                f"Remedy: {self._unanswered_remedy}"
            )
        return DebugResult(status=self.status, labels=labels), []

    def show_answer(self, status: str, label: str | None) -> None:
        """An answer's status line, after selecting its op (``label``) when there is one."""
        suffix = self.select_answer(label) if label is not None else ""
        self._widget.set_trait("debug_status", status + suffix)

    def say(self, status: str) -> None:
        """A status line that selects nothing."""
        self._widget.set_trait("debug_status", status)

    def select_answer(self, label: str) -> str:
        """Select an answer's op; the status suffix when this view does not draw it."""
        try:
            self._select(label)
        except NodeNotFoundError:
            return " (not drawn in this view, so nothing is selected)"
        return ""

    def mark(self, roles: dict[str, str]) -> None:
        """Highlight ``roles``' labels (label -> role), each drawn in its role's style; a later plain
        highlight (highlight(), lineage()) drops the roles."""
        self._label_roles = dict(roles)
        with self._widget.hold_trait_notifications():
            self._widget.highlighted = list(roles)
            self.publish_highlight()

    def publish_highlight(self) -> None:
        """The highlighted labels as the current view's node ids, and the roles of those an answer
        marked in one (a plain highlight has none). The widget calls it when ``highlighted`` or what
        the view draws changed."""
        widget = self._widget
        if set(widget.highlighted) != set(self._label_roles):
            self._label_roles = {}
        widget._highlight_nodes = self._node_ids(list(widget.highlighted))
        ids: dict[str, str] = {}
        for role in ROLE_ORDER:  # a producer's box stays a producer's where a carrier shares it
            marked = [label for label, role_of_label in self._label_roles.items() if role_of_label == role]
            ids |= dict.fromkeys(self._node_ids(marked), role)
        widget._highlight_roles = ids

    def show_lineage(self, direction: str, labels: list[str], drawn: list[str], where: str = "") -> list[str]:
        """Highlight the drawn part of a lineage and say what it holds; returns all of ``labels``."""
        self._widget.highlighted = drawn
        hidden = len(labels) - len(drawn)
        left_out = f"; {hidden} not drawn in this view" if hidden else ""
        self.say(f"{direction.capitalize()} of {labels[0]}{where}: {len(labels)} ops{left_out}.")
        return labels
