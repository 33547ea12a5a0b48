"""One definition of a signature: an entry function (``explore``, ``diff``) takes its widget class's
parameters and defaults by construction, for type checkers and IDEs (through ``ParamSpec``) and for
``inspect.signature`` / ``help()`` (through ``__signature__``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def parameters_of(cls: Callable[P, R]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Give the decorated function ``cls``'s parameters; the function keeps its name and docstring."""

    def give(function: Callable[..., R]) -> Callable[P, R]:
        signature = inspect.signature(cls)
        function.__signature__ = signature.replace(  # type: ignore[attr-defined]
            return_annotation=getattr(cls, "__name__", signature.return_annotation)
        )
        return function

    return give
