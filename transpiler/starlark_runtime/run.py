"""One ``tools/call`` of a Starlark scripted tool, as a trace: on a scenario's simulated
backends (:func:`run_script`), or on any :class:`~.host.ScriptBackends` and clock
(:func:`run_on`, which ``serve`` uses with real ones)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from transpiler.diagnostics import TranspilerError
from transpiler.profile import (
    CALL_TIMEOUT_NS,
    DEFAULT_TIMEOUT_NS,
    ScriptLimits,
    failure_result,
    halt_message,
    success_result,
    timeout_result,
)
from transpiler.sim.backends import SimulatedBackends
from transpiler.sim.backoff import CENTRE, Jitter
from transpiler.sim.kernel import Kernel
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import CallRecord, ScriptReach, Trace
from transpiler.starlark_runtime.host import RunState, ScriptBackends, SimulatedScriptBackends


class EngineError(TranspilerError):
    """The engine could not run the script (a nondeterministic script, a host bug)."""


class GoOnlyScript(EngineError):
    """The script uses a construct only go.starlark.net runs (``while``), or holds text only it
    reads as vMCP does (a NUL): use the go engine."""


class ScriptLimitExceeded(EngineError):
    """A run past the host's memory or wall-clock limit (``which`` names it)."""

    def __init__(self, which: str, limits: ScriptLimits) -> None:
        if which == "memory":
            text = f"the script needed more than {limits.memory_text()} of memory"
        else:
            text = f"the script ran longer than {limits.seconds:g} s of wall-clock time"
        super().__init__(text + " (the host's limit)")
        self.which = which


class FatalStop(Exception):
    """Stops the whole run: ``message`` None means the tool's timeout passed."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message or "timeout")
        self.message = message


@dataclass(frozen=True)
class ScriptOutcome:
    """How ``run(params)`` ended: a returned value or a halt message."""

    value: Any = None
    error: str | None = None


class EngineRun(Protocol):
    """One run on one engine, set up on the kernel."""

    def outcome(self) -> ScriptOutcome | None:
        """How ``run(params)`` ended (None while it has not)."""

    def close(self) -> None:
        """Release the engine after the run, however it ended."""

    def reached(self) -> ScriptReach:
        """Where the run went (complete once :meth:`close` returned)."""


Starter = Callable[[RunState], EngineRun]
"""An engine: given the run's state, sets up its main thread on the kernel."""


@dataclass(frozen=True)
class FinishedRun:
    """A run that ended before it started (e.g. the script does not parse)."""

    result: ScriptOutcome

    def outcome(self) -> ScriptOutcome | None:
        """The fixed outcome."""
        return self.result

    def close(self) -> None:
        """Nothing to release."""

    def reached(self) -> ScriptReach:
        """Nowhere: the script never ran."""
        return ScriptReach()


def run_script(
    start_engine: Starter,
    scenario: Scenario,
    *,
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
) -> Trace:
    """Run a script on an engine against the scenario's backends and return its trace."""
    backends = SimulatedScriptBackends(SimulatedBackends(scenario))
    return run_on(start_engine, backends, scenario.params, Kernel(), timeout_ns, jitter)


def run_on(
    start_engine: Starter,
    backends: ScriptBackends,
    params: Mapping[str, Any],
    kernel: Kernel,
    timeout_ns: int = 0,
    jitter: Jitter = CENTRE,
    call_timeout_ns: int = CALL_TIMEOUT_NS,
    started: Callable[[RunState], None] | None = None,
) -> Trace:
    """Run a script on an engine with ``params`` against ``backends`` on ``kernel`` (its
    clock virtual or real) and return its trace; ``started`` is told the run's state first
    (so that another thread may end the run by cancelling its root context)."""
    root = kernel.context(timeout_ns if timeout_ns > 0 else DEFAULT_TIMEOUT_NS)
    state = RunState(kernel, backends, params, root, jitter, call_timeout_ns)
    if started is not None:
        started(state)
    engine_run = start_engine(state)
    outcome: ScriptOutcome | None
    try:
        kernel.run()
        outcome = engine_run.outcome()
    except FatalStop as stop:
        outcome = None if stop.message is None else ScriptOutcome(error=stop.message)
    finally:
        engine_run.close()
    calls = [_settle(call, kernel.now) for call in state.calls]
    trace = Trace(
        form="starlark",
        outcome="error",
        client_result=timeout_result(),
        output=None,
        error="timeout",
        calls=calls,
        elicitations=list(state.elicitations),
        logs=list(state.logs),
        incomplete=backends.incomplete,
        virtual_duration_ns=kernel.now,
        reach=engine_run.reached(),
        real_time=kernel.clock is not None,
    )
    if outcome is None:
        return trace
    if outcome.error is not None:
        message = halt_message(outcome.error)
        trace.client_result = failure_result(message)
        trace.error = message
        return trace
    trace.client_result = success_result(outcome.value)
    if trace.client_result["isError"]:
        trace.error = trace.client_result["content"][0]["text"]
        return trace
    trace.outcome = "success"
    trace.output = outcome.value
    trace.error = None
    return trace


def _settle(call: CallRecord, now: int) -> CallRecord:
    """A call still in flight when the run stopped ends, cancelled, at that instant."""
    if call.result != "pending":
        return call
    return replace(call, end_ns=now, result="cancelled")
