"""An ``elicitation`` step (``executeElicitationStep`` and its handler, S113, S120-S126).

The message is templated (the schema is not). The handler checks the message
is non-empty, the schema present, at most 100 KiB of JSON and 10 levels deep,
then asks the client and waits at most ``min(timeout or 5m, 10m)`` within the
step context (so also at most the step's and the workflow's remaining time).
A deadline while waiting counts as a timeout, handled by ``onCancel``; any
other requester error (cancellation by a failing sibling) is reported with
the ``elicitation request failed for step <s>: `` prefix twice. An accepted
answer's content must be at most 1 MiB of JSON and 10 levels deep; a
non-object content becomes a typed nil map.

Scenario answers: ``timeout: true`` never answers; ``delay`` is how long the
client takes. The trace records each request sent with the answer that
ended it: the scenario's answer, ``timeout`` for a deadline, or ``cancelled``.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from transpiler.composite.errors import GoError, from_context_error
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import Site
from transpiler.composite.session import Session
from transpiler.config.model import ElicitationResponseConfig, WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.strconv import quote
from transpiler.golang.values import NIL_MAP, GoValue
from transpiler.sim.kernel import ContextError, Operation, Sleep
from transpiler.sim.scenario import ElicitationAnswer
from transpiler.sim.trace import ElicitationRecord

MINUTE_NS = 60 * 1_000_000_000
DEFAULT_TIMEOUT_NS = 5 * MINUTE_NS
MAX_TIMEOUT_NS = 10 * MINUTE_NS
MAX_SCHEMA_BYTES = 100 * 1024
MAX_CONTENT_BYTES = 1024 * 1024
MAX_DEPTH = 10
DECLINED = "elicitation request was declined by user"
CANCELLED = "elicitation request was cancelled by user"
TIMED_OUT = "elicitation request timed out"


class _TimedOut:
    """The requester's wait ended with ``context.DeadlineExceeded``."""


TIMED_OUT_WAIT = _TimedOut()


def execute_elicitation_step(
    session: Session, context: GoContext, step: WorkflowStepConfig
) -> Generator[Operation, Any, GoError | None]:
    """Run one elicitation step in its step context; returns the error the DAG sees."""
    state = session.state
    message = step.message
    if message:
        expanded = session.expander.keyed_string(
            context, "message", message, Site(step.id, "message")
        )
        if isinstance(expanded, GoError):
            error = expanded.wrap_text(
                "template expansion failed: "
                f"failed to expand elicitation message for step {step.id}"
            )
            state.record_failure(step.id, error, session.now)
            return error
        message = expanded
    answer = yield from _request(session, context, step, message)
    if isinstance(answer, _TimedOut):
        return _apply_handler(session, step, step.on_cancel, "timeout")
    if isinstance(answer, GoError):
        error = answer.wrap(f"elicitation request failed for step {step.id}")
        state.record_failure(step.id, error, session.now)
        return error
    if answer.action == "accept":
        content = answer.content if isinstance(answer.content, dict) else NIL_MAP
        state.record_success(step.id, {"action": "accept", "content": content}, session.now)
        return None
    if answer.action == "decline":
        return _apply_handler(session, step, step.on_decline, "decline")
    if answer.action == "cancel":
        return _apply_handler(session, step, step.on_cancel, "cancel")
    error = GoError(
        f"invalid elicitation response action {quote(str(answer.action))} for step {step.id}"
    )
    state.record_failure(step.id, error, session.now)
    return error


def _request(
    session: Session, context: GoContext, step: WorkflowStepConfig, message: str
) -> Generator[Operation, Any, ElicitationAnswer | GoError | _TimedOut]:
    """``RequestElicitation``: validate, ask, wait for the answer or the end of the context."""
    if not message:
        return GoError("elicitation message is required")
    if step.schema is None:
        return GoError("elicitation schema is required")
    timeout = step.timeout if step.timeout > 0 else DEFAULT_TIMEOUT_NS
    schema_problem = schema_problem_of(step.schema)
    if schema_problem is not None:
        return GoError(f"invalid schema for step {step.id}: {schema_problem}")
    request_context = context.child(session.now + min(timeout, MAX_TIMEOUT_NS))
    answer = session.tools.backends.elicit()
    index = len(session.recorder.elicitations)
    record = ElicitationRecord(message, step.schema, answer.describe(), step.id)
    session.recorder.elicitations.append(record)
    wait = request_context.kernel_context.remaining_ns() or 0
    try:
        yield Sleep(wait + 1 if answer.timeout else answer.delay_ns, request_context.kernel_context)
    except ContextError as stop:
        outcome = "timeout" if stop.deadline else "cancelled"
        record = session.recorder.elicitations[index]
        session.recorder.elicitations[index] = replace(record, answer=outcome)
        if stop.deadline:
            return TIMED_OUT_WAIT
        return from_context_error(stop).wrap(f"elicitation request failed for step {step.id}")
    if answer.action == "accept" and answer.content is not None:
        content_problem = _content_problem(answer.content, step.id)
        if content_problem is not None:
            return content_problem
    return answer


def schema_problem_of(schema: GoValue) -> str | None:
    """``validateSchemaSize``: JSON size, then nesting depth."""
    try:
        size = len(marshal(schema).encode("utf-8", "surrogateescape"))
    except JSONEncodeError as error:
        return f"invalid schema: {error}"
    if size > MAX_SCHEMA_BYTES:
        return f"schema too large: {size} bytes (max {MAX_SCHEMA_BYTES})"
    return _depth_problem(schema)


def _content_problem(content: Any, step_id: str) -> GoError | None:
    """``validateContentSize`` then ``validateContentDepth`` of an accepted answer."""
    size = len(marshal(content).encode("utf-8", "surrogateescape"))
    if size > MAX_CONTENT_BYTES:
        return GoError(
            f"invalid response content for step {step_id}: "
            f"response content too large: {size} bytes (max {MAX_CONTENT_BYTES})"
        )
    depth = _depth_problem(content)
    if depth is not None:
        return GoError(f"invalid response content depth for step {step_id}: {depth}")
    return None


def _depth_problem(value: Any) -> str | None:
    """``validateSchemaDepth``: every value, scalars included, at depth ≤ 10 (root 0)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"schema nesting too deep: {depth} levels (max {MAX_DEPTH})"
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return None


def _apply_handler(
    session: Session,
    step: WorkflowStepConfig,
    handler: ElicitationResponseConfig | None,
    reason: str,
) -> GoError | None:
    """Decline, cancel and timeout handling (S125)."""
    state = session.state
    if handler is None:
        text = {"decline": DECLINED, "cancel": CANCELLED, "timeout": TIMED_OUT}[reason]
        error = GoError(f"{text}: step {step.id}")
    elif handler.action == "skip_remaining":
        state.record_success(step.id, {"action": reason, "skipped": True}, session.now)
        site = Site(step.id, "on" + reason.capitalize())
        session.recorder.quirks.add(Deviation.SKIP_REMAINING, site, f"answer: {reason}")
        taken = session.expander.variants.at(Deviation.SKIP_REMAINING, site) == "return"
        session.returning = session.returning or taken
        return None
    elif handler.action == "continue":
        state.record_success(step.id, {"action": reason}, session.now)
        state.continued_answers.add(step.id)
        return None
    elif handler.action == "abort":
        error = GoError(f"{DECLINED if reason == 'decline' else CANCELLED}: step {step.id}")
    else:
        error = GoError(f"invalid elicitation action: {handler.action}")
    state.record_failure(step.id, error, session.now)
    return error
