"""python -m benchmarks.bench_explore [--quick] [--repeat N] [--cases ...] [--parts ...]"""

from benchmarks.bench_explore.cli import main

main()
