"""The process JupyterLab starts as a kernel in the e2e tests (the kernelspec warm_kernels.py writes): it
asks the zygote (kernel_zygote.py, at $TLW_KERNEL_ZYGOTE) to fork a real ipykernel with this process's
arguments, environment, folder and standard streams, and stands in for it towards the server.

The server signals this process (an interrupt, a terminate): each is passed to the kernel. Killed, this
process's connection closes and the zygote kills the kernel. It ends with the kernel's exit status.
Standard library only: it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys


def main() -> int:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.environ["TLW_KERNEL_ZYGOTE"])
    request = {"args": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd()}
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    replies = connection.makefile("rb")
    kernel = json.loads(replies.readline())["pid"]

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):  # the kernel ended meanwhile
            os.kill(kernel, signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
        signal.signal(signum, forward)
    line = replies.readline()  # resumed after each signal forwarded meanwhile
    return int(json.loads(line)["exit"]) if line else 1


if __name__ == "__main__":
    sys.exit(main())
