"""One step's lifecycle (``executeStep``, S60-S61, S64-S66, S103, S110).

Record ``running``; make the step context (deadline now + timeout, 5m by
default, capped by the workflow's; none under ``step-timeout: per-call``, where
each call has the script's limit instead, :mod:`.toolcall`); evaluate the condition in the *level*
context (an error fails the step, ``false`` records ``skipped`` with
``defaultResults`` as output); then run the step's type in the step context.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any, Final

from transpiler.composite.elicitation import execute_elicitation_step
from transpiler.composite.errors import DEADLINE_EXCEEDED, GoError
from transpiler.composite.foreach import execute_for_each_step
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import Site
from transpiler.composite.session import Session
from transpiler.composite.tool_step import execute_tool_step
from transpiler.config.model import (
    DEFAULT_STEP_TIMEOUT_NS,
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.deviations import Deviation
from transpiler.golang.duration import format_duration
from transpiler.sim.kernel import Operation

StepRunner = Callable[
    [Session, GoContext, WorkflowStepConfig, int, int], Generator[Operation, Any, GoError | None]
]

#: Each kind's body, run in the step context: (session, context, step, level, key).
_RUNNERS: Final[Mapping[StepKind, StepRunner]] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: lambda session, context, step, level, _key: execute_tool_step(
            session, context, step, level
        ),
        StepKind.ELICITATION: lambda session, context, step, _level, _key: execute_elicitation_step(
            session, context, step
        ),
        StepKind.FOR_EACH: execute_for_each_step,
    },
)


def execute_step(
    session: Session, level_context: GoContext, step: WorkflowStepConfig, level: int, key: int
) -> Generator[Operation, Any, GoError | None]:
    """Run one top-level step; returns the error the level sees."""
    session.state.record_start(step.id, level)
    timeout = step.timeout if step.timeout > 0 else DEFAULT_STEP_TIMEOUT_NS
    site = Site(step.id, "timeout")
    calls_tools = step.kind_row is not None and step.kind_row.calls_tools
    variant = session.expander.variants.at(Deviation.STEP_TIMEOUT, site)
    per_call = calls_tools and variant == "per-call"
    if per_call:
        session.call_limited.add(step.id)
    deadline = session.now + timeout
    step_context = level_context.child(None if per_call else deadline)
    error = yield from _execute(session, level_context, step_context, step, level, key)
    # The step's own deadline ended it, or would have (a script has none: ``step-timeout``).
    passed = session.now >= deadline if per_call else step_context.err() == DEADLINE_EXCEEDED
    if calls_tools and passed and level_context.err() is None:
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
    if step.kind is not None:
        return (yield from _RUNNERS[step.kind](session, step_context, step, level, key))
    error = GoError(f"unsupported step type: {step.effective_type}")
    state.record_failure(step.id, error, session.now)
    return error
