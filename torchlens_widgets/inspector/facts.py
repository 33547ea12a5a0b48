"""The facts of a torchlens record as the inspector shows them: an op, a rolled layer, a module or a
module call, each as rows of (key, name, machine value, text), and the Python expression that gives the
record back (``log["linear_1_1:1"]``). Only what torchlens already knows: nothing is measured here.
"""

from __future__ import annotations

import logging
import math
import ntpath
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from torchlens.errors import InvalidArgumentError, PayloadUnavailableError

from .._protocol import FactRow, RecordKind

# Text facts (paths, call lists) are cut to this many characters.
MAX_TEXT = 300

log = logging.getLogger(__name__)

# What torchlens raises for a fact it does not have for this record: an attribute of another kind of
# record (AttributeError, KeyError), a per-pass fact asked of a multi-pass Layer or Module
# (InvalidArgumentError), values the capture did not keep (PayloadUnavailableError). Anything else is
# a failure of torchlens' own, which the inspector shows (unexpected_failures) and logs.
NOT_FOR_THIS_RECORD = (AttributeError, KeyError, InvalidArgumentError, PayloadUnavailableError)

# The unexpected failures of fact_of while a record's facts are read (op_facts, module_facts).
_failures: ContextVar[list[FactRow] | None] = ContextVar("fact_failures", default=None)


def record_kind(record: Any) -> RecordKind:
    name = type(record).__name__
    kinds: dict[str, RecordKind] = {
        "Op": "op",
        "Layer": "layer",
        "Module": "module",
        "ModuleCall": "module_call",
    }
    return kinds.get(name, "other")


def fact_of(record: Any, name: str) -> Any:
    """``record.name``, or None when torchlens does not have it for this record.

    torchlens raises (typed) for per-pass facts asked of a multi-pass Layer or Module, and for facts a
    capture did not keep; the inspector shows what exists instead of failing. Any other exception is
    logged and, while a record's facts are read, shown as a row of its own: never a silent dash.
    """
    if record is None:
        return None
    try:
        return getattr(record, name)
    except NOT_FOR_THIS_RECORD:
        return None
    except Exception as error:
        log.warning("torchlens raised reading %s.%s", type(record).__name__, name, exc_info=True)
        failures = _failures.get()
        text = f"reading {name}: {type(error).__name__}: {error}"
        if failures is not None and all(row["text"] != short_text(text) for row in failures):
            failures.append(fact_row("error", "torchlens error", None, text))  # once per fact read
        return None


@contextmanager
def unexpected_failures() -> Iterator[list[FactRow]]:
    """Collects the rows of fact_of's unexpected failures in this block (a record's facts table)."""
    failures: list[FactRow] = []
    token = _failures.set(failures)
    try:
        yield failures
    finally:
        _failures.reset(token)


def first_op(layer: Any) -> Any:
    ops = fact_of(layer, "ops")
    try:
        return ops[0] if ops is not None and len(ops) else None
    except Exception:
        return None


def expression_for(record: Any, label: str) -> str:
    """The exact Python expression that gives ``record`` back, with the trace in scope as ``log``."""
    kind = record_kind(record)
    if kind == "module":
        return f"log.modules[{python_string(fact_of(record, 'address') or label)}]"
    if kind == "module_call":
        return f"log.module_calls[{python_string(fact_of(record, 'call_label') or label)}]"
    if kind == "layer":
        return f"log[{python_string(fact_of(record, 'layer_label') or label)}]"
    if kind == "op":
        return f"log[{python_string(fact_of(record, 'label') or label)}]"
    return f"log[{python_string(label)}]"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def python_string(text: Any) -> str:
    """A double-quoted Python string literal that evaluates to exactly ``str(text)``.

    Not json.dumps: it writes a character beyond the BMP (an emoji) as a surrogate pair
    (``"\\ud83d\\ude00"``), which Python reads as two lone surrogates, another string. Printable
    characters stay as they are; the rest (control and format characters, lone surrogates) are
    escaped by code point, ``\\U`` for those beyond the BMP.
    """
    parts = ['"']
    for char in str(text):
        code = ord(char)
        if char in _ESCAPES:
            parts.append(_ESCAPES[char])
        elif char.isprintable() and not 0xD800 <= code <= 0xDFFF:
            parts.append(char)
        elif code <= 0xFF:
            parts.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


