from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torchlens as tl

from tests.helpers.models import TinyMLP, TwoPass, gpt2
from tests.helpers.pairs import (
    BERT_LAYER,
    bert,
    gpt2_tiny,
    identical_pair,
    perturbed,
    trace,
    tuned_tiny_mlp_pair,
)
from torchlens_widgets import _export_cache

# The longest test files, longest first (seconds each in the test command on 2 workers, from its
# per-test times with warm kernels, 2026-12-07: 193, 135, 112, 110, 72, 68, 68, 66, 65, 56, 53, 49, 40,
# 40, 39, 38, 38, 36, 35, 35, 33, 32, 27, 27, 25): the two workers take files in this order
# (scripts/test.sh keeps it with --no-loadscope-reorder), so no worker is left alone with a long file at
# the end while the other idles.
LONGEST_FIRST = (
    "test_e2e_many_widgets.py",
    "test_e2e_big_graphs.py",
    "test_e2e_saved_notebook.py",
    "test_e2e_offline_html.py",
    "test_e2e_gateway.py",
    "test_e2e_debug.py",
    "test_e2e_overlays_inspect.py",
    "test_e2e_diff.py",
    "test_e2e_transport.py",
    "test_e2e_firefox.py",
    "test_e2e_vscode.py",
    "test_e2e_model_explorer.py",
    "test_e2e_compare.py",
    "test_offline.py",
    "test_e2e_layout.py",
    "test_e2e_memory.py",
    "test_e2e_numerics.py",
    "test_e2e_voila.py",
    "test_e2e_frame_messages.py",
    "test_e2e_reader_path.py",
    "test_e2e_refusals.py",
    "test_e2e_kernel_lifecycle.py",
    "test_e2e_notebook7.py",
    "test_e2e_netron.py",
    "test_e2e_marimo.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = Path(str(item.fspath)).name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def _no_kept_exports() -> None:
    """Each test starts as a new kernel does: no export of an earlier test's trace is kept."""
    _export_cache.clear()


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


# Pairs of captures that test_diff.py, test_baseline.py and test_diff_widget.py compare: traced once a run.


@pytest.fixture(scope="session")
def bert_pair():
    return identical_pair(bert())


@pytest.fixture(scope="session")
def gpt2_pair():
    return identical_pair(gpt2_tiny())


@pytest.fixture(scope="session")
def bert_perturbed():
    """BERT, a capture of it with BERT_LAYER perturbed (the subject), and one of it (the reference)."""
    model = bert()
    return model, trace(perturbed(model, BERT_LAYER)), trace(model)


@pytest.fixture(scope="session")
def tiny_mlp_pair():
    return tuned_tiny_mlp_pair()
