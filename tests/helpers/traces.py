"""Traces the tests take with torchlens: a plain one, and the exception of a capture that fails."""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torchlens as tl
from torch import nn


def trace(model: nn.Module, tokens: torch.Tensor, **options: Any) -> Any:
    with torch.no_grad():
        return tl.trace(model, tokens, **options)


def failed_capture(model: nn.Module, tokens: torch.Tensor, **options: Any) -> BaseException:
    with pytest.raises(Exception) as failed:
        trace(model, tokens, **options)
    return failed.value
