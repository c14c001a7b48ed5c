"""Run Starlark scripted tools (THV-0051 ``scripted-tool`` profile) on simulated backends.

Two engines run the same builtins over the same kernel: ``rust``
(starlark-rust in-process, the default) and ``go`` (go.starlark.net, the
interpreter vMCP embeds, in a host process of ours).
"""

from __future__ import annotations

from collections.abc import Mapping

from transpiler.sim.backoff import CENTRE, Jitter
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime.run import EngineError, GoOnlyScript, Starter, run_script

ENGINES = ("rust", "go")


def run_starlark(
    script: str,
    scenario: Scenario,
    *,
    engine: str = "rust",
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
    filename: str = "script.star",
    modules: Mapping[str, str] | None = None,
) -> Trace:
    """Run ``script``'s ``run(params)`` once against the scenario; return the trace.

    ``modules`` maps the names a script may ``load()`` to their Starlark source.
    On the rust engine a script (or module) with ``while`` raises :class:`GoOnlyScript`.
    """
    starter = _starter(engine, script, filename, modules or {})
    return run_script(starter, scenario, timeout_ns=timeout_ns, jitter=jitter)


def _starter(engine: str, script: str, filename: str, modules: Mapping[str, str]) -> Starter:
    if engine == "rust":
        from transpiler.starlark_runtime.rust_engine import start_rust

        return start_rust(script, filename, modules)
    if engine == "go":
        from transpiler.starlark_runtime.go_engine import start_go

        return start_go(script, filename, modules)
    raise EngineError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")


__all__ = ["ENGINES", "EngineError", "GoOnlyScript", "run_starlark"]
