"""Kernels that start warm for the e2e tests' JupyterLab: each a real ipykernel, forked from a process that
already imported torch and transformers' GPT-2 and BERT (torchlens is imported by each kernel).

Why: the suite opens about forty notebooks, and each kernel spent about 7 s of CPU importing torch and
transformers before its first cell did anything (of 10 s for a whole kernel on a 2-core machine). Forked,
a kernel starts with them in sys.modules; the cells still run every import statement they have, the
server is JupyterLab unchanged (only the kernelspec's command differs), and the kernel is ipykernel with
its own process, ports, signals, interrupts and restarts. The example notebooks' kernels (``--nbmake``) start
warm too (warm_notebook_kernels.py). What a kernel's own imports do is still run by the Notebook 7,
Voila, gateway and marimo tests, which start plain kernels.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.harness import stop_process, wait_until_serving

HERE = Path(__file__).resolve().parent
ZYGOTE = HERE / "kernel_zygote.py"
CLIENT = HERE / "forked_kernel.py"


class WarmKernels:
    """The zygote process and a ``python3`` kernelspec (in ``folder``) whose kernels it forks."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.socket = folder / "zygote.sock"
        self.log_path = folder / "zygote.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120) -> WarmKernels:
        spec = self.folder / "kernels" / "python3"
        spec.mkdir(parents=True, exist_ok=True)
        (spec / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, str(CLIENT), "-f", "{connection_file}"],
                    "display_name": "Python 3 (ipykernel)",
                    "language": "python",
                    "interrupt_mode": "signal",
                    "metadata": {"debugger": True},
                }
            )
        )
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(ZYGOTE), str(self.socket)], stdout=log, stderr=subprocess.STDOUT
            )
        try:  # the socket appears once the imports are done
            wait_until_serving(self.process, self.log_path, self.socket.stat, "the kernel zygote", timeout)
        except Exception:
            self.stop()
            raise
        return self

    def env(self) -> dict[str, str]:
        """What the Jupyter server's environment needs so that its kernels are forked: the kernelspec's
        folder first on JUPYTER_PATH, and where the zygote listens."""
        return {"JUPYTER_PATH": str(self.folder), "TLW_KERNEL_ZYGOTE": str(self.socket)}

    def stop(self) -> None:
        stop_process(self.process)
