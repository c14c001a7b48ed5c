"""Runs per second of a 10-call scripted tool on each Starlark engine.

The go engine reuses one host process for every run. A second workload runs
the same ten calls as parallel branches with different latencies, which
forces the rust engine's replay to resume branches out of order. The last two
run the bundled example's deploy_with_approval as an exact script, loading
its helpers from vmcp_compat.star and with them inline: the cost of load().

Usage: python benchmarks/bench_runtime.py [--runs N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from pathlib import Path

from transpiler.config.loader import load_paths
from transpiler.emit.exact.script import emit_script
from transpiler.gobuild import go_available
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.happy import happy_scenario
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


def _rate(
    script: str, world: Scenario, engine: str, runs: int, modules: Mapping[str, str]
) -> float:
    run_starlark(script, world, engine=engine, modules=modules)
    started = time.perf_counter()
    for _ in range(runs):
        run_starlark(script, world, engine=engine, modules=modules)
    return runs / (time.perf_counter() - started)


def _exact(inline: bool) -> tuple[str, Scenario, Mapping[str, str]]:
    example = Path(__file__).resolve().parent.parent / "corpus" / "example"
    tool = next(t for t in load_paths([example]).tools if t.config.name == "deploy_with_approval")
    emitted = emit_script(tool.effective, "bench", inline_helpers=inline)
    return emitted.script, happy_scenario(analyse(tool.effective)), emitted.modules


def main() -> None:
    """Print runs/second per engine and workload."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    engines = ["rust"] + (["go"] if go_available(needs_starlark=True) else [])
    for name, script, world, modules in (
        ("10 sequential calls", SEQUENTIAL, _world(delays=False), {}),
        ("10 parallel calls, staggered latency", PARALLEL, _world(delays=True), {}),
        ("exact deploy_with_approval, load()", *_exact(inline=False)),
        ("exact deploy_with_approval, inline", *_exact(inline=True)),
    ):
        for engine in engines:
            rate = _rate(script, world, engine, args.runs, modules)
            print(f"{name:40s} {engine:5s} {rate:9.1f} runs/s")


if __name__ == "__main__":
    main()
