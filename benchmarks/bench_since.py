"""``check --since``: a full check of a corpus, then the re-check of the unchanged corpus.

Usage: python benchmarks/bench_since.py [--examples N] [--corpus DIR]
Prints the wall time of each run and how many pairs the second one carried over.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

from transpiler.cli import main as cli

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "upstream-corpus"


def timed(arguments: list[str]) -> float:
    """Run the CLI quietly; its wall time in seconds."""
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli(arguments)
    return time.perf_counter() - started


def main() -> None:
    """Print the full check's time, the unchanged re-check's time and what it carried."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        first, second = Path(scratch, "first.json"), Path(scratch, "second.json")
        common = ["check", args.corpus, "--examples", str(args.examples), "--jobs", "2"]
        full = timed([*common, "--report-json", str(first)])
        again = timed([*common, "--since", str(first), "--report-json", str(second)])
        entries = json.loads(second.read_text())["tools"]
        carried = sum(entry == old for entry, old in zip(entries, _tools(first), strict=True))
    print(f"full check: {len(entries)} pairs in {full:.1f}s")
    print(f"--since, nothing changed: {again:.2f}s ({carried}/{len(entries)} entries carried over)")


def _tools(path: Path) -> list[object]:
    return list(json.loads(path.read_text())["tools"])


if __name__ == "__main__":
    main()
