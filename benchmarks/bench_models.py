"""The models the benchmark traces: built from configs with random weights, nothing downloaded.

Imported by the benchmark's notebook kernel (``build(name)``), so each case is traced in the kernel
that shows it, exactly as a user's notebook would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

TOKENS = 16
SYNTHETIC_OPS_PER_BLOCK = 100  # 100 blocks x 100 = 10,000 elementwise ops


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    build: Callable[[], tuple[nn.Module, torch.Tensor]]


def _tokens(vocab: int) -> torch.Tensor:
    return torch.randint(0, vocab, (1, TOKENS))


def gpt2(layers: int = 12, width: int = 768, heads: int = 12) -> tuple[nn.Module, torch.Tensor]:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=layers, n_embd=width, n_head=heads)
    return GPT2LMHeadModel(config).eval(), _tokens(config.vocab_size)


def bert() -> tuple[nn.Module, torch.Tensor]:
    from transformers import BertConfig, BertModel

    config = BertConfig()  # bert-base-uncased's shape: 12 layers, 768 wide
    return BertModel(config).eval(), _tokens(config.vocab_size)


def vit() -> tuple[nn.Module, torch.Tensor]:
    from transformers import ViTConfig, ViTForImageClassification

    config = ViTConfig()  # vit-base-patch16-224's shape: 12 layers, 768 wide, 197 tokens
    return ViTForImageClassification(config).eval(), torch.randn(1, 3, config.image_size, config.image_size)


class _Block(nn.Module):
    """``SYNTHETIC_OPS_PER_BLOCK`` cheap elementwise ops in a chain."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i in range(SYNTHETIC_OPS_PER_BLOCK // 2):
            x = x * 0.999
            x = x + i * 1e-3
        return x


class Synthetic(nn.Module):
    """``blocks`` x 100 elementwise ops, one module call per block (a flat 10k-node layer suits no viewer)."""

    def __init__(self, blocks: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(_Block() for _ in range(blocks))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def synthetic(blocks: int = 100) -> tuple[nn.Module, torch.Tensor]:
    return Synthetic(blocks).eval(), torch.randn(1, 8)


CASES = {
    case.name: case
    for case in (
        Case("gpt2", "GPT-2 small (12 layers, 768 wide)", gpt2),
        Case("bert", "BERT base (12 layers, 768 wide)", bert),
        Case("vit", "ViT base (12 layers, 224x224)", vit),
        Case("gpt2-48", "GPT-2, 48 layers (64 wide)", lambda: gpt2(layers=48, width=64, heads=2)),
        Case("synthetic-10k", "synthetic 10,000-op trace (100 x 100)", synthetic),
        # Opt-in (--cases synthetic-50k): its trace alone takes about 130 s on two cores.
        Case("synthetic-50k", "synthetic 50,000-op trace (500 x 100)", lambda: synthetic(500)),
    )
}

#: The cases a plain run measures (the 50,000-op trace only when asked for).
DEFAULT_CASES = tuple(name for name in CASES if name != "synthetic-50k")


def build(name: str) -> tuple[nn.Module, torch.Tensor]:
    """The model and its input for case ``name``, seeded so every run traces the same graph."""
    torch.manual_seed(0)
    return CASES[name].build()
