"""The browser's copy of the synced traits (``WidgetTraits`` in js/view/traits.ts) has each trait's type as
the kernel syncs it: a text trait is a string there, a number a number, a list an array, a dict an object,
and a trait that may be None says so (its names are checked by tests/test_protocol_fixtures.py)."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import anywidget
import pytest
import traitlets

import torchlens_widgets as tlw

TRAITS_TS = pathlib.Path(__file__).resolve().parent.parent / "js" / "view" / "traits.ts"

# traitlets class -> a pattern the TypeScript type (without " | null") must match.
TS_TYPES: dict[type[traitlets.TraitType[Any, Any]], str] = {
    traitlets.Unicode: r"string",
    traitlets.Int: r"number",
    traitlets.Float: r"number",
    traitlets.Bool: r"boolean",
    traitlets.List: r"\w+\[\]",
    traitlets.Tuple: r"\[[^\]]*\]",
    traitlets.Dict: r"\{.*\}|Record<.*>",
}


def browser_types() -> dict[str, str]:
    """Trait name -> its TypeScript type, read from the WidgetTraits interface (comments skipped)."""
    source = TRAITS_TS.read_text(encoding="utf-8")
    body = source.split("export interface WidgetTraits {", 1)[1].split("\n}\n", 1)[0]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return {
        match["name"]: match["type"].strip()
        for match in re.finditer(r"^\s*(?P<name>\w+)\??:\s*(?P<type>.+);\s*$", body, flags=re.M)
    }


def synced() -> dict[str, traitlets.TraitType[Any, Any]]:
    own = set(anywidget.AnyWidget.class_traits(sync=True))
    traits: dict[str, traitlets.TraitType[Any, Any]] = {}
    for cls in (tlw.Explorer, tlw.Diff, tlw.Compare):
        for name, trait in cls.class_traits(sync=True).items():
            if name not in own:
                traits.setdefault(name, trait)
    return traits


@pytest.mark.parametrize("name", sorted(synced()))
def test_the_browser_types_each_trait_as_the_kernel_syncs_it(name: str) -> None:
    trait = synced()[name]
    declared = browser_types()
    assert name in declared, f"{name} is synced but not in WidgetTraits (js/view/traits.ts)"
    ts_type = declared[name]
    if trait.allow_none and type(trait) is not traitlets.Any:
        assert ts_type.endswith("| null"), f"{name} may be None in the kernel: type it '{ts_type} | null'"
    pattern = TS_TYPES.get(type(trait))
    if pattern is None:  # traitlets.Any: validated by its own observer, typed by what it holds
        return
    bare = ts_type.removesuffix("| null").strip()
    kind = type(trait).__name__
    assert re.fullmatch(pattern, bare), f"{name} is a {kind} in the kernel, '{ts_type}' in the page"


def test_the_reader_of_the_interface_reads_every_field() -> None:
    # The parse above would pass vacuously on a file it misread: it finds the interface's fields.
    assert {"viewer", "_colour_rev", "selected_labels", "timeline"} <= browser_types().keys()
    assert browser_types()["timeline"] == "string | null"
