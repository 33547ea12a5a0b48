"""The browser's types of the widgets' synced traits, written from the traits themselves.

``js/view/widget-traits.ts`` is this module's output (``python -m torchlens_widgets._trait_schema``
rewrites it); ``tests/test_trait_schema.py`` fails when the file is not what the traits say. Each
trait's TypeScript type follows from its traitlets type, or from its ``ts`` tag where traitlets cannot
say the shape (a Dict's keys, an Any): ``traitlets.Dict().tag(sync=True, ts="{ line?: string }")``.
A trait every widget has is required; one only some have is optional (``?``), with the widgets named.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anywidget
import traitlets

OUTPUT = Path(__file__).resolve().parent.parent / "js" / "view" / "widget-traits.ts"

HEADER = """\
// Written by `python -m torchlens_widgets._trait_schema` from the widgets' synced traits: do not edit.
// Each trait as the kernel syncs it; one that only some widgets have is optional, with their names.
"""

# traitlets types whose TypeScript type needs nothing more.
PLAIN: dict[type[traitlets.TraitType[Any, Any]], str] = {
    traitlets.Unicode: "string",
    traitlets.Int: "number",
    traitlets.Float: "number",
    traitlets.Bool: "boolean",
}


class UntypedTraitError(TypeError):
    """A synced trait whose shape traitlets does not give and that has no ``ts`` tag."""


def plain(trait: object) -> str | None:
    """The TypeScript type of a text, number or boolean trait; None for any other (or no trait)."""
    return next((typescript for kind, typescript in PLAIN.items() if type(trait) is kind), None)


def shape(trait: object) -> str | None:
    """The TypeScript type traitlets gives of a trait (a plain one, or a list, tuple or dict of them)."""
    if isinstance(trait, traitlets.List):
        item = plain(trait._trait)
        return None if item is None else f"{item}[]"
    if isinstance(trait, traitlets.Tuple):
        items = [plain(each) for each in trait._traits]
        return None if None in items else "[" + ", ".join(str(item) for item in items) + "]"
    if isinstance(trait, traitlets.Dict):
        value = plain(trait._value_trait)
        return None if value is None else f"Record<string, {value}>"
    return plain(trait)


def typescript_type(name: str, trait: traitlets.TraitType[Any, Any]) -> str:
    """The TypeScript type of ``trait`` as the kernel syncs it (``| null`` where it may be None)."""
    declared = trait.metadata.get("ts")
    if declared is not None:
        return str(declared)
    bare = shape(trait)
    if bare is None:
        raise UntypedTraitError(
            f"the synced trait {name!r} ({type(trait).__name__}) has no TypeScript type traitlets can give: "
            f"tag it with one, e.g. .tag(sync=True, ts='{{ line?: string }}')"
        )
    return f"{bare} | null" if trait.allow_none else bare


def synced_traits() -> dict[str, tuple[traitlets.TraitType[Any, Any], list[str]]]:
    """Trait name -> (the trait, the widgets that sync it), in the order the widgets declare them."""
    from torchlens_widgets.widgets import Compare, Diff, Explorer

    anywidget_own = set(anywidget.AnyWidget.class_traits(sync=True))
    traits: dict[str, tuple[traitlets.TraitType[Any, Any], list[str]]] = {}
    for widget in (Explorer, Diff, Compare):
        for name, trait in widget.class_traits(sync=True).items():
            if name not in anywidget_own:
                traits.setdefault(name, (trait, []))[1].append(widget.__name__)
    return traits


def typescript_source() -> str:
    """The text of js/view/widget-traits.ts."""
    traits = synced_traits()
    widgets = max(len(owners) for _, owners in traits.values())
    fields = []
    for name, (trait, owners) in sorted(traits.items()):
        optional = len(owners) < widgets
        comment = f"  /** {', '.join(owners)} only. */\n" if optional else ""
        fields.append(f"{comment}  {name}{'?' if optional else ''}: {typescript_type(name, trait)};")
    names = "".join(f'  "{name}",\n' for name in sorted(traits))
    return (
        HEADER
        + "\nexport interface WidgetTraits {\n"
        + "\n".join(fields)
        + "\n}\n\n"
        + "/** Every trait name, as a value (the protocol's contract test compares it with the kernel's). */"
        + "\n"
        + "export const WIDGET_TRAIT_NAMES = [\n"
        + names
        + "] as const satisfies readonly (keyof WidgetTraits)[];\n"
    )


if __name__ == "__main__":
    OUTPUT.write_text(typescript_source(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT}\n")
