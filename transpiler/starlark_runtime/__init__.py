"""Run Starlark scripted tools (THV-0051 ``scripted-tool`` profile) on simulated backends.

Two engines run the same builtins over the same kernel: ``rust``
(starlark-rust, the default, in a child process that caps its memory:
:mod:`.sandbox`) and ``go`` (go.starlark.net, the interpreter vMCP embeds, in
a host process of ours). Every run is bounded in memory and wall-clock time
(:class:`ScriptLimits`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from transpiler.profile import ScriptLimits
from transpiler.sim.backoff import CENTRE, Jitter
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime.run import (
    EngineError,
    GoOnlyScript,
    ScriptLimitExceeded,
    run_script,
)

DEFAULT_LIMITS = ScriptLimits()

ENGINES = ("rust", "go")
#: The name a script runs under: the file its positions name.
SCRIPT_FILENAME = "script.star"


def run_starlark(
    script: str,
    scenario: Scenario,
    *,
    engine: str = "rust",
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
    filename: str = SCRIPT_FILENAME,
    modules: Mapping[str, str] | None = None,
    limits: ScriptLimits = DEFAULT_LIMITS,
) -> Trace:
    """Run ``script``'s ``run(params)`` once against the scenario; return the trace.

    ``modules`` maps the names a script may ``load()`` to their Starlark source.
    On the rust engine a script (or module) only go.starlark.net reads as vMCP does (``while``,
    indentation by tabs, a NUL: :mod:`.source`) raises :class:`GoOnlyScript`.
    Every run is bounded by ``limits`` (memory and wall-clock time); a run past
    one raises :class:`ScriptLimitExceeded` naming it.
    """
    (result,) = run_starlark_many(
        script,
        (scenario,),
        engine=engine,
        timeout_ns=timeout_ns,
        jitter=jitter,
        filename=filename,
        modules=modules,
        limits=limits,
    )
    if isinstance(result, EngineError):
        raise result
    return result


def run_starlark_many(
    script: str,
    scenarios: Sequence[Scenario],
    *,
    engine: str = "rust",
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
    filename: str = SCRIPT_FILENAME,
    modules: Mapping[str, str] | None = None,
    limits: ScriptLimits = DEFAULT_LIMITS,
) -> list[Trace | EngineError]:
    """:func:`run_starlark` once per scenario, in one batch: each run's trace in order, up
    to and including the :class:`EngineError` (:class:`ScriptLimitExceeded`,
    :class:`GoOnlyScript`) of the first run that raised one; the rest are not run."""
    if engine == "rust":
        from transpiler.starlark_runtime.sandbox import run_sandboxed

        return run_sandboxed(
            script,
            tuple(scenarios),
            filename=filename,
            timeout_ns=timeout_ns,
            jitter=jitter,
            limits=limits,
            modules=dict(modules or {}),
        )
    if engine == "go":
        from transpiler.starlark_runtime.go_engine import start_go

        starter = start_go(script, filename, modules or {}, limits)
        results: list[Trace | EngineError] = []
        for scenario in scenarios:
            try:
                results.append(run_script(starter, scenario, timeout_ns=timeout_ns, jitter=jitter))
            except EngineError as error:
                results.append(error)
                break
        return results
    raise EngineError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")


__all__ = [
    "ENGINES",
    "SCRIPT_FILENAME",
    "EngineError",
    "GoOnlyScript",
    "ScriptLimitExceeded",
    "ScriptLimits",
    "run_starlark",
    "run_starlark_many",
]
