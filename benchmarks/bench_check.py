"""Scenario pairs per second, and the wall time of ``check`` over the upstream corpus.

Usage: python benchmarks/bench_check.py [--examples N] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from transpiler.harness.check import ENGINES, CheckOptions
from transpiler.harness.gate import check_all, select
from transpiler.pairs import Request, Where

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "upstream-corpus"


def main() -> None:
    """Print pairs per second per engine and the whole-corpus wall time."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    args = parser.parse_args()
    request = Request(Where((args.corpus,)))
    selected, _ = select(request)
    for engines in (("rust",), ("go",), ENGINES):
        started = time.perf_counter()
        options = CheckOptions(examples=args.examples, engines=engines)
        reports = check_all(selected, request, options)
        seconds = time.perf_counter() - started
        pairs = sum(r.scenarios for r in reports) * len(engines)
        certified = sum(r.passes(None) for r in reports)
        print(
            f"engines {'+'.join(engines):8s} {len(reports)} tools ({certified} certified), "
            f"{pairs} scenario pairs in {seconds:.1f}s wall: {pairs / seconds:.0f} pairs/s"
        )


if __name__ == "__main__":
    main()
