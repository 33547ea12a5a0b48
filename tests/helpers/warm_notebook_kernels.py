"""A pytest plugin (scripts/test.sh loads it with ``-p tests.helpers.warm_notebook_kernels``): the example
notebooks' kernels (``--nbmake``) start warm, forked as the e2e tests' JupyterLab kernels are
(warm_kernels.py). Loaded or not, the notebooks run the same cells in a real ipykernel; a plain kernel's
own imports are run by the Notebook 7, Voila and gateway tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers.warm_kernels import WarmKernels

STARTED = pytest.StashKey[WarmKernels]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a worker's first notebook: the zygote, and the kernelspec nbmake's kernels are found by."""
    stash = item.config.stash
    if item.path.suffix != ".ipynb" or STARTED in stash:
        return
    kernels = WarmKernels(Path(tempfile.mkdtemp(prefix="tlw-warm-kernels-"))).start()
    stash[STARTED] = kernels
    os.environ.update(kernels.env())


def pytest_unconfigure(config: pytest.Config) -> None:
    kernels = config.stash.get(STARTED, None)
    if kernels is not None:
        kernels.stop()
        shutil.rmtree(kernels.folder, ignore_errors=True)
