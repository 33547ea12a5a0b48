"""Benchmarks and probes, run from the repository root as modules (python -m benchmarks.bench_explore)."""
