"""The flags, the run, and the report printed on stdout."""

from __future__ import annotations

import argparse
import os
import platform
import time

from benchmarks.bench_explore.run import PARTS, Settings, run
from benchmarks.bench_explore.table import NOTES, table
from benchmarks.bench_models import CASES, DEFAULT_CASES


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_explore",  # not "__main__.py", argparse's guess for a package
        description="torchlens-widgets benchmark (JupyterLab + Chromium)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats of each measure (default 3)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 2 clicks, 2 widgets for memory")
    parser.add_argument(
        "--cases", default=",".join(DEFAULT_CASES), help=f"comma-separated subset of {','.join(CASES)}"
    )
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)} (default all)"
    )
    arguments = parser.parse_args()
    parts = tuple(part.strip() for part in arguments.parts.split(",") if part.strip())
    if set(parts) - set(PARTS):
        parser.error(f"unknown parts {sorted(set(parts) - set(PARTS))}; choose from {', '.join(PARTS)}")
    for part in ("inplace", "expand"):
        if part in parts and "inline" not in parts:
            parser.error(f"--parts {part} times changes on the widgets that inline draws: add inline")
    cases = [case.strip() for case in arguments.cases.split(",") if case.strip()]
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; choose from {', '.join(CASES)}")
    repeat = 1 if arguments.quick else arguments.repeat
    settings = Settings(
        repeat=repeat,
        clicks=2 if arguments.quick else max(5, repeat),
        widgets=2 if arguments.quick else 3,
        parts=parts,
    )
    started = time.monotonic()
    results = run(cases, settings)
    import torch

    minutes = (time.monotonic() - started) / 60
    print(
        f"\ntorchlens-widgets benchmark, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch {torch.__version__}, Chromium headless (software WebGL); "
        f"medians of {settings.repeat} (clicks: {settings.clicks}), wall time {minutes:.1f} min\n"
    )
    for case in cases:
        print(f"- {case}: {CASES[case].description}")
    print()
    print(table(results, cases))
    print()
    print(NOTES)
