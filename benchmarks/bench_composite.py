"""Scenarios per second of the composite model on its two benchmark workloads.

- ``ten_steps``: ten tool steps with templates, dependencies and an output
  config (corpus/scenarios/bench/ten_steps.scenario.yaml);
- ``fifty_iterations``: a forEach over fifty items, ten at a time
  (corpus/scenarios/bench/fifty_iterations.scenario.yaml).

Usage: python benchmarks/bench_composite.py [--runs N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from transpiler.composite import run_composite
from transpiler.config.loader import load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.sim.scenario import Scenario, load_scenario

BENCH = Path(__file__).resolve().parent.parent / "corpus" / "scenarios" / "bench"
WORKLOADS = ("ten_steps", "fifty_iterations")


def _workload(name: str) -> tuple[CompositeToolConfig, Scenario]:
    tools = {
        tool.effective.name: tool.effective for tool in load_paths([BENCH / "tools.yaml"]).tools
    }
    return tools[name], load_scenario(BENCH / f"{name}.scenario.yaml")


def _rate(tool: CompositeToolConfig, scenario: Scenario, runs: int) -> float:
    trace = run_composite(tool, scenario)
    if trace.outcome != "success":
        raise SystemExit(f"benchmark workload {tool.name} failed: {trace.error}")
    started = time.perf_counter()
    for _ in range(runs):
        run_composite(tool, scenario)
    return runs / (time.perf_counter() - started)


def main() -> None:
    """Print scenarios/second per workload."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    for name in WORKLOADS:
        tool, scenario = _workload(name)
        print(f"{name}: {_rate(tool, scenario, args.runs):.1f} scenarios/second")


if __name__ == "__main__":
    main()
