"""The README's commands (scripts/setup.sh, test.sh, demo.sh): failures stop them with the tool's own
error, and no pipeline can die of a broken pipe."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "scripts").glob("*.sh"))


def code_lines(path: Path) -> list[str]:
    return [
        line for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_pipeline_can_die_of_a_broken_pipe_or_hide_a_failure(script: Path) -> None:
    for line in code_lines(script):
        # Under pipefail, `producer | grep -q` fails when grep exits at the first match and the
        # producer is still writing (BrokenPipeError): the test command failed on a fresh clone so.
        assert not re.search(r"\|\s*grep\s+(-\w*q|--quiet)", line), f"{script.name}: {line}"
        # `pip ... | grep -v ... || true` turned every pip failure into a success.
        assert not ("pip" in line and "|| true" in line), f"{script.name}: {line}"
    text = script.read_text()
    assert "set -euo pipefail" in text


def test_wheel_check_passes_on_a_real_wheel(tmp_path: Path) -> None:
    """The test command's wheel step, run as test.sh runs it (pip builds the wheel, esbuild included)."""
    dist = tmp_path / "dist"
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "check_wheel.sh"), str(dist)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = dist.glob("*.whl")
    assert "torchlens_widgets/static/widget.js" in zipfile.ZipFile(wheel).namelist()
    assert "contains torchlens_widgets/static/widget.js" in result.stdout


def test_a_failed_torch_install_stops_the_set_up_with_pips_error(tmp_path: Path) -> None:
    """A real pip in a fresh venv, with no package to be found: the torch step fails, and the set-up
    stops there with pip's own error instead of carrying on."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    venv.EnvBuilder(with_pip=True).create(repo / ".venv")
    (tmp_path / "no-wheels").mkdir()
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("PIP_")},
        "PIP_CONFIG_FILE": os.devnull,  # no machine-wide index or wheel folder
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(tmp_path / "no-wheels"),  # an empty one: no torch to be found
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    result = subprocess.run(
        ["bash", str(repo / "scripts" / "setup.sh"), "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "torch==2.13.0" in result.stderr and "ERROR" in result.stderr  # pip's own error
    assert "failed" in result.stderr
    assert "== torchlens-widgets[" not in output  # it stopped at the failing step


def test_a_set_up_done_from_the_same_files_only_rebuilds_the_bundle(tmp_path: Path) -> None:
    """The second run of the set-up from unchanged files installs nothing and rebuilds js/ only; a
    changed pyproject.toml installs again (here it reaches pip, which finds no torch)."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (repo / "package-lock.json").write_text("{}")
    (repo / "build.mjs").write_text('console.log("bundle rebuilt");\n')
    esbuild = repo / "node_modules" / ".bin" / "esbuild"
    esbuild.parent.mkdir(parents=True)
    esbuild.write_text("#!/bin/sh\n")
    esbuild.chmod(0o755)
    venv.EnvBuilder(with_pip=True).create(repo / ".venv")
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("PIP_")},
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(tmp_path),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    setup = ["bash", str(repo / "scripts" / "setup.sh"), "demo"]
    first = subprocess.run(setup, capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode != 0 and "torch==2.13.0" in first.stderr  # no stamp yet: it installs
    # A set-up that finished leaves the stamp of its inputs; the same inputs then skip the installs.
    stamp = repo / ".venv" / ".tlw-setup-demo"
    assert not stamp.exists()
    inputs = b"".join((repo / name).read_bytes() for name in ("pyproject.toml", "package-lock.json"))
    inputs += (repo / "scripts" / "setup.sh").read_bytes()
    stamp.write_text(hashlib.sha256(inputs).hexdigest() + "\n")
    again = subprocess.run(setup, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "set-up is current" in again.stdout and "bundle rebuilt" in again.stdout
    assert "== torch" not in again.stdout
    (repo / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    changed = subprocess.run(setup, capture_output=True, text=True, env=env, timeout=300)
    assert changed.returncode != 0 and "torch==2.13.0" in changed.stderr


def test_venv_js_files_are_commonjs_so_jupyterlab_starts_quietly() -> None:
    """The repository's package.json makes .js files ES modules, .venv's too; setup.sh scopes them back,
    or JupyterLab prints a screen of minified JavaScript from its yarn probe at every start."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: scripts/setup.sh needs Node.js 20")
    assert '"type": "module"' in (ROOT / "package.json").read_text()
    assert (ROOT / ".venv" / "package.json").read_text().strip() == '{"type": "commonjs"}'
    from jupyter_builder.jlpm import YARN_PATH

    result = subprocess.run([node, YARN_PATH, "--version"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and re.fullmatch(r"\d+\.\d+\.\d+\s*", result.stdout), result.stderr[:500]


def test_demo_opens_the_notebook_with_a_few_readable_lines(tmp_path: Path) -> None:
    """The demo's launch step (scripts/lab.sh; demo.sh is setup.sh then this), as whoever runs the tests
    (root in a container: JupyterLab refused to start as root). It must print the URL on 127.0.0.1 in a
    few lines, serve the notebook, and is stopped here."""
    port = free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    command = ["bash", str(ROOT / "scripts" / "lab.sh"), "--no-browser", f"--ServerApp.port={port}"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        url = ""
        deadline = time.monotonic() + 120
        while not url and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break  # it exited
            lines.append(line.rstrip())
            url = next(iter(re.findall(rf"http://127\.0\.0\.1:{port}/lab\?token=\w+", line)), "")
        output = "\n".join(lines)
        assert url, f"no URL; JupyterLab said:\n{output}"
        assert len(lines) <= 12, output
        assert "allow-root" not in output and "yarn" not in output and "=>" not in output, output
        token = url.split("token=")[1]
        assert (
            json.loads(get_soon(f"http://127.0.0.1:{port}/api/contents/01_explore.ipynb?token={token}"))[
                "type"
            ]
            == "notebook"
        ), output
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the server this test started, and only it
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def get_soon(url: str, within: float = 30) -> bytes:
    """GET ``url``, retrying refused connections: the server may print its URL a moment before it
    accepts them (seen on a loaded machine), and a user would open it a moment later anyway."""
    deadline = time.monotonic() + within
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                return bytes(reply.read())
        except urllib.error.URLError as error:
            if not isinstance(error.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
