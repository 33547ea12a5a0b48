"""Real models for the tests: small hand-written ones and transformers architectures built from
configs with random weights (nothing is downloaded)."""

from __future__ import annotations

import torch
from torch import nn


class TinyMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.l2 = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(self.act(self.l1(x)))


class TwoPass(nn.Module):
    """Runs the same Linear twice, so its ops have passes :1 and :2."""

    def __init__(self) -> None:
        super().__init__()
        self.shared = nn.Linear(4, 4)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.shared(self.act(self.shared(x))))


def gpt2(n_layer: int = 12) -> tuple[nn.Module, torch.Tensor]:
    """GPT-2 small's architecture (random weights) and a 16-token input."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=n_layer, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
    return GPT2LMHeadModel(config).eval(), torch.randint(0, 50257, (1, 16))


def gpt2_48() -> tuple[nn.Module, torch.Tensor]:
    """GPT-2 with 48 blocks, 64 wide (random weights): ~2,300 ops, the big graph of the e2e tests."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=48, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
    return GPT2LMHeadModel(config).eval(), torch.randint(0, 1000, (1, 16))


def hostile_names() -> nn.Module:
    """Module and class names with markup, quotes, '%', '/' and control bytes."""
    evil = type("<img src=x onerror=alert(1)>", (nn.Module,), {"forward": lambda self, x: x * 2})
    model = nn.Sequential()
    model.add_module('<script>alert("x")</script>', nn.Linear(4, 4))
    model.add_module('it\'s %s / \x01 "q" </script><!--', evil())
    return model


class Chain(nn.Module):
    """``2 * steps`` elementwise ops in one flat layer: the shape of a very long, structureless trace."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(self.steps):
            x = x * 1.0001 + 0.001
        return x


class Square(nn.Module):
    """A 2-D activation with NaN, +Inf and -Inf in it (protocol fixtures: a heatmap with its mask)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log(x) / x


class Nest(nn.Module):
    """A module of two ops: Netron draws it as a module-call box (protocol fixtures)."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.inner(x))
