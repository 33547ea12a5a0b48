"""Real models for the tests: small hand-written ones and transformers architectures built from
configs with random weights (nothing is downloaded)."""

from __future__ import annotations

import copy

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


def small_gpt2() -> tuple[nn.Module, torch.Tensor]:
    """GPT-2's architecture, 2 blocks 64 wide (random weights), and a 12-token input."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(
        n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64, bos_token_id=0, eos_token_id=0
    )
    return GPT2LMHeadModel(config).eval(), torch.randint(0, 1000, (1, 12))


def with_inf(model: nn.Module) -> nn.Module:
    """A copy whose first block's attention projection has one infinite weight."""
    broken = copy.deepcopy(model)
    with torch.no_grad():
        broken.transformer.h[0].attn.c_proj.weight[0, 0] = float("inf")
    return broken


class CrashAfterGPT2(nn.Module):
    """GPT-2, then a head whose input width does not match: the forward raises after GPT-2 ran."""

    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body
        self.head = nn.Linear(65, 2)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = self.body(tokens).last_hidden_state
        return self.head(hidden)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.lin(x)) + x


class SharedBlock(nn.Module):
    """One multi-op module called twice: two module-call boxes, "block:1" and "block:2"."""

    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(self.block(x)))


class Cancel(nn.Module):
    """(h + c) - c in bf16 loses h entirely; exp then amplifies the loss it inherits."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(x)  # |h| < 1: below half of bf16's spacing (4) at 1e3
        d = (h + 1e3) - 1e3  # native 0 where the reference keeps h: error created here
        return torch.exp(d * 3)  # rel error up to e^3 - 1 (~19), carried and amplified
