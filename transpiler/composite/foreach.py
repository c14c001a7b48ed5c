"""A ``forEach`` step (``executeForEachStep``, S130-S136).

The collection template renders to JSON text that must decode to an array
(``null`` is an empty one), of at most ``maxIterations`` items (the step's
``iteration_limit``). Every iteration starts at once and waits for one of
``maxParallel`` slots (the step's ``parallel_limit``) of the loop's own pool;
the loop runs in an errgroup inside the step context. An iteration expands the inner
step's arguments with ``.forEach = {<itemVar>: item, index: i}``, coerces,
routes and calls with the inner step's retries. Without ``onError: continue``
on the forEach step, the first failing iteration (in time) cancels the loop:
waiting iterations record ``cancelled``, running calls are cut, and the step
fails with ``forEach step <s> iteration <i>: <msg>``, keeping the aggregate
as its output. With ``continue`` every iteration runs and the step completes.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from transpiler.composite.errors import GoError
from transpiler.composite.gocontext import ErrGroup, GoContext
from transpiler.composite.quirks import Site, judge_for_each_concurrency
from transpiler.composite.session import Session
from transpiler.composite.tool_step import arguments_sent, route_error
from transpiler.composite.toolcall import CallRequest, call_with_retry
from transpiler.composite.variants import ScriptStopped
from transpiler.config.model import WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.runes import to_valid_utf8
from transpiler.golang.values import NIL_MAP, GoValue
from transpiler.profile import PARALLEL_CAP
from transpiler.sim.kernel import Acquire, ContextError, Operation, Semaphore
from transpiler.sim.mcp import output_map

COLLECTION_PREVIEW_RUNES = 100


@dataclass
class Iteration:
    """One iteration's outcome (``iterationResult``)."""

    index: int
    item: GoValue
    status: str
    output: GoValue = NIL_MAP
    error: str = ""

    def to_go(self) -> dict[str, GoValue]:
        """The iteration as templates see it in ``iterations``."""
        entry: dict[str, GoValue] = {
            "index": self.index,
            "item": self.item,
            "status": self.status,
            "output": self.output,
        }
        if self.error:
            entry["error"] = self.error
        return entry


def aggregate(iterations: list[Iteration], count: int) -> dict[str, GoValue]:
    """``buildForEachOutput`` (S136): iterations in index order and int counters."""
    completed = sum(1 for iteration in iterations if iteration.status == "completed")
    return {
        "iterations": [iteration.to_go() for iteration in iterations],
        "count": count,
        "completed": completed,
        "failed": len(iterations) - completed,
    }


def execute_for_each_step(
    session: Session, context: GoContext, step: WorkflowStepConfig, level: int, key: int
) -> Generator[Operation, Any, GoError | None]:
    """Run one forEach step in its step context; returns the error the DAG sees."""
    state = session.state
    inner = step.inner_step
    if inner is None:
        missing = GoError(f"forEach step {step.id}: inner step is nil")
        state.record_failure(step.id, missing, session.now)
        return missing
    items = _collection(session, context, step)
    if isinstance(items, GoError):
        state.record_failure(step.id, items, session.now)
        return items
    if not items:
        state.record_success(step.id, aggregate([], 0), session.now)
        return None
    site = Site(step.id, "forEach")
    judge_for_each_concurrency(
        session.recorder.quirks, site, step.parallel_limit, PARALLEL_CAP, len(items)
    )
    capped = session.expander.variants.at(Deviation.PARALLEL_CAP, site) == "cap"
    slots = session.kernel.semaphore(PARALLEL_CAP if capped else step.parallel_limit)
    loop = ErrGroup(context)
    keep_going = step.continues_on_error
    results: list[Iteration] = [Iteration(i, item, "cancelled") for i, item in enumerate(items)]
    for index in range(len(items)):
        body = _iteration(
            session, loop.context, slots, step, inner, level, results[index], keep_going
        )
        loop.go(body, (key, index), f"{step.id}[{index}]")
    failure = yield from loop.wait()
    output = aggregate(results, len(items))
    if failure is not None and not keep_going:
        state.record_failure(step.id, failure, session.now)
        state.set_output(step.id, output)
        return failure
    state.record_success(step.id, output, session.now)
    return None


def _collection(
    session: Session, context: GoContext, step: WorkflowStepConfig
) -> list[GoValue] | GoError:
    """``prepareForEachCollection``: render, decode as a JSON array, check the size."""
    site = Site(step.id, "collection", "collection")
    rendered = session.expander.string(context, step.collection, site)
    if isinstance(rendered, GoError):
        return rendered.wrap(f"forEach step {step.id}: failed to expand collection template")
    items = _json_array(rendered)
    if items is None:
        if session.expander.template_failed(site, "collection is not a JSON array"):
            raise ScriptStopped(Deviation.TEMPLATE_ERROR, site)  # a script's plain loop fails too
        preview = (
            rendered
            if len(rendered) <= COLLECTION_PREVIEW_RUNES
            else (to_valid_utf8(rendered[:COLLECTION_PREVIEW_RUNES]) + "...")
        )
        return GoError(
            f"forEach step {step.id}: collection must resolve to a JSON array, got: {preview}"
        )
    limit = step.iteration_limit
    if len(items) > limit:
        return GoError(
            f"forEach step {step.id}: collection size {len(items)} exceeds maxIterations {limit}"
        )
    return items


def _json_array(text: str) -> list[GoValue] | None:
    """``json.Unmarshal`` into ``[]any``: the items, ``[]`` for ``null``, None on any error."""
    try:
        value = unmarshal(text)
    except JSONDecodeError:
        return None
    if value is None:
        return []
    return value if isinstance(value, list) else None


def _iteration(
    session: Session,
    context: GoContext,
    slots: Semaphore,
    step: WorkflowStepConfig,
    inner: WorkflowStepConfig,
    level: int,
    result: Iteration,
    keep_going: bool,
) -> Generator[Operation, Any, GoError | None]:
    """One iteration goroutine: take a slot (or see the loop cancelled), run, report."""
    try:
        yield Acquire(slots, context.kernel_context)
    except ContextError:
        done = context.err()
        result.error = done.text if done is not None else ""
        return done
    try:
        yield from _run_iteration(session, context, step, inner, level, result)
    finally:
        slots.release()
    if result.error and not keep_going:
        return GoError(f"forEach step {step.id} iteration {result.index}: {result.error}")
    return None


def _run_iteration(
    session: Session,
    context: GoContext,
    step: WorkflowStepConfig,
    inner: WorkflowStepConfig,
    level: int,
    result: Iteration,
) -> Generator[Operation, Any, None]:
    """``executeForEachIteration``: fills ``result``."""
    for_each: dict[str, GoValue] = {step.item_name: result.item}
    for_each["index"] = result.index
    expanded = session.expander.arguments(
        context, inner.arguments, Site(step.id, "step.arguments"), for_each
    )
    result.status = "failed"
    if isinstance(expanded, GoError):
        result.error = f"template expansion failed: {expanded.text}"
        return
    arguments = arguments_sent(session, Site(step.id, "step.arguments"), inner.tool, expanded)
    if not session.tools.routable(inner.tool):
        result.error = f"failed to route tool: {route_error(inner.tool).text}"
        return
    request = CallRequest(
        inner.id,
        inner.tool,
        arguments,
        inner.on_error,
        f"level-{level}",
        f"{step.id}[{result.index}]",
        step.id,
    )
    outcome = yield from call_with_retry(session, context, request)
    if isinstance(outcome.value, GoError):
        result.error = outcome.value.text
        return
    result.status, result.output = "completed", output_map(outcome.value)
