"""A ``tool`` step (``executeToolStep``, S80-S89, S101-S104).

Expand the arguments, coerce them by the tool's advertised schema, route,
call with retries. A successful result's output is ``structuredContent`` when
that is an object, else the content array as a map. A failed call records
``failed`` with ``tool call failed: tool <t> in step <s>: <cause>``; under
``onError: continue`` the step then returns no error and its output becomes
``defaultResults`` when given (used verbatim). Template and routing failures
record ``failed`` without defaults and return their error (the DAG swallows
it under ``continue``, S102).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from transpiler.composite.coerce import coerce_arguments
from transpiler.composite.errors import GoError
from transpiler.composite.gocontext import GoContext
from transpiler.composite.quirks import ArgumentPath, Site, judge_coercion
from transpiler.composite.session import Session
from transpiler.composite.toolcall import CallRequest, call_with_retry
from transpiler.config.model import WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.golang.values import GoValue
from transpiler.sim.kernel import Operation
from transpiler.sim.mcp import output_map


def route_error(tool: str) -> GoError:
    """The router's error for an unknown tool."""
    return GoError(f"tool not found: {tool}")


def arguments_sent(
    session: Session, site: Site, tool: str, expanded: dict[str, GoValue] | None
) -> dict[str, GoValue] | None:
    """The expanded arguments coerced by the tool's inputSchema, as vMCP sends them, except at
    the positions where ``argument-coercion`` takes ``as-is`` (the value the text printed)."""
    schema = session.tools.input_schema(tool)
    arguments = coerce_arguments(schema, expanded)
    own = judge_coercion(session.recorder.quirks, site, schema, arguments, session.expander.alone)
    for at, path, value in own:
        if session.expander.variants.at(Deviation.ARGUMENT_COERCION, at) == "as-is":
            arguments = _replaced(arguments, path, value)
    return arguments


def _replaced(container: Any, path: ArgumentPath, value: GoValue) -> Any:
    """``container`` with the value at ``path`` replaced (a copy along the path)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(container, dict) and isinstance(head, str):
        return {**container, head: _replaced(container[head], rest, value)}
    if isinstance(container, list) and isinstance(head, int):
        copy = list(container)
        copy[head] = _replaced(copy[head], rest, value)
        return copy
    return container


def execute_tool_step(
    session: Session, context: GoContext, step: WorkflowStepConfig, level: int
) -> Generator[Operation, Any, GoError | None]:
    """Run one tool step in its step context; returns the error the DAG sees."""
    state = session.state
    expanded = session.expander.arguments(context, step.arguments, Site(step.id, "arguments"))
    if isinstance(expanded, GoError):
        error = expanded.wrap_text(
            f"template expansion failed: failed to expand arguments for step {step.id}"
        )
        state.record_failure(step.id, error, session.now)
        return error
    arguments = arguments_sent(session, Site(step.id, "arguments"), step.tool, expanded)
    if not session.tools.routable(step.tool):
        error = route_error(step.tool).wrap(f"failed to route tool {step.tool} in step {step.id}")
        state.record_failure(step.id, error, session.now)
        return error
    request = CallRequest(step.id, step.tool, arguments, step.on_error, f"level-{level}", step.id)
    outcome = yield from call_with_retry(session, context, request)
    if isinstance(outcome.value, GoError):
        error = outcome.value.wrap(f"tool call failed: tool {step.tool} in step {step.id}")
        state.record_failure(step.id, error, session.now)
        state.set_retry_count(step.id, outcome.retry_count)
        if not step.continues_on_error:
            return error
        session.recorder.logs.append(f"step {step.id}: continuing after failure: {error.text}")
        if step.default_results is not None:
            state.set_output(step.id, step.default_results)
        return None
    state.record_success(step.id, output_map(outcome.value), session.now, outcome.value.content)
    state.set_retry_count(step.id, outcome.retry_count)
    return None
