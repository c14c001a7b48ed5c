"""One step's lifecycle (``executeStep``, S60-S61, S64-S66, S103, S110).

Record ``running``; make the step context (deadline now + timeout, 5m by
default, capped by the workflow's; none under ``step-timeout: per-call``, where
each call has the script's limit instead, :mod:`.toolcall`); evaluate the condition in the *level*
context (an error fails the step, ``false`` records ``skipped`` with
``defaultResults`` as output); then run the step's type in the step context.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from transpiler.composite.elicitation import execute_elicitation_step
from transpiler.composite.errors import DEADLINE_EXCEEDED, GoError
from transpiler.composite.foreach import execute_for_each_step
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import Site
from transpiler.composite.session import Session
from transpiler.composite.tool_step import execute_tool_step
from transpiler.config.model import (
    DEFAULT_STEP_TIMEOUT_NS,
    STEP_ELICITATION,
    STEP_FOR_EACH,
    STEP_TOOL,
    WorkflowStepConfig,
)
from transpiler.deviations import Deviation
from transpiler.golang.duration import format_duration
from transpiler.sim.kernel import Operation


def execute_step(
    session: Session, level_context: GoContext, step: WorkflowStepConfig, level: int, key: int
) -> Generator[Operation, Any, GoError | None]:
    """Run one top-level step; returns the error the level sees."""
    session.state.record_start(step.id, level)
    timeout = step.timeout if step.timeout > 0 else DEFAULT_STEP_TIMEOUT_NS
    site = Site(step.id, "timeout")
    kind = step.effective_type
    per_call = (
        kind in (STEP_TOOL, STEP_FOR_EACH)
        and session.expander.variants.at(Deviation.STEP_TIMEOUT, site) == "per-call"
    )
    if per_call:
        session.call_limited.add(step.id)
    deadline = session.now + timeout
    step_context = level_context.child(None if per_call else deadline)
    error = yield from _execute(session, level_context, step_context, step, level, key)
    # The step's own deadline ended it, or would have (a script has none: ``step-timeout``).
    passed = session.now >= deadline if per_call else step_context.err() == DEADLINE_EXCEEDED
    if kind in (STEP_TOOL, STEP_FOR_EACH) and passed and level_context.err() is None:
        session.recorder.quirks.add(Deviation.STEP_TIMEOUT, site, _timeout_text(step))
    return error


def _timeout_text(step: WorkflowStepConfig) -> str:
    if step.timeout > 0:
        return f"timeout {format_duration(step.timeout)}"
    return f"timeout unset ({format_duration(DEFAULT_STEP_TIMEOUT_NS)})"


def _execute(
    session: Session,
    level_context: GoContext,
    step_context: GoContext,
    step: WorkflowStepConfig,
    level: int,
    key: int,
) -> Generator[Operation, Any, GoError | None]:
    """The step's condition, then its type's body, in the step context."""
    state = session.state
    if session.returning:  # skip-remaining: return, taken by an earlier step
        state.record_skipped(step.id, level, step.default_results, session.now)
        return None
    if step.condition:
        verdict = session.expander.condition(
            level_context, step.condition, Site(step.id, "condition", "condition")
        )
        if isinstance(verdict, GoError):
            error = verdict.wrap_text(
                f"template expansion failed: failed to evaluate condition for step {step.id}"
            )
            state.record_failure(step.id, error, session.now)
            return error
        if not verdict:
            state.record_skipped(step.id, level, step.default_results, session.now)
            return None
    kind = step.effective_type
    if kind == STEP_TOOL:
        return (yield from execute_tool_step(session, step_context, step, level))
    if kind == STEP_ELICITATION:
        return (yield from execute_elicitation_step(session, step_context, step))
    if kind == STEP_FOR_EACH:
        return (yield from execute_for_each_step(session, step_context, step, level, key))
    error = GoError(f"unsupported step type: {kind}")
    state.record_failure(step.id, error, session.now)
    return error
