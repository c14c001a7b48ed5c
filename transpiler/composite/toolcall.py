"""One tool call with vMCP's retries (``callToolWithRetry``, S86, S90-S93).

Retries happen only under ``onError.action: retry``: ``retryCount`` capped at
10, first interval ``retryDelay`` or 1s. Waits come from
:class:`transpiler.sim.backoff.Backoff`: before retry *k* the wait is drawn
from ``[0.5*c_k, 1.5*c_k + 1ns)`` where ``c_1`` is the initial interval and
``c_{k+1} = min(trunc(1.5*c_k), 60*initial)``; the canonical jitter takes
``c_k`` itself (1s, 1.5s, 2.25s, … for the default), a seeded one samples
the range. Within the 10-retry cap the interval never reaches its 60x cap
(1.5^9 < 40). Retrying stops when ``elapsed + next wait > 15m`` (the last
attempt's error stands).

After a failed attempt with tries left, a done context ends the loop with
``context.Cause(ctx)``: ``context deadline exceeded`` for a deadline, but the
*first error of the level or forEach loop* when a sibling's failure cancelled
it (errgroup cancels with a cause). A wait cut short ends the same way.

An attempt is issued (recorded; the backend answers) at its start instant and
takes the answer's ``delay``; a context ending first fails the attempt with
``context canceled``/``context deadline exceeded`` at that instant. An
attempt on an already-done context never reaches the backend.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from transpiler.composite.errors import GoError, from_context_error
from transpiler.composite.gocontext import GoContext
from transpiler.composite.paramheaders import mirror_error
from transpiler.composite.quirks import Site
from transpiler.composite.session import Session
from transpiler.config.model import StepErrorHandling
from transpiler.deviations import Deviation
from transpiler.golang.duration import format_duration
from transpiler.golang.jsonenc import JSONEncodeError, check_marshal
from transpiler.golang.strconv import quote
from transpiler.golang.values import GoValue
from transpiler.profile import CALL_TIMEOUT_NS
from transpiler.sim.backoff import Backoff
from transpiler.sim.kernel import ContextError, Operation, Sleep
from transpiler.sim.mcp import attempt_failure
from transpiler.sim.scenario import ToolResult
from transpiler.sim.trace import CallRecord

RESULT_OK = "ok"
RESULT_IS_ERROR = "isError"
RESULT_TRANSPORT = "transport"
RESULT_CANCELLED = "cancelled"


@dataclass(frozen=True)
class CallOutcome:
    """What ``callToolWithRetry`` returns: the result or the error, and attempts − 1."""

    value: ToolResult | GoError
    retry_count: int


@dataclass(frozen=True)
class CallRequest:
    """Who calls which tool with what, for the trace and the error texts."""

    step_id: str
    tool: str
    arguments: dict[str, GoValue] | None
    on_error: StepErrorHandling | None
    group: str
    jitter_key: str
    #: The workflow step the call belongs to, when not ``step_id`` (a forEach's inner step).
    owner: str | None = None


def retry_config(on_error: StepErrorHandling | None) -> tuple[int, int]:
    """``getRetryConfig``: (retries, initial delay in ns) (S90).

    A negative count (rejected by validation) makes Go's ``uint`` try limit
    wrap around, so only the 15-minute budget stops it.
    """
    if on_error is None or on_error.action != "retry":
        return 0, 0
    return on_error.retries, max(on_error.retry_delay, 0)


def call_with_retry(
    session: Session, context: GoContext, request: CallRequest
) -> Generator[Operation, Any, CallOutcome]:
    """Run attempts until one succeeds, tries run out, or the context ends."""
    header_problem = mirror_error(session.tools.headers(request.tool), request.arguments)
    if header_problem is not None:
        return CallOutcome(
            GoError(
                f"deriving parameter headers for step {quote(request.step_id)} tool "
                f"{quote(request.tool)}: {header_problem}"
            ),
            0,
        )
    retries, initial_ns = retry_config(request.on_error)
    backoff = Backoff(initial_ns)
    started_ns = session.now
    attempts = 0
    while True:
        attempts += 1
        answer = yield from _attempt(session, context, request, attempts)
        if not isinstance(answer, GoError) or 0 <= retries < attempts:
            return CallOutcome(answer, attempts - 1)
        cause = context.cause()
        if cause is not None:
            return CallOutcome(cause, attempts - 1)
        wait = backoff.next_wait(
            session.now - started_ns, session.jitter, request.jitter_key, attempts
        )
        if wait is None:
            return CallOutcome(answer, attempts - 1)
        try:
            yield Sleep(wait.ns, context.kernel_context, wait.spread)
        except ContextError:
            return CallOutcome(context.cause() or answer, attempts - 1)


def _attempt(
    session: Session, context: GoContext, request: CallRequest, attempt: int
) -> Generator[Operation, Any, ToolResult | GoError]:
    done = context.err()
    if done is not None:
        return done
    arguments: dict[str, GoValue] = {} if request.arguments is None else request.arguments
    try:
        check_marshal(arguments)
    except JSONEncodeError as error:
        return GoError(str(error))
    answer = session.tools.call(request.tool, arguments)
    start = session.now
    index = session.recorder.call_started(
        CallRecord(
            request.tool,
            arguments,
            attempt,
            start,
            start,
            request.group,
            RESULT_CANCELLED,
            request.owner or request.step_id,
            session.kernel.window(),
        )
    )
    owner = request.owner or request.step_id
    if answer.delay_ns >= CALL_TIMEOUT_NS:
        taking = f"a call of {format_duration(answer.delay_ns)}"
        session.recorder.quirks.add(Deviation.STEP_TIMEOUT, Site(owner, "timeout"), taking)
    if answer.delay_ns > 0:
        limited = owner in session.call_limited
        waiting = context.child(start + CALL_TIMEOUT_NS) if limited else context
        try:
            yield Sleep(answer.delay_ns, waiting.kernel_context)
        except ContextError as error:
            session.recorder.call_finished(index, session.now, RESULT_CANCELLED)
            if limited and error.deadline and context.err() is None:
                return GoError(str(error))  # the script's call limit: not a timeout of the run
            return from_context_error(error)
    failure = attempt_failure(answer)
    if failure is not None:
        kind = RESULT_TRANSPORT if answer.transport_error is not None else RESULT_IS_ERROR
        session.recorder.call_finished(index, session.now, kind)
        return GoError(failure)
    if answer.result is None:
        session.recorder.call_finished(index, session.now, RESULT_TRANSPORT)
        return GoError(f"nil tool result for step {request.step_id}")
    session.recorder.call_finished(index, session.now, RESULT_OK)
    return answer.result
