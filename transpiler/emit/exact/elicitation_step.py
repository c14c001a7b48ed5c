"""Code for an elicitation step: the message, ``elicit()``, onDecline/onCancel.

``vmcp_elicit`` asks the user and maps the answer the way vMCP's handler
does (S124, S125): accept completes with ``{action, content}``; decline and
cancel apply their handler (none or abort fail, continue completes with
``{action}``, skip_remaining completes with ``{action, skipped: True}`` and
skips nothing). The builtin reports an unanswered request as ``cancel``, so a
timeout follows onCancel like a cancel. The schema is a constant of the YAML:
vMCP's check of its size and depth (S121) is made here, and a schema it
refuses is passed to ``vmcp_elicit`` as ``schema_problem``.
"""

from __future__ import annotations

from typing import Any

from transpiler.config.model import ElicitationResponseConfig, WorkflowStepConfig
from transpiler.emit import ir
from transpiler.emit.exact.nodes import Body, assign, constant, string
from transpiler.emit.exact.scope import COMPLETED, EmitState
from transpiler.emit.exact.step_code import FAILED, Record, with_condition
from transpiler.golang.jsonenc import JSONEncodeError, marshal
from transpiler.golang.runes import go_bytes

MAX_SCHEMA_BYTES = 102400
MAX_SCHEMA_DEPTH = 10


def elicitation_step(
    state: EmitState, step: WorkflowStepConfig, record: Record, depth: int
) -> Body:
    """The whole step, condition included."""
    _notes(state, step)
    return with_condition(state, step, record, depth, lambda _: _run(state, step, record))


def _handler(config: ElicitationResponseConfig | None) -> str:
    return "" if config is None else config.action


def _run(state: EmitState, step: WorkflowStepConfig, record: Record) -> Body:
    message = state.template(step.message, state.env())
    arguments = (
        string(step.id),
        message.expr,
        constant(step.schema or {}),
        string(_handler(step.on_decline)),
        string(_handler(step.on_cancel)),
    )
    problem = schema_problem(step.schema or {})
    keywords = {} if problem is None else {"schema_problem": string(problem)}
    output = record.products.output
    if not step.continues_on_error:
        return [
            assign(output, ir.call("vmcp_elicit", *arguments, **keywords)),
            *record.completed(),
        ]
    outcome = ir.Name(state.variable(step.id, "_answer"))
    answer, problem_text = ir.Index(outcome, ir.Literal(0)), ir.Index(outcome, ir.Literal(1))
    answered = ir.Binary(problem_text, "==", ir.Literal(None))
    return [
        assign(outcome.id, ir.call("vmcp_elicit_outcome", *arguments, **keywords)),
        *record.ended(answer, ir.Unbroken(ir.Cond(COMPLETED, answered, FAILED)), problem_text),
    ]


def schema_problem(schema: Any) -> str | None:
    """What vMCP says of a schema over its limits (S121): its JSON size, then its depth."""
    try:
        size = len(go_bytes(marshal(schema)))
    except JSONEncodeError as error:
        return f"invalid schema: {error}"
    if size > MAX_SCHEMA_BYTES:
        return f"schema too large: {size} bytes (max {MAX_SCHEMA_BYTES})"
    level, depth = [schema], 0
    while level:
        if depth > MAX_SCHEMA_DEPTH:
            return f"schema nesting too deep: {depth} levels (max {MAX_SCHEMA_DEPTH})"
        level = [child for value in level for child in _children(value)]
        depth += 1
    return None


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    return value if isinstance(value, list) else []


def _notes(state: EmitState, step: WorkflowStepConfig) -> None:
    where = step.where.at
    state.note(
        "domain",
        "elicitation-answered",
        "the client answers every elicitation: the elicit() builtin reports an unanswered "
        "request as cancel after 10 minutes, where vMCP times out after the step timeout "
        "and reports timeout",
        step.id,
        where,
    )
    if (
        _handler(step.on_decline) == "skip_remaining"
        or _handler(step.on_cancel) == "skip_remaining"
    ):
        state.note(
            "quirk",
            "skip-remaining-skips-nothing",
            "onDecline/onCancel skip_remaining skips no step: the step completes with "
            "{action, skipped: True} and the workflow goes on, as vMCP does",
            step.id,
            where,
        )
