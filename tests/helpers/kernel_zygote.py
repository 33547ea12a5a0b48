"""A process that imports what every test notebook's first cell imports, once, and forks a real ipykernel
for each kernel JupyterLab starts (tests/helpers/warm_kernels.py says why; forked_kernel.py asks it).

Run as a script: ``python kernel_zygote.py SOCKET``. It listens on the Unix socket SOCKET; each connection
is one kernel: a JSON request (the kernel's argv, environment and folder) with the client's stdin, stdout
and stderr passed along, answered with the kernel's pid and, when it ends, its exit status. A client that
goes away (the server killed it) takes its kernel with it, before the zygote serves the next request, so
a restarted kernel finds its ports free.

Only the standard library is imported at the top: the heavy imports happen in ``warm_up()``, before the
socket exists, and no thread is started, so that each fork is a clean copy of one thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import traceback

# Imported by nearly every test notebook's first cell; each forked kernel finds them in sys.modules.
# Not torchlens (nor torchlens_widgets, which imports it): torchlens refuses to capture in a process forked
# after its import (it stamps the importing pid), so each kernel imports it, as any kernel does.
WARM_MODULES = (
    "torch",
    "transformers.models.gpt2.modeling_gpt2",
    "transformers.models.bert.modeling_bert",
    "ipykernel.kernelapp",
    "ipywidgets",
    # What torchlens_widgets imports beside torchlens: Model Explorer's package (a Flask app), anywidget.
    "model_explorer",
    "anywidget",
    "graphviz",
)

PR_SET_PDEATHSIG = 1
MAX_REQUEST_BYTES = 1 << 20


def warm_up() -> None:
    import transformers

    for name in WARM_MODULES:
        importlib.import_module(name)
    # transformers' lazy top level: `from transformers import GPT2LMHeadModel` resolves its names once.
    for name in ("GPT2Config", "GPT2LMHeadModel", "GPT2Model", "BertConfig", "BertModel"):
        getattr(transformers, name)


def become_kernel(request: dict, fds: list[int], others: list[socket.socket]) -> None:
    """In the forked child: the client's standard streams, environment and folder, then ipykernel."""
    for other in others:  # the zygote's listener and its other kernels' clients
        other.close()
    # The kernel ends with the zygote (the test session's end), whatever happens to the zygote.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setsid()  # a group of its own, as jupyter_client starts a kernel
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # an interrupt: KeyboardInterrupt
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    # As ipykernel_launcher leaves it: no folder of this script first on the path.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    sys.argv = ["ipykernel_launcher", *request["args"]]
    from ipykernel import kernelapp

    status = 0
    try:
        kernelapp.launch_new_instance(argv=request["args"])
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    except BaseException:
        traceback.print_exc()  # to the server's log, as a kernel that cannot start prints there
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


class Zygote:
    """The listening socket and the kernels forked so far, each with its client's connection."""

    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)  # the path's appearing tells warm_kernels.py the imports are done
        self.listener.listen(16)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.kernels: dict[socket.socket, int] = {}  # each client's connection -> its kernel's pid
        self.parent = os.getppid()  # the test process that started it

    def serve(self) -> None:
        # Until the tests stop it, or the test process is gone without stopping it (killed): its kernels
        # end with it (each dies with its zygote, PR_SET_PDEATHSIG).
        while os.getppid() == self.parent:
            events = [key.fileobj for key, _ in self.selector.select(timeout=0.05)]
            # Clients gone first: their kernels die and are reaped before a new one may want their ports.
            for connection in events:
                if connection in self.kernels and client_gone(connection):  # type: ignore[arg-type]
                    self.kill_kernel_of(connection)  # type: ignore[arg-type]
            if self.listener in events:
                connection, _ = self.listener.accept()
                try:
                    self.fork_kernel(connection)
                except Exception as error:  # a bad request ends its client, not the zygote
                    print(f"kernel zygote: no kernel for a request: {error!r}", file=sys.stderr, flush=True)
                    connection.close()
            self.report_ended_kernels()

    def fork_kernel(self, connection: socket.socket) -> None:
        message, fds, _, _ = socket.recv_fds(connection, MAX_REQUEST_BYTES, 3)
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            become_kernel(request, fds, [self.listener, *self.kernels, connection])
        for fd in fds:
            os.close(fd)
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        self.kernels[connection] = pid
        self.selector.register(connection, selectors.EVENT_READ)

    def kill_kernel_of(self, connection: socket.socket) -> None:
        pid = self.forget(connection)
        with contextlib.suppress(ProcessLookupError, ChildProcessError):  # it ended meanwhile
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

    def report_ended_kernels(self) -> None:
        """Kernels that ended (a shutdown request): their clients end with their exit status."""
        for connection, pid in list(self.kernels.items()):
            try:
                ended, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                ended, status = pid, 0
            if ended:
                exit_status = json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode()
                with contextlib.suppress(OSError):  # its client is gone already
                    connection.sendall(exit_status + b"\n")
                self.forget(connection)

    def forget(self, connection: socket.socket) -> int:
        self.selector.unregister(connection)
        connection.close()
        return self.kernels.pop(connection)


def client_gone(connection: socket.socket) -> bool:
    """A client never writes after its request: its connection is readable only once it closed."""
    try:
        return not connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    warm_up()
    Zygote(sys.argv[1]).serve()
