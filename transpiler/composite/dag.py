"""The DAG executor (``dagExecutor``, S50-S56).

Levels come from Kahn's algorithm (S50): level *k* holds the unprocessed steps
whose ``dependsOn`` entries (duplicates counted) all lie in earlier levels.
Levels run strictly one after another (S51). A level starts all its steps at
once, as kernel threads keyed by declaration order, so the kernel's
ready-thread choice stands for Go's map order and goroutine scheduling (R1).
Each step takes one of the execution's 10 slots (S52); a step that finds the
level cancelled while waiting, or once it holds a slot, ends unrecorded (S53).
A step error cancels the level with that error as the cause, unless the step
has ``onError: continue`` (S54); the first error fails the workflow with
``level execution failed: <err>``. Nothing is skipped on a dependency's
failure (S56).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from transpiler.composite.errors import GoError
from transpiler.composite.gocontext import ErrGroup, GoContext, StepBody
from transpiler.composite.session import Session
from transpiler.composite.step import execute_step
from transpiler.config.model import WorkflowStepConfig
from transpiler.sim.kernel import Acquire, ContextError, Operation, Semaphore

MAX_PARALLEL_STEPS = 10


class CycleError(ValueError):
    """No step of the remaining ones has all its dependencies met."""


Levels = tuple[tuple[WorkflowStepConfig, ...], ...]
_PLANS: dict[int, tuple[tuple[WorkflowStepConfig, ...], Levels | str]] = {}
_PLANS_KEPT = 64


def build_levels(steps: tuple[WorkflowStepConfig, ...]) -> Levels:
    """``buildExecutionLevels``; each level in declaration order.

    Worked out once per tool (its steps), not once per run: the last few
    tools' levels (or cycle) are kept.
    """
    held = _PLANS.get(id(steps))
    if held is None or held[0] is not steps:
        try:
            plan: Levels | str = _kahn(steps)
        except CycleError as cycle:
            plan = str(cycle)
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.pop(next(iter(_PLANS)), None)
        held = _PLANS[id(steps)] = (steps, plan)  # the steps held, so their id is not reused
    if isinstance(held[1], str):
        raise CycleError(held[1])
    return held[1]


def _kahn(steps: tuple[WorkflowStepConfig, ...]) -> Levels:
    in_degree = {step.id: len(step.depends_on) for step in steps}
    dependents: dict[str, list[str]] = {step.id: [] for step in steps}
    for step in steps:
        for dependency in step.depends_on:
            dependents.setdefault(dependency, []).append(step.id)
    levels: list[list[WorkflowStepConfig]] = []
    processed: set[str] = set()
    while len(processed) < len(in_degree):
        level = [s for s in steps if in_degree[s.id] == 0 and s.id not in processed]
        if not level:
            raise CycleError(
                "circular dependency detected: "
                "topological sort failed - no steps with zero dependencies"
            )
        levels.append(level)
        processed.update(step.id for step in level)
        for step in level:
            for dependent in dependents[step.id]:
                in_degree[dependent] -= 1
    return tuple(tuple(level) for level in levels)


def execute_dag(
    session: Session, context: GoContext, steps: tuple[WorkflowStepConfig, ...]
) -> Generator[Operation, Any, GoError | None]:
    """``executeDAG``: every level in order; the first level error stops the workflow."""
    if not steps:
        return None
    try:
        levels = build_levels(steps)
    except CycleError as cycle:
        return GoError(f"failed to build execution levels: {cycle}")
    slots = session.kernel.semaphore(MAX_PARALLEL_STEPS)
    order = {step.id: index for index, step in enumerate(steps)}
    for number, level in enumerate(levels):
        group = ErrGroup(context)
        for step in level:
            body = _step_goroutine(session, group.context, slots, step, number, order[step.id])
            group.go(body, (order[step.id],), step.id)
        error = yield from group.wait()
        if error is not None:
            return error.wrap("level execution failed")
    return None


def _step_goroutine(
    session: Session,
    level_context: GoContext,
    slots: Semaphore,
    step: WorkflowStepConfig,
    level: int,
    key: int,
) -> StepBody:
    """The per-step wrapper run by the level's errgroup (S53, S54)."""
    try:
        yield Acquire(slots, level_context.kernel_context)
    except ContextError:
        return level_context.err()
    try:
        done = level_context.err()
        error = (
            done
            if done is not None
            else (yield from execute_step(session, level_context, step, level, key))
        )
    finally:
        slots.release()
    if error is not None and step.continues_on_error:
        session.recorder.logs.append(
            f"step {step.id}: error swallowed (onError continue): {error.text}"
        )
        return None
    return error
