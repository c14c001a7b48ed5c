"""Run Starlark scripted tools (THV-0051 ``scripted-tool`` profile) on simulated backends.

Two engines run the same builtins over the same kernel: ``rust``
(starlark-rust in-process, the default) and ``go`` (go.starlark.net, the
interpreter vMCP embeds, in a host process of ours).
"""

from __future__ import annotations

from transpiler.sim.backoff import CENTRE, Jitter
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime.run import EngineError, Starter, run_script

ENGINES = ("rust", "go")


def run_starlark(
    script: str,
    scenario: Scenario,
    *,
    engine: str = "rust",
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
    filename: str = "script.star",
) -> Trace:
    """Run ``script``'s ``run(params)`` once against the scenario; return the trace."""
    return run_script(
        _starter(engine, script, filename), scenario, timeout_ns=timeout_ns, jitter=jitter
    )


def _starter(engine: str, script: str, filename: str) -> Starter:
    if engine == "rust":
        from transpiler.starlark_runtime.rust_engine import start_rust

        return start_rust(script, filename)
    if engine == "go":
        from transpiler.starlark_runtime.go_engine import start_go

        return start_go(script, filename)
    raise EngineError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")


__all__ = ["ENGINES", "EngineError", "run_starlark"]
