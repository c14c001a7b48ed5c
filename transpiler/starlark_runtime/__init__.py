"""Run Starlark scripted tools (THV-0051 ``scripted-tool`` profile) on simulated backends.

Two engines run the same builtins over the same kernel: ``rust``
(starlark-rust, the default, in a child process that caps its memory:
:mod:`.sandbox`) and ``go`` (go.starlark.net, the interpreter vMCP embeds, in
a host process of ours). Every run is bounded in memory and wall-clock time
(:class:`ScriptLimits`).
"""

from __future__ import annotations

from collections.abc import Mapping

from transpiler.sim.backoff import CENTRE, Jitter
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime.profile import ScriptLimits
from transpiler.starlark_runtime.run import (
    EngineError,
    GoOnlyScript,
    ScriptLimitExceeded,
    run_script,
)

DEFAULT_LIMITS = ScriptLimits()

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
    limits: ScriptLimits = DEFAULT_LIMITS,
) -> Trace:
    """Run ``script``'s ``run(params)`` once against the scenario; return the trace.

    ``modules`` maps the names a script may ``load()`` to their Starlark source.
    On the rust engine a script (or module) with ``while`` raises :class:`GoOnlyScript`.
    Every run is bounded by ``limits`` (memory and wall-clock time); a run past
    one raises :class:`ScriptLimitExceeded` naming it.
    """
    if engine == "rust":
        from transpiler.starlark_runtime.sandbox import run_sandboxed

        return run_sandboxed(
            script,
            scenario,
            filename=filename,
            timeout_ns=timeout_ns,
            jitter=jitter,
            limits=limits,
            modules=dict(modules or {}),
        )
    if engine == "go":
        from transpiler.starlark_runtime.go_engine import start_go

        starter = start_go(script, filename, modules or {}, limits)
        return run_script(starter, scenario, timeout_ns=timeout_ns, jitter=jitter)
    raise EngineError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")


__all__ = [
    "ENGINES",
    "EngineError",
    "GoOnlyScript",
    "ScriptLimitExceeded",
    "ScriptLimits",
    "run_starlark",
]
