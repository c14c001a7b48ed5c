"""Runs per second of a 10-call scripted tool on each Starlark engine.

The go engine reuses one host process for every run. A second workload runs
the same ten calls as parallel branches with different latencies, which
forces the rust engine's replay to resume branches out of order.

Usage: python benchmarks/bench_runtime.py [--runs N]
"""

from __future__ import annotations

import argparse
import time

from transpiler.gobuild import go_available
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.starlark_runtime import run_starlark

SEQUENTIAL = """
def run(params):
    results = []
    for i in range(10):
        results.append(call_tool("svc.step", {"i": i, "who": params["who"]}))
    return {"results": results}
"""

PARALLEL = """
def run(params):
    return {"results": parallel([lambda i=i: call_tool("svc.step", {"i": i}) for i in range(10)])}
"""


def _world(delays: bool) -> Scenario:
    results = (
        [
            {"when": {"i": float(i)}, "structuredContent": {"i": i}, "delay": f"{(10 - i) * 100}ms"}
            for i in range(10)
        ]
        if delays
        else [{"structuredContent": {"ok": True}}]
    )
    return scenario_from_document(
        {"params": {"who": "bench"}, "backends": {"svc.step": {"results": results}}}
    )


def _rate(script: str, world: Scenario, engine: str, runs: int) -> float:
    run_starlark(script, world, engine=engine)
    started = time.perf_counter()
    for _ in range(runs):
        run_starlark(script, world, engine=engine)
    return runs / (time.perf_counter() - started)


def main() -> None:
    """Print runs/second per engine and workload."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    engines = ["rust"] + (["go"] if go_available(needs_starlark=True) else [])
    for name, script, world in (
        ("10 sequential calls", SEQUENTIAL, _world(delays=False)),
        ("10 parallel calls, staggered latency", PARALLEL, _world(delays=True)),
    ):
        for engine in engines:
            rate = _rate(script, world, engine, args.runs)
            print(f"{name:40s} {engine:5s} {rate:9.1f} runs/s")


if __name__ == "__main__":
    main()
