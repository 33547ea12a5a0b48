"""explore() and diff() are their widgets' constructors under a function's name: one definition of
each signature and its defaults (the widget's ``__init__``), seen by ``inspect`` and by type checkers."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import torchlens_widgets as tlw
from torchlens_widgets.viewers.netron import DEFAULT_DEPTH, DEFAULT_SHOW_BUFFERS


@pytest.mark.parametrize(("entry", "cls"), [(tlw.explore, tlw.Explorer), (tlw.diff, tlw.Diff)])
def test_an_entry_has_its_widgets_signature(entry: Any, cls: type) -> None:
    assert inspect.signature(entry).parameters == inspect.signature(cls).parameters
    assert inspect.signature(entry).return_annotation == cls.__name__
    assert entry.__name__ in ("explore", "diff") and "Parameters" in (tlw.explore.__doc__ or "")


def test_explores_keywords_and_defaults() -> None:
    parameters = inspect.signature(tlw.explore).parameters
    defaults = {name: p.default for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY}
    assert defaults == {
        "viewer": "model-explorer",
        "granularity": "module",
        "overlay": "",
        "height": 640,
        "privacy_profile": "local",
        "baseline": None,
        "depth": DEFAULT_DEPTH,
        "show_buffers": DEFAULT_SHOW_BUFFERS,
        "timeline": None,
    }
    assert next(iter(parameters)) == "log"


def test_explore_makes_an_explorer(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log, viewer="netron", height=300)
    assert type(w).__name__ == "Explorer" and (w.viewer, w.height, w.log) == ("netron", 300, tiny_log)
    with pytest.raises(TypeError):
        tlw.explore(tiny_log, colour="red")  # type: ignore[call-arg]
