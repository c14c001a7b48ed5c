"""Scenario pairs per second of ``check`` over the upstream corpus, its wall time and peak memory.

``check`` runs as a user runs it (``python -m transpiler check``, a fresh
process with its workers and engine processes), so start-up counts. Peak
memory is the largest resident set of the whole process tree (``check``, its
workers, their starlark-rust sandboxes and go.starlark.net hosts), summed
over the processes and sampled every 20 ms: an upper bound, since pages the
processes share count once per process.

Usage: python benchmarks/bench_check.py [--examples N] [--jobs N] [--engine rust|go|both]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "upstream-corpus"


@dataclass(frozen=True)
class CheckRun:
    """One ``check`` over a corpus: what it did, how long it took, how much memory it held."""

    tools: int
    certified: int
    pairs: int
    seconds: float
    peak_bytes: int

    @property
    def rate(self) -> float:
        """Scenario pairs (one scenario on the workflow and on the script, per engine) a second."""
        return self.pairs / self.seconds


def measure(engine: str, examples: int, jobs: int, corpus: Path = DEFAULT_CORPUS) -> CheckRun:
    """Run ``check`` once over ``corpus``."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = [
            sys.executable,
            "-m",
            "transpiler",
            "check",
            str(corpus),
            "--engine",
            engine,
            "--examples",
            str(examples),
            "--jobs",
            str(jobs),
            "--report-json",
            str(report),
            "--counterexamples",
            str(Path(scratch) / "counterexamples"),
        ]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peak = _PeakMemory(process.pid)
        process.wait()
        seconds = time.perf_counter() - started
        peak.stop()
        if process.returncode not in (0, 1):
            raise SystemExit(f"check failed (exit {process.returncode}): {' '.join(command)}")
        tools = json.loads(report.read_text(encoding="utf-8"))["tools"]
    engines = 2 if engine == "both" else 1
    pairs = sum(tool["certificate"].get("scenarios", 0) for tool in tools) * engines
    certified = sum(bool(tool["passes"]) for tool in tools)
    return CheckRun(len(tools), certified, pairs, seconds, peak.bytes)


class _PeakMemory:
    """Samples the summed resident set of a process and its descendants until stopped."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.bytes = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling."""
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._done.wait(0.02):
            self.bytes = max(self.bytes, sum(_resident(pid) for pid in _tree(self.pid)))


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                pending.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                continue
    return found


def _resident(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    """Print pairs per second, wall time and peak memory per engine."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--engine", choices=["rust", "go", "both"], action="append")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    for engine in args.engine or ["rust", "go"]:
        run = measure(engine, args.examples, args.jobs, args.corpus)
        print(
            f"engine {engine:5s} {run.tools} tools ({run.certified} pass), {run.pairs} scenario "
            f"pairs in {run.seconds:.1f}s wall: {run.rate:.0f} pairs/s, "
            f"peak memory {run.peak_bytes / 2**20:.0f} MiB"
        )


if __name__ == "__main__":
    main()
