"""Runs in the starlark-rust sandbox on backends that live in the parent (what ``serve --engine
rust`` does): each operation is forwarded over the sandbox's pipe and settled by the parent's
backends, on a real clock, with the sandbox's memory cap kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from transpiler.profile import ScriptLimits
from transpiler.sim.backends import BackendAnswer
from transpiler.sim.backoff import CENTRE
from transpiler.sim.kernel import Await, Context, ContextError
from transpiler.sim.scenario import ToolResult
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import ScriptLimitExceeded
from transpiler.starlark_runtime.forwarding import BackendsRelay
from transpiler.starlark_runtime.host import Elicited, HostOp
from transpiler.starlark_runtime.sandbox import LiveRequest, Sandbox

SIMPLE = 'def run(params):\n    return call_tool("t.get", {"id": "ID"})\n'
LIMITS = ScriptLimits(memory_bytes=64 * 2**20, seconds=30.0)
#: Never answered: a call left to its deadline, or to the run's end.
NEVER = -1.0


class TimedBackends:
    """Backends outside the kernel: each answer arrives from another thread after a delay."""

    def __init__(self, delays: dict[str, float], tools: tuple[str, ...] = ("t.get",)) -> None:
        self.delays = delays
        self.tools = tools
        self.calls: list[tuple[str, Any, float, float]] = []
        self.cancelled: list[tuple[str, bool]] = []
        self.logs: list[str] = []

    @property
    def incomplete(self) -> bool:
        return False

    def has_tool(self, name: str) -> bool:
        return name in self.tools

    def call(self, name: str, args: Any, context: Context) -> HostOp:
        delay = self.delays.get(str(args.get("id")), 0.0)
        started = time.monotonic()
        result = ToolResult(structured_content={"id": args.get("id")}, has_structured_content=True)
        try:
            answer = yield Await(_later(delay, BackendAnswer(result, None, 0)), context)
        except ContextError as error:
            self.cancelled.append((str(args.get("id")), error.deadline))
            raise
        self.calls.append((name, args, started, time.monotonic()))
        return answer

    def elicit(self, message: str, schema: Any, context: Context) -> HostOp:
        answer = Elicited("accept", "accept", {"text": message.upper()})
        elicited: Elicited = yield Await(_later(0.05, answer), context)
        return elicited

    def log(self, message: str) -> None:
        self.logs.append(message)


def _later(seconds: float, value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    if seconds != NEVER:
        threading.Timer(seconds, future.set_result, (value,)).start()
    return future


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    started = Sandbox(LIMITS)
    yield started
    started.close()


def run(
    sandbox: Sandbox,
    script: str,
    backends: TimedBackends,
    call_timeout_ns: int = 5 * 60 * 10**9,
    then: Callable[[BackendsRelay], None] | None = None,
) -> Trace:
    relay = BackendsRelay(backends)
    request = LiveRequest(
        script, "script.star", {}, {}, 0, CENTRE, LIMITS.seconds, call_timeout_ns
    )
    if then is not None:
        threading.Timer(0.3, then, (relay,)).start()
    with sandbox.lock:
        return sandbox.run_live(request, relay)


PARALLEL = """\
def run(params):
    got = parallel([
        lambda: call_tool("t.get", {"id": "a"}),
        lambda: call_tool("t.get", {"id": "b"}),
    ])
    log("both")
    answer = elicit("go on?", {"type": "object"})
    return {"ids": [g["id"] for g in got], "answer": answer.content["text"]}
"""


def test_forwarded_calls_are_in_flight_together_and_log_and_elicit_reach_the_parent(
    sandbox: Sandbox,
) -> None:
    backends = TimedBackends({"a": 0.5, "b": 0.5})
    trace = run(sandbox, PARALLEL, backends)
    assert trace.outcome == "success", trace.error
    assert trace.output == {"ids": ["a", "b"], "answer": "GO ON?"}
    assert backends.logs == ["both"] and trace.logs == ["both"]
    assert [e.answer for e in trace.elicitations] == ["accept"]
    (_, _, start_a, end_a), (_, _, start_b, end_b) = backends.calls
    assert max(start_a, start_b) < min(end_a, end_b)
    assert [call.result for call in trace.calls] == ["ok", "ok"]


def test_a_call_past_its_deadline_is_cancelled_in_the_parent(sandbox: Sandbox) -> None:
    script = """\
def run(params):
    slow = try_call_tool("t.get", {"id": "slow"})
    missing = try_call_tool("t.other", {})
    return {"slow": slow.error, "missing": missing.error, "next": call_tool("t.get", {"id": "x"})}
"""
    backends = TimedBackends({"slow": NEVER})
    trace = run(sandbox, script, backends, call_timeout_ns=200_000_000)
    assert trace.output == {
        "slow": "context deadline exceeded",
        "missing": "tool not found: t.other",
        "next": {"id": "x"},
    }, trace.error
    assert backends.cancelled == [("slow", True)]
    assert [call.result for call in trace.calls] == ["cancelled", "ok"]


def test_a_stopped_run_cancels_what_it_waits_on(sandbox: Sandbox) -> None:
    script = SIMPLE.replace("ID", "slow")
    backends = TimedBackends({"slow": NEVER})
    started = time.monotonic()
    trace = run(sandbox, script, backends, then=BackendsRelay.stop)
    assert time.monotonic() - started < 10
    assert trace.outcome == "error" and "context canceled" in str(trace.error)
    assert backends.cancelled == [("slow", False)]


def test_the_memory_cap_holds_and_the_next_run_gets_a_new_sandbox(sandbox: Sandbox) -> None:
    script = (
        'def run(params):\n    call_tool("t.get", {"id": "a"})\n'
        '    return {"n": len([0] * 2000000000)}\n'
    )
    backends = TimedBackends({})
    with pytest.raises(ScriptLimitExceeded) as raised:
        run(sandbox, script, backends)
    assert raised.value.which == "memory" and not sandbox.alive()
    assert len(backends.calls) == 1
    fresh = Sandbox(LIMITS)
    try:
        trace = run(fresh, SIMPLE.replace("ID", "b"), backends)
    finally:
        fresh.close()
    assert trace.output == {"id": "b"}
