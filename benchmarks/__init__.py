"""Benchmarks: each prints its figures; ``run_all`` gathers them into docs/performance.md."""
