"""The browser's types of the synced traits (js/view/widget-traits.ts) are written from the Python traits
(torchlens_widgets/_trait_schema.py): the committed file is what the traits say, and a trait whose shape
traitlets cannot give must say it."""

from __future__ import annotations

import pytest
import traitlets

from torchlens_widgets import _trait_schema
from torchlens_widgets._trait_schema import UntypedTraitError, typescript_source, typescript_type


def test_the_committed_browser_types_are_what_the_traits_say() -> None:
    committed = _trait_schema.OUTPUT.read_text(encoding="utf-8")
    assert committed == typescript_source(), (
        "js/view/widget-traits.ts is out of date with the widgets' traits: "
        "run `python -m torchlens_widgets._trait_schema` and commit the file"
    )


@pytest.mark.parametrize(
    ("trait", "expected"),
    [
        (traitlets.Unicode(""), "string"),
        (traitlets.Unicode(None, allow_none=True), "string | null"),
        (traitlets.Int(0), "number"),
        (traitlets.Bool(False), "boolean"),
        (traitlets.List(traitlets.Unicode()), "string[]"),
        (traitlets.Tuple(traitlets.Unicode(), traitlets.Int()), "[string, number]"),
        (traitlets.Dict(value_trait=traitlets.Unicode()), "Record<string, string>"),
        (traitlets.Dict().tag(ts="{ line?: string }"), "{ line?: string }"),
    ],
)
def test_each_traitlets_type_has_its_typescript_type(trait: traitlets.TraitType, expected: str) -> None:
    assert typescript_type("name", trait) == expected


@pytest.mark.parametrize("trait", [traitlets.Dict(), traitlets.Any(1), traitlets.List(traitlets.Dict())])
def test_a_trait_of_no_given_shape_must_be_tagged(trait: traitlets.TraitType) -> None:
    with pytest.raises(UntypedTraitError, match="tag it with one"):
        typescript_type("name", trait)


def test_widgets_that_lack_a_trait_make_it_optional() -> None:
    source = typescript_source()
    assert "  viewer: string;" in source  # every widget
    assert "  /** Diff only. */\n  selected_labels?: [string, string];" in source
    assert "  timeline?: string | null;" in source
