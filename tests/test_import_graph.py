"""The package's modules import each other without a circle (type-only imports included): each part
can be read, and tested, from the bottom up."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "torchlens_widgets"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports (``from .x import y`` names module x.y when it is one)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            target = f"{base}.{node.module}" if node.module else base
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in modules else target)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found.update(n for n in names if n in modules)
    return found - {name}


def test_no_module_imports_itself_through_others() -> None:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    # A package's __init__ gathers its modules for users; the modules never import it back.
    graph = {
        name: {m for m in imported_modules(path, set(paths)) if paths[m].name != "__init__.py"}
        for name, path in paths.items()
    }
    cycles = []

    def visit(name: str, trail: list[str]) -> None:
        for target in graph[name]:
            if target in trail:
                cycles.append([*trail[trail.index(target) :], target])
            elif target not in done:
                visit(target, [*trail, target])
        done.add(name)

    done: set[str] = set()
    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    assert cycles == [], "\n".join(" -> ".join(cycle) for cycle in cycles)
