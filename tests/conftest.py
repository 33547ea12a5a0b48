from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
import torchlens as tl

sys.path.insert(0, str(Path(__file__).parent))

from models import TinyMLP, TwoPass, gpt2


@pytest.fixture(scope="session")
def tiny_log():
    torch.manual_seed(0)
    return tl.trace(TinyMLP(), torch.randn(3, 4))


@pytest.fixture(scope="session")
def two_pass_log():
    torch.manual_seed(0)
    return tl.trace(TwoPass(), torch.randn(2, 4))


@pytest.fixture(scope="session")
def gpt2_log():
    model, tokens = gpt2()
    with torch.no_grad():
        return tl.trace(model, tokens)
