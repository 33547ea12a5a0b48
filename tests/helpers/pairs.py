"""Pairs of captures to compare (tlw.diff, explore(baseline=...)): real architectures with random weights
(nothing downloaded), traced alike, and a copy with one layer perturbed."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import torch
import torchlens as tl
import transformers

from tests.helpers.models import TinyMLP, TwoPass


def bert(num_hidden_layers: int = 2, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        num_hidden_layers=num_hidden_layers,
        hidden_size=64,
        num_attention_heads=2,
        intermediate_size=128,
        vocab_size=1000,
    )
    return transformers.BertModel(config).eval()


def gpt2_tiny(n_layer: int = 2, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    config = transformers.GPT2Config(n_layer=n_layer, n_embd=64, n_head=2, vocab_size=1000, n_positions=64)
    return transformers.GPT2LMHeadModel(config).eval()


TOKENS = torch.randint(0, 1000, (1, 8), generator=torch.Generator().manual_seed(1))
X_TINY = torch.randn(3, 4, generator=torch.Generator().manual_seed(2))

BERT_LAYER = "encoder.layer.1.intermediate.dense"
GPT2_LAYER = "transformer.h.1.mlp.c_fc"  # a Conv1D (addmm) in GPT-2; perturbed the same way


def trace(model: torch.nn.Module, **capture: Any) -> Any:
    options = {"capture": tl.options.CaptureOptions(**capture)} if capture else {}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if isinstance(model, (TinyMLP, TwoPass)):
            return tl.trace(model, X_TINY, **options)
        return tl.trace(model, input_kwargs={"input_ids": TOKENS}, **options)


def perturbed(model: torch.nn.Module, address: str) -> torch.nn.Module:
    """A deep copy with noise added to one Linear's weight."""
    other = copy.deepcopy(model)
    linear = other.get_submodule(address)
    assert isinstance(linear.weight, torch.Tensor)
    with torch.no_grad():
        linear.weight.add_(
            0.05 * torch.randn(linear.weight.shape, generator=torch.Generator().manual_seed(3))
        )
    return other


def identical_pair(model: torch.nn.Module) -> tuple[Any, Any]:
    """Two captures of the same weights (a deep copy traced second)."""
    return trace(model), trace(copy.deepcopy(model))


def tuned_tiny_mlp_pair() -> tuple[Any, Any]:
    """TinyMLP and a copy whose last layer's weights moved by 0.5, on one input."""
    torch.manual_seed(0)
    model, x = TinyMLP(), torch.randn(3, 4)
    tuned = copy.deepcopy(model)
    with torch.no_grad():
        tuned.l2.weight.add_(0.5)
    return tl.trace(model, x), tl.trace(tuned, x)
