"""Small builders for runtime tests."""

from __future__ import annotations

from typing import Any

from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark

SECOND = 1_000_000_000


def scenario(backends: dict[str, Any] | None = None, **rest: Any) -> Scenario:
    """A scenario from a plain document."""
    document: dict[str, Any] = {"backends": backends or {}}
    document.update(rest)
    return scenario_from_document(document)


def run(script: str, world: Scenario, engine: str, **options: Any) -> Trace:
    """Run ``script`` (its body is ``run(params)``) and return the trace."""
    return run_starlark(script, world, engine=engine, **options)


def calls(trace: Trace) -> list[tuple[str, Any, int, float, float, str]]:
    """The calls as (tool, args, attempt, start s, end s, result)."""
    return [
        (c.tool, c.args, c.attempt, c.start_ns / SECOND, c.end_ns / SECOND, c.result)
        for c in trace.calls
    ]
