"""What the builtins do, independent of which interpreter runs the script.

Each blocking builtin is a generator over kernel operations, so both engines
(starlark-rust with replay, go.starlark.net over a pipe) drive the very same
semantics on the same backends and clock. Control flow that needs the
interpreter (calling ``fn`` in ``retry``, branches in ``parallel``) lives in the
engines; the bookkeeping they share lives here.

The backends are the one seam between a run and the world
(:class:`ScriptBackends`): :class:`SimulatedScriptBackends` answers from a
scenario on the virtual clock; ``serve`` answers from real MCP servers on a
real clock (``transpiler/serve/live.py``).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from transpiler.golang.duration import parse_duration
from transpiler.profile import (
    CALL_TIMEOUT_NS,
    ELICITATION_TIMEOUT_NS,
    LOG_TRUNCATED,
    MAX_LOG_BYTES,
    PARALLEL_CAP,
)
from transpiler.sim.backends import BackendAnswer, SimulatedBackends
from transpiler.sim.backoff import CENTRE, Backoff, Jitter
from transpiler.sim.kernel import Context, ContextError, Kernel, Operation, Semaphore, Sleep, Thread
from transpiler.sim.mcp import attempt_failure, output_map
from transpiler.sim.trace import CallRecord, ElicitationRecord
from transpiler.starlark_runtime.values import from_script, to_script

HostOp = Generator[Operation, Any, Any]


class ScriptHalt(Exception):
    """A builtin halts the script with this message."""


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result as ``try_call_tool`` reports it."""

    ok: bool
    error: str | None
    output: Any

    def as_script_value(self) -> list[Any]:
        """``[ok, error, output]`` for the prelude to wrap in a struct."""
        return [self.ok, self.error, to_script(self.output) if self.ok else None]


@dataclass
class RetryPolicy:
    """One ``retry()`` call: its limits and backoff state."""

    max_attempts: int
    backoff: Backoff
    started_ns: int
    who: str
    failures: int = 0


@dataclass(frozen=True)
class Elicited:
    """The client's answer to one ``elicit``: how a trace records it (accept, decline, cancel
    or timeout), the action the script sees, and the content of an accepted form."""

    answer: str
    action: str
    content: Any = None


class ScriptBackends(Protocol):
    """What a run's builtins reach: backend tools and the client (a scenario's, or real ones)."""

    @property
    def incomplete(self) -> bool:
        """Whether a call or an elicitation found no answer in the scenario."""

    def has_tool(self, name: str) -> bool:
        """Whether a tool of this name is routed to a backend."""

    def call(self, name: str, args: Any, context: Context) -> HostOp:
        """Call one tool; returns its :class:`BackendAnswer`, or raises the ContextError of
        ``context`` (the call's deadline, or its run cancelled) when that ends first."""

    def elicit(self, message: str, schema: Any, context: Context) -> HostOp:
        """Ask the client; returns :class:`Elicited` (``context`` ending first: ``cancel``)."""

    def log(self, message: str) -> None:
        """Pass on one ``log()`` line the run keeps."""


class SimulatedScriptBackends:
    """A scenario's backends and client answers on the virtual clock: each answer takes its
    ``delay``; an elicitation answer marked ``timeout`` never comes."""

    def __init__(self, backends: SimulatedBackends) -> None:
        self._backends = backends

    @property
    def incomplete(self) -> bool:
        """Whether a call or an elicitation found no answer in the scenario."""
        return self._backends.incomplete

    def has_tool(self, name: str) -> bool:
        """Whether the scenario has the tool."""
        return self._backends.has_tool(name)

    def call(self, name: str, args: Any, context: Context) -> HostOp:
        """The scenario's answer, after its delay."""
        answer: BackendAnswer = self._backends.call(name, args)
        yield Sleep(answer.delay_ns, context)
        return answer

    def elicit(self, message: str, schema: Any, context: Context) -> HostOp:
        """The scenario's next answer, after its delay (a timeout waits out ``context``)."""
        answer = self._backends.elicit()
        described = answer.describe()
        try:
            yield Sleep(ELICITATION_TIMEOUT_NS if answer.timeout else answer.delay_ns, context)
        except ContextError:
            return Elicited(described, "cancel")
        if answer.timeout:
            return Elicited(described, "cancel")
        content = answer.content if answer.action == "accept" else None
        return Elicited(described, str(answer.action), content)

    def log(self, message: str) -> None:
        """Nothing: the trace keeps the run's lines."""


