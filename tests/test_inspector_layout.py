"""The inspector layout traits (#11): the inspector's width and fold and maximize are the view's
to set, remembered by the widget (and by save_html), and settable from Python;
js/inspector/inspector-layout.ts keeps the same bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
import torchlens as tl
import traitlets

import torchlens_widgets as tlw
from tests.helpers.models import TinyMLP
from tests.helpers.saved_pages import saved
from tests.helpers.view_requests import Wire
from torchlens_widgets.widgets import base


def test_a_view_sets_the_inspector_width_fold_and_maximize(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log)
    assert (w.inspector_width, w.inspector_collapsed, w.maximized) == (base.INSPECTOR_WIDTH, False, False)
    wire = Wire(w)
    wire.update(inspector_width=420, inspector_collapsed=True, maximized=True)
    assert (w.inspector_width, w.inspector_collapsed, w.maximized) == (420, True, True)
    assert w.notice == ""


def test_a_too_narrow_inspector_from_a_view_is_refused_and_explained(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log)
    Wire(w).update(inspector_width=10)
    assert w.inspector_width == base.INSPECTOR_WIDTH
    assert "inspector_width" in w.notice and str(base.MIN_INSPECTOR_WIDTH) in w.notice


def test_maximize_from_python_and_back(tiny_log: Any) -> None:
    w = tlw.explore(tiny_log)
    assert w.maximize() is w and w.maximized
    w.maximize(False)
    assert not w.maximized
    with pytest.raises(traitlets.TraitError):
        w.inspector_width = 20


def test_the_diff_folds_and_maximizes_too(tiny_log: Any) -> None:
    torch.manual_seed(1)
    d = tlw.diff(tiny_log, tl.trace(TinyMLP(), torch.randn(3, 4)))
    Wire(d).update(inspector_collapsed=True, maximized=True)
    assert d.inspector_collapsed and d.maximized and d.notice == ""


def test_save_html_remembers_the_split_and_the_fold(tiny_log: Any, tmp_path: Path) -> None:
    w = tlw.explore(tiny_log)
    w.inspector_width, w.inspector_collapsed = 400, True
    state = saved(w.save_html(tmp_path / "room.html"))["recording"]["state"]
    assert (state["inspector_width"], state["inspector_collapsed"]) == (400, True)
    assert "maximized" not in state  # a saved page opens in its place, not over the window
