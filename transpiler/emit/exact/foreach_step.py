"""Code for a forEach step: the collection, one call per item, the aggregate output.

The collection comes from the value its template renders as JSON (or from
the rendered text), capped by maxIterations. Each iteration calls the inner
step's tool with ``.forEach.<itemVar>`` and ``.forEach.index`` bound; in
abort mode the first failure stops the run, in continue mode (the forEach
step's own ``onError: continue``) every failure is recorded. ``maxParallel:
1`` runs the items one after another; otherwise they run through
``parallel()``, whose cap is 10 (vMCP's default).
"""

from __future__ import annotations

from transpiler.config.model import WorkflowStepConfig
from transpiler.diagnostics import TranspilerError
from transpiler.emit import ir
from transpiler.emit.exact import statements as st
from transpiler.emit.exact.arguments import arguments
from transpiler.emit.exact.json_values import json_value
from transpiler.emit.exact.layout import INDENT, Code, Expr, call, render, string
from transpiler.emit.exact.scope import EmitState
from transpiler.emit.exact.step_code import Record, with_condition
from transpiler.emit.exact.templates import ForEachEnv
from transpiler.emit.exact.tool_step import retry_attempts, retry_delay

DEFAULT_MAX_ITERATIONS = 100
MAX_ITERATIONS_CAP = 1000
DEFAULT_MAX_PARALLEL = 10
PARALLEL_BUILTIN_CAP = 10


class NotExpressible(TranspilerError):
    """A construct the THV-0051 builtins cannot express exactly."""


def max_iterations(step: WorkflowStepConfig) -> int:
    """vMCP's effective iteration limit (S130)."""
    if step.max_iterations <= 0:
        return DEFAULT_MAX_ITERATIONS
    return min(step.max_iterations, MAX_ITERATIONS_CAP)


def for_each_step(
    state: EmitState, step: WorkflowStepConfig, record: Record, depth: int
) -> st.Body:
    """The whole step, condition included."""
    inner = step.inner_step
    assert inner is not None
    if step.continues_on_error and retry_attempts(inner) is not None:
        raise NotExpressible(
            f"forEach step {step.id} records failed iterations (onError: continue) and retries "
            "its inner step: retry() halts after its last attempt, so a script cannot record "
            "an iteration whose retries all failed"
        )
    _notes(state, step)
    return with_condition(state, step, record, depth, lambda d: _run(state, step, record, d))


def _run(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> st.Body:
    inner = step.inner_step
    assert inner is not None
    items = state.variable(step.id, "_items")
    env = state.env()
    value = json_value(step.collection, env)
    if value is None:
        source = Code(ir.flat(state.template(step.collection, env).expr))
        check, check_outcome = "vmcp_collection_text", "vmcp_collection_text_outcome"
    else:
        source = Code(ir.flat(value))
        check, check_outcome = "vmcp_collection", "vmcp_collection_outcome"
    limit = Code(str(max_iterations(step)))
    item_env = state.env(
        for_each=ForEachEnv(step.item_var or "item", ir.Name("item"), ir.Name("index"))
    )
    schema = state.input_schema(inner.tool, step.id, step.where.at)
    args = arguments(state, inner.arguments, item_env, schema)
    step_id, tool = string(step.id), string(inner.tool)
    recording = step.continues_on_error
    attempts = retry_attempts(inner)
    common = (step_id, Code("index"), Code("item"), tool, args.expr)
    per_item: Expr
    if recording:
        per_item = call("vmcp_iterate_recording", *common)
    elif attempts is None:
        per_item = call("vmcp_iterate", *common)
    else:
        per_item = call(
            "vmcp_iterate_retrying", *common, Code(str(attempts)), string(retry_delay(inner))
        )
    iterations = _iterations(step, per_item, items, depth)
    output = record.products.output
    if not recording:
        return [
            st.assign(items, call(check, step_id, source, limit), depth),
            st.assign(output, call("vmcp_for_each_output", iterations), depth),
            *record.completed(depth),
        ]
    return [
        st.assign(items, call(check_outcome, step_id, source, limit), depth),
        st.if_(
            Code(f'type({items}) == "string"'),
            record.failed(depth + 1, Code(items)),
            depth,
            orelse=[
                st.assign(output, call("vmcp_for_each_output", iterations), depth + 1),
                *record.completed(depth + 1),
            ],
        ),
    ]


def _iterations(step: WorkflowStepConfig, per_item: Expr, items: str, depth: int) -> Code:
    """The iteration records: a comprehension, through parallel() unless maxParallel is 1."""
    body = render(per_item, (depth + 2) * len(INDENT))
    loop = f"for index, item in enumerate({items})"
    if step.max_parallel == 1:
        return Code(f"[\n{INDENT}{_indent(body)}\n{INDENT}{loop}\n]")
    return Code(
        f"parallel([\n{INDENT}lambda index=index, item=item: {_indent(body)}\n{INDENT}{loop}\n])"
    )


def _indent(text: str) -> str:
    return text.replace("\n", "\n" + INDENT)


def _notes(state: EmitState, step: WorkflowStepConfig) -> None:
    parallel = step.max_parallel if step.max_parallel > 0 else DEFAULT_MAX_PARALLEL
    if step.max_parallel == 1 or parallel == PARALLEL_BUILTIN_CAP:
        return
    at_once = (
        f"vMCP runs up to {min(parallel, 50)} iterations at once, parallel() runs up to "
        f"{PARALLEL_BUILTIN_CAP}"
    )
    if step.continues_on_error:
        state.note(
            "domain",
            "foreach-parallelism",
            f"timing only: {at_once}; every iteration runs, so results and calls are the same",
            step.id,
            step.where.of("maxParallel"),
        )
    else:
        state.note(
            "deviation",
            "parallel-cap",
            f"{at_once}: when an iteration fails and stops the loop, a different number of "
            "calls may have started",
            step.id,
            step.where.of("maxParallel"),
        )