@dataclass
class RunState:
    """Everything one ``tools/call`` of a script shares across its threads: ``params`` are
    its arguments; each backend call may take ``call_timeout_ns`` (THV-0051's 5 minutes)."""

    kernel: Kernel
    backends: ScriptBackends
    params: Mapping[str, Any]
    root: Context
    jitter: Jitter = CENTRE
    call_timeout_ns: int = CALL_TIMEOUT_NS
    calls: list[CallRecord] = field(default_factory=list)
    elicitations: list[ElicitationRecord] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    logged_bytes: int = 0

    def call_tool(self, context: Context, group: str, attempt: int, name: Any, args: Any) -> HostOp:
        """Call a backend tool; returns a :class:`ToolOutcome` (never raises for call failures)."""
        if not isinstance(name, str) or not name:
            raise ScriptHalt(f"call_tool: tool name must be a non-empty string, got {name!r}")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ScriptHalt(f"call_tool: arguments must be a dict, got {type(args).__name__}")
        if context.error is not None:
            return ToolOutcome(False, str(context.error), None)
        if not self.backends.has_tool(name):
            return ToolOutcome(False, f"tool not found: {name}", None)
        go_args = from_script(args)
        start = self.kernel.now
        index = len(self.calls)
        call = CallRecord(
            name, go_args, attempt, start, start, group, "pending", window=self.kernel.window()
        )
        self.calls.append(call)
        call_context = context.child(self.kernel.now + self.call_timeout_ns)
        try:
            answer = yield from self.backends.call(name, go_args, call_context)
        except ContextError as error:
            self.calls[index] = replace(call, end_ns=self.kernel.now, result="cancelled")
            return ToolOutcome(False, str(error), None)
        failure = attempt_failure(answer)
        verdict = "ok" if failure is None else ("transport" if answer.result is None else "isError")
        self.calls[index] = replace(call, end_ns=self.kernel.now, result=verdict)
        if failure is not None:
            return ToolOutcome(False, failure, None)
        assert answer.result is not None
        return ToolOutcome(True, None, output_map(answer.result))

    def elicit(self, context: Context, message: Any, schema: Any) -> HostOp:
        """Ask the client; returns ``[action, content]`` (a timeout reads as ``cancel``)."""
        if not isinstance(message, str):
            raise ScriptHalt(f"elicit: message must be a string, got {type(message).__name__}")
        if schema is None:
            schema = {}
        if not isinstance(schema, dict):
            raise ScriptHalt(f"elicit: schema must be a dict, got {type(schema).__name__}")
        go_schema = from_script(schema)
        index = len(self.elicitations)
        self.elicitations.append(ElicitationRecord(message, go_schema, "pending"))
        wait_context = context.child(self.kernel.now + ELICITATION_TIMEOUT_NS)
        elicited: Elicited = yield from self.backends.elicit(message, go_schema, wait_context)
        self.elicitations[index] = ElicitationRecord(message, go_schema, elicited.answer)
        content = elicited.content
        return [elicited.action, to_script(content) if isinstance(content, dict) else None]

    def log(self, message: Any) -> None:
        """Record a ``log()`` line, while the run's lines together stay within
        :data:`MAX_LOG_BYTES` (the line that crosses it is cut, and the run's log says so)."""
        if not isinstance(message, str):
            raise ScriptHalt(f"log: message must be a string, got {type(message).__name__}")
        room = MAX_LOG_BYTES - self.logged_bytes
        if room <= 0:
            return
        data = message.encode("utf-8", "surrogatepass")
        self.logged_bytes += len(data)
        kept = [message]
        if len(data) > room:
            kept = [data[:room].decode("utf-8", "ignore"), LOG_TRUNCATED]
        self.logs += kept
        for line in kept:
            self.backends.log(line)

    def retry_policy(self, max_attempts: Any, delay: Any, who: str) -> RetryPolicy:
        """Validate ``retry``'s arguments and start its backoff."""
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ScriptHalt(f"retry: max_attempts must be a positive int, got {max_attempts!r}")
        if not isinstance(delay, str):
            raise ScriptHalt(f"retry: delay must be a duration string, got {delay!r}")
        try:
            delay_ns = parse_duration(delay)
        except ValueError as error:
            raise ScriptHalt(f"retry: {error}") from None
        return RetryPolicy(max_attempts, Backoff(delay_ns), self.kernel.now, who)

    def retry_wait(self, context: Context, policy: RetryPolicy) -> HostOp:
        """After a failed attempt: wait the backoff; returns False when no attempt is left."""
        policy.failures += 1
        if policy.failures >= policy.max_attempts:
            return False
        wait = policy.backoff.next_wait(
            self.kernel.now - policy.started_ns, self.jitter, policy.who, policy.failures
        )
        if wait is None:
            return False
        try:
            yield Sleep(wait.ns, context, wait.spread)
        except ContextError as error:
            raise ScriptHalt(str(error)) from None
        return True


@dataclass(eq=False)
class ParallelGroup:
    """One ``parallel()`` call: its slot pool and shared context (errgroup)."""

    semaphore: Semaphore
    context: Context
    first_error: str | None = None

    def record_failure(self, error: str) -> None:
        """The first failing branch cancels the others and is what ``parallel`` reports."""
        if self.first_error is None:
            self.first_error = error
            self.context.cancel()


@dataclass(eq=False, kw_only=True)
class ScriptThread:
    """What both engines keep about one script thread (main, or a parallel branch)."""

    path: tuple[int, ...]
    context: Context
    label: str
    group: ParallelGroup | None = None
    kthread: Thread | None = None
    holds_slot: bool = False
    parallels: int = 0
    retry_calls: int = 0

    def next_parallel(self) -> int:
        """The number of the thread's next ``parallel()`` call."""
        self.parallels += 1
        return self.parallels - 1

    def next_retry_name(self) -> str:
        """A stable name for the thread's next ``retry()`` call (keys its jitter)."""
        self.retry_calls += 1
        return f"{self.label}/retry-{self.retry_calls - 1}"

    def branch_path(self, number: int, index: int) -> tuple[tuple[int, ...], str]:
        """Path and label of branch ``index`` of this thread's parallel call ``number``."""
        return (*self.path, number, index), f"{self.label}/parallel-{number}/{index}"

    def ended(self, error: str | None) -> None:
        """Give back the branch's slot; a failure fails its group."""
        if self.group is None:
            return
        if self.holds_slot:
            self.group.semaphore.release()
            self.holds_slot = False
        if error is not None:
            self.group.record_failure(error)


def new_group(state: RunState, parent: ScriptThread) -> ParallelGroup:
    """The slot pool (PARALLEL_CAP) and cancellable context of a new parallel call."""
    return ParallelGroup(state.kernel.semaphore(PARALLEL_CAP), parent.context.child())
