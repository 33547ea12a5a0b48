"""Small readers of torchlens record attributes, shared by the numerics modules.

They only read what a record already holds (labels, module addresses, saved outputs); every
analysis itself is torchlens' (the frontier, the precision table, the dtype audit).
"""

from __future__ import annotations

from typing import Any

import torch


def qualify(label: str) -> str:
    """A pass-qualified label: torchlens' edges spell single-pass parents bare, meaning pass 1."""
    return label if ":" in label else f"{label}:1"


def unique(labels: Any) -> tuple[str, ...]:
    """Pass-qualified labels, first occurrence kept (an op may take the same parent twice)."""
    seen: dict[str, None] = {}
    for label in labels or ():
        seen.setdefault(qualify(str(label)), None)
    return tuple(seen)


def record(trace: Any, label: str) -> Any:
    """trace[label] for a pass-qualified label (a bare label means pass 1, as in the edges)."""
    return trace[qualify(label)]


def module_address(op: Any) -> str | None:
    """The module an op ran in: its atomic module, else the innermost module call's address."""
    atomic = getattr(op, "atomic_module_address", None)
    if isinstance(atomic, str) and atomic:
        return atomic
    module = getattr(op, "module", None)
    if isinstance(module, tuple) and module:
        module = module[0]
    if isinstance(module, str) and module:
        return module.rsplit(":", 1)[0]
    return None


def saved_tensor(op: Any) -> torch.Tensor | None:
    """The op's saved output tensor, or None when torchlens kept none (or it is not a tensor)."""
    if not bool(getattr(op, "has_saved_activation", False)):
        return None
    try:
        out = op.out
    except (ValueError, AttributeError, RuntimeError):
        return None
    return out if isinstance(out, torch.Tensor) else None
