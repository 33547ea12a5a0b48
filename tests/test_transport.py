"""The kernel's reply transport: text (base64) where binary frames cannot reach the page (a kernel
launched through a Jupyter Kernel Gateway, or the user's setting), as the view asks elsewhere."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

import torchlens_widgets as tlw
from tests.helpers.view_requests import ask
from torchlens_widgets import _transport

# What a kernel started by jupyter_kernel_gateway 3.0.1 behind jupyter_server 2.21.1 had (measured).
KERNEL_GATEWAY_ENV = {"KERNEL_LAUNCH_TIMEOUT": "40", "KERNEL_WORKING_DIR": "/home/me", "KERNEL_GATEWAY": "1"}


@pytest.fixture(autouse=True)
def local_kernel(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """A kernel started locally, with no setting made (each test sets what it needs)."""
    for name in ("KERNEL_GATEWAY", "KERNEL_LAUNCH_TIMEOUT", _transport.ENV_VAR):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_transport, "_setting", None)
    yield monkeypatch


def test_a_local_kernel_answers_as_the_view_asks(tiny_log):
    widget = tlw.explore(tiny_log)
    binary, buffers = ask(widget, "graph")
    assert buffers and "base64_buffers" not in binary and "base64_reason" not in binary
    text, none = ask(widget, "graph", buffers="base64")
    assert none == [] and text["base64_reason"] == "asked"


@pytest.mark.parametrize(
    "environ",
    [KERNEL_GATEWAY_ENV, {"KERNEL_GATEWAY": "1"}, {"KERNEL_LAUNCH_TIMEOUT": "40"}],
    ids=["kernel-gateway", "gateway-marker", "gateway-client"],
)
def test_a_kernel_launched_through_a_gateway_answers_text_when_asked_binary(tiny_log, local_kernel, environ):
    widget = tlw.explore(tiny_log)
    _, binary = ask(widget, "graph")
    for name, value in environ.items():
        local_kernel.setenv(name, value)
    text, none = ask(widget, "graph")
    assert none == [] and text["base64_reason"] == "gateway"
    assert [base64.b64decode(b) for b in text["base64_buffers"]] == binary


def test_a_working_dir_or_user_name_alone_is_not_a_gateway():
    assert not _transport.launched_via_gateway({"KERNEL_WORKING_DIR": "/x", "KERNEL_USERNAME": "me"})
    assert not _transport.launched_via_gateway({"KERNEL_GATEWAY": "0"})


def test_the_environment_variable_forces_text_or_keeps_binary(tiny_log, local_kernel):
    widget = tlw.explore(tiny_log)
    local_kernel.setenv(_transport.ENV_VAR, "text")
    text, none = ask(widget, "assets", {"key": widget._asset_key})
    assert none == [] and text["base64_reason"] == "setting" and text["base64_buffers"]
    # "binary" keeps a gateway's kernel binary (a relay that passes binary frames).
    local_kernel.setenv(_transport.ENV_VAR, "binary")
    local_kernel.setenv("KERNEL_GATEWAY", "1")
    _, buffers = ask(widget, "graph")
    assert buffers


def test_set_transport_overrides_the_environment(tiny_log, local_kernel):
    widget = tlw.explore(tiny_log)
    local_kernel.setenv(_transport.ENV_VAR, "binary")
    tlw.set_transport("text")
    text, none = ask(widget, "graph")
    assert none == [] and text["base64_reason"] == "setting"
    tlw.set_transport("auto")
    _, buffers = ask(widget, "graph")
    assert buffers


def test_a_bad_setting_is_a_typed_error_naming_the_modes(tiny_log, local_kernel):
    with pytest.raises(tlw.TransportSettingError, match="'text'"):
        tlw.set_transport("json")  # type: ignore[arg-type]
    local_kernel.setenv(_transport.ENV_VAR, "base64")
    reply, _ = ask(tlw.explore(tiny_log), "graph")
    assert reply["ok"] is False and "TORCHLENS_WIDGETS_TRANSPORT is 'base64'" in reply["error"]
    assert "Remedy" in reply["error"]
