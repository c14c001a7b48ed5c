"""One step's lifecycle (``executeStep``, S60-S61, S64-S66, S103, S110).

Record ``running``; make the step context (deadline now + timeout, 5m by
default, capped by the workflow's); evaluate the condition in the *level*
context (an error fails the step, ``false`` records ``skipped`` with
``defaultResults`` as output); then run the step's type in the step context.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from transpiler.composite.elicitation import execute_elicitation_step
from transpiler.composite.errors import GoError
from transpiler.composite.foreach import execute_for_each_step
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import Site
from transpiler.composite.session import Session
from transpiler.composite.tool_step import execute_tool_step
from transpiler.config.model import STEP_ELICITATION, STEP_FOR_EACH, STEP_TOOL, WorkflowStepConfig
from transpiler.sim.kernel import Operation

DEFAULT_STEP_TIMEOUT_NS = 5 * 60 * 1_000_000_000


def execute_step(
    session: Session, level_context: GoContext, step: WorkflowStepConfig, level: int, key: int
) -> Generator[Operation, Any, GoError | None]:
    """Run one top-level step; returns the error the level sees."""
    state = session.state
    state.record_start(step.id, level)
    timeout = step.timeout if step.timeout > 0 else DEFAULT_STEP_TIMEOUT_NS
    step_context = level_context.child(session.now + timeout)
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