def short_text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def json_number(value: Any) -> float | int | None:
    """A JSON-safe number (torchlens quantities are int/float subclasses), or None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def fact_row(key: str, name: str, value: Any, text: Any = None, detail: Any = None) -> FactRow:
    """One row of the facts table: a machine value, the text shown (torchlens' own formatting) and,
    when the text is shortened, the full text for the tooltip."""
    shown = short_text(text if text is not None else value)
    row = FactRow(key=key, name=name, value=value, text=shown)  # text None: the panel shows a dash
    if detail is not None:
        row["detail"] = short_text(detail)
    return row


def _quantity(key: str, name: str, value: Any) -> FactRow | None:
    if value is None:
        return None
    return fact_row(key, name, json_number(value), str(value))


def _shape(value: Any) -> list[int] | None:
    if value is None:
        return None
    try:
        return [int(size) for size in value]
    except (TypeError, ValueError):
        return None


def shape_text(shape: list[int] | None) -> str | None:
    return None if shape is None else "(" + ", ".join(map(str, shape)) + ")"


def dtype_text(dtype: Any) -> str | None:
    return None if dtype is None else str(dtype).removeprefix("torch.")


def _device_text(record: Any) -> str | None:
    ref = fact_of(record, "device_ref")
    name = fact_of(ref, "name") if ref is not None else None
    return str(name) if name else None


def call_site(op: Any) -> dict[str, Any] | None:
    """The call site torchlens recorded (first frame of ``code_context``, as torchlens' exports use)."""
    for location in fact_of(op, "code_context") or ():
        file_name = fact_of(location, "file")
        line = fact_of(location, "line_number")
        if file_name and line is not None:
            function = fact_of(location, "func_qualname") or fact_of(location, "func_name")
            return {"file": str(file_name), "line": int(line), "function": short_text(function)}
    return None


def op_facts(record: Any, op: Any, kind: str, public: bool) -> list[FactRow]:
    """An op's or a rolled layer's facts, then a row per fact torchlens failed to read."""
    with unexpected_failures() as failures:
        rows = _op_rows(record, op, kind, public)
    return rows + failures


def _op_rows(record: Any, op: Any, kind: str, public: bool) -> list[FactRow]:
    rows: list[FactRow | None] = []
    func = fact_of(record, "func_name")
    layer_type = fact_of(record, "layer_type")
    op_name = func if func and func != "none" else layer_type
    rows.append(fact_row("op", "op", short_text(op_name)))
    if kind == "layer":
        rows.append(fact_row("layer_label", "torchlens layer", short_text(fact_of(record, "layer_label"))))
        passes = fact_of(record, "num_passes")
        labels = [str(item) for item in (fact_of(record, "op_labels") or ())]
        rows.append(fact_row("passes", "passes", json_number(passes), f"{passes} ({', '.join(labels)})"))
    else:
        rows.append(fact_row("label", "torchlens label", short_text(fact_of(record, "label"))))
    module = fact_of(op, "module")
    if module:
        rows.append(fact_row("module", "module call", short_text(module)))
    if kind == "op":
        index, passes = fact_of(record, "pass_index"), fact_of(record, "num_passes")
        if index is not None:
            rows.append(
                fact_row("pass", "pass", json_number(index), f"{index} of {passes}" if passes else index)
            )
    shape = _shape(fact_of(record, "shape"))
    summary = fact_of(record, "shape_summary") if kind == "layer" else None
    rows.append(fact_row("shape", "shape", shape, summary or shape_text(shape)))
    rows.append(fact_row("dtype", "dtype", dtype_text(fact_of(record, "dtype"))))
    rows.append(fact_row("device", "device", _device_text(record)))
    rows.append(
        fact_row(
            "params",
            "parameters",
            json_number(fact_of(record, "num_params")),
            _thousands(fact_of(record, "num_params")),
        )
    )
    total = kind == "layer"  # a rolled node reports its passes' totals
    rows.append(
        _quantity(
            "time",
            "time (all passes)" if total else "time",
            fact_of(record, "total_func_duration" if total else "func_duration"),
        )
    )
    rows.append(
        _quantity(
            "flops",
            "FLOPs forward (all passes)" if total else "FLOPs forward",
            fact_of(record, "total_flops_forward" if total else "flops_forward"),
        )
    )
    rows.append(
        _quantity(
            "bytes",
            "output bytes (all passes)" if total else "output bytes",
            fact_of(record, "total_activation_memory" if total else "activation_memory"),
        )
    )
    if (json_number(fact_of(record, "num_params")) or 0) > 0:
        rows.append(_quantity("param_bytes", "parameter bytes", fact_of(record, "param_memory")))
    if not public:
        source = call_site(op)
        if source is not None:
            where = f"{source['file']}:{source['line']}"
            function = f" in {source['function']}" if source["function"] else ""
            short = f"{ntpath.basename(source['file'])}:{source['line']}{function}"  # / and \\ paths
            rows.append(fact_row("source", "source", source, short, where + function))
    return [row for row in rows if row is not None]


def module_facts(record: Any, kind: str, public: bool) -> list[FactRow]:
    """A module's or a module call's facts, then a row per fact torchlens failed to read."""
    with unexpected_failures() as failures:
        rows = _module_rows(record, kind, public)
    return rows + failures


def _module_rows(record: Any, kind: str, public: bool) -> list[FactRow]:
    rows: list[FactRow | None] = [
        fact_row("address", "module", short_text(fact_of(record, "address"))),
        fact_row(
            "class", "class", short_text(fact_of(record, "class_name")), fact_of(record, "class_qualname")
        ),
        fact_row(
            "params",
            "parameters",
            json_number(fact_of(record, "num_params")),
            _thousands(fact_of(record, "num_params")),
        ),
    ]
    if kind == "module":
        calls = [str(item) for item in (fact_of(record, "call_labels") or ())]
        rows.append(
            fact_row(
                "calls",
                "calls",
                json_number(fact_of(record, "num_calls")),
                f"{fact_of(record, 'num_calls')} ({', '.join(calls)})" if calls else None,
            )
        )
        rows.append(_quantity("time", "time (all calls)", fact_of(record, "total_forward_duration")))
        rows.append(_quantity("flops", "FLOPs forward (all calls)", fact_of(record, "total_flops_forward")))
        rows.append(fact_row("ops", "ops inside", json_number(fact_of(record, "num_layers"))))
    else:
        rows.append(fact_row("call", "call", short_text(fact_of(record, "call_label"))))
        rows.append(_quantity("time", "time", fact_of(record, "forward_duration")))
        rows.append(fact_row("ops", "ops inside", json_number(fact_of(record, "num_ops"))))
    outputs = [str(item) for item in (fact_of(record, "output_ops") or ())]
    if outputs:
        rows.append(fact_row("outputs", "output ops", outputs[:20], ", ".join(outputs[:20])))
    if not public:
        file_name, line = fact_of(record, "class_source_file"), fact_of(record, "class_source_line")
        if file_name:
            rows.append(
                fact_row(
                    "source",
                    "source",
                    {"file": str(file_name), "line": line},
                    f"{file_name}:{line}" if line is not None else file_name,
                )
            )
    return [row for row in rows if row is not None]


def _thousands(value: Any) -> str | None:
    number = json_number(value)
    return None if number is None else f"{int(number):,}"
