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

from dataclasses import replace

from transpiler.config.model import WorkflowStepConfig
from transpiler.deviations import Deviation
from transpiler.diagnostics import TranspilerError
from transpiler.emit import ir
from transpiler.emit.exact.arguments import arguments
from transpiler.emit.exact.json_values import json_value
from transpiler.emit.exact.nodes import Body, assign, if_, string
from transpiler.emit.exact.scope import EmitState
from transpiler.emit.exact.step_code import Record, with_condition
from transpiler.emit.exact.templates import ForEachEnv
from transpiler.emit.retries import retry_policy
from transpiler.profile import PARALLEL_CAP

INDEX, ITEM = ir.Name("index"), ir.Name("item")


class NotExpressible(TranspilerError):
    """A construct the THV-0051 builtins cannot express exactly."""


def for_each_step(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> Body:
    """The whole step, condition included."""
    inner = step.inner_step
    assert inner is not None
    if step.continues_on_error and retry_policy(inner) is not None:
        raise NotExpressible(
            f"forEach step {step.id} records failed iterations (onError: continue) and retries "
            "its inner step: retry() halts after its last attempt, so a script cannot record "
            "an iteration whose retries all failed"
        )
    _notes(state, step)
    return with_condition(state, step, record, depth, lambda d: _run(state, step, record, d))


def _run(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> Body:
    inner = step.inner_step
    assert inner is not None
    items = ir.Name(state.variable(step.id, "_items"))
    env = state.env()
    value = json_value(step.collection, env)
    if value is None:
        source = state.template(step.collection, env).expr
        check, check_outcome = "vmcp_collection_text", "vmcp_collection_text_outcome"
    else:
        source = value
        check, check_outcome = "vmcp_collection", "vmcp_collection_outcome"
    limit = ir.Literal(step.iteration_limit)
    item_env = state.env(for_each=ForEachEnv(step.item_name, ITEM, INDEX))
    schema = state.input_schema(inner.tool, step.id, step.where.at)
    args = arguments(state, inner.arguments, item_env, schema)
    step_id, tool = string(step.id), string(inner.tool)
    recording = step.continues_on_error
    policy = retry_policy(inner)
    common = (step_id, INDEX, ITEM, tool, args.expr)
    per_item: ir.Expr
    if recording:
        per_item = ir.call("vmcp_iterate_recording", *common)
    elif policy is None:
        per_item = ir.call("vmcp_iterate", *common)
    else:
        attempts, delay = policy
        per_item = ir.call("vmcp_iterate_retrying", *common, ir.Literal(attempts), string(delay))
    iterations = _iterations(step, per_item, items, depth)
    output = record.products.output
    if not recording:
        return [
            assign(items.id, ir.call(check, step_id, source, limit)),
            assign(output, ir.call("vmcp_for_each_output", iterations)),
            *record.completed(),
        ]
    return [
        assign(items.id, ir.call(check_outcome, step_id, source, limit)),
        if_(
            ir.Binary(ir.call("type", items), "==", ir.Str("string")),
            record.failed(items),
            [assign(output, ir.call("vmcp_for_each_output", iterations)), *record.completed()],
        ),
    ]


def _iterations(step: WorkflowStepConfig, per_item: ir.Expr, items: ir.Name, depth: int) -> ir.Expr:
    """The iteration records: a comprehension written over lines, through parallel() unless
    maxParallel is 1.

    The per-item call is laid out as if it began the comprehension's line in a step at
    ``depth``: neither the lambda before it nor the ``else:`` a recording step puts it in
    counts toward its width.
    """
    column = (depth + 2) * len(ir.INDENT)
    each = _laid_out(per_item, column, column)
    loop = (ir.ForClause(("index", "item"), ir.call("enumerate", items)),)
    if step.parallel_limit == 1:
        return ir.Broken(ir.Comprehension(each, loop))
    bound = (ir.Parameter("index", INDEX), ir.Parameter("item", ITEM))
    runs = ir.Comprehension(ir.Lambda(bound, each), loop)
    return ir.Hugging(ir.call("parallel", ir.Broken(runs)))


def _laid_out(expr: ir.Expr, column: int, indent: int) -> ir.Expr:
    """``expr`` laid out now, as at ``column`` on a line indented by ``indent``: kept whole
    (:class:`ir.Unbroken`) where it fits, else each call, dict or list broken
    (:class:`ir.Broken`) with its items laid out in turn."""
    if column + len(ir.flat(expr)) <= ir.WIDTH:
        return ir.Unbroken(expr)
    inner = indent + len(ir.INDENT)
    if isinstance(expr, ir.Call):
        args = tuple(_laid_out(arg, inner, inner) for arg in expr.args)
        kwargs = tuple((k, _laid_out(v, inner + len(k) + 1, inner)) for k, v in expr.kwargs)
        return ir.Broken(replace(expr, args=args, kwargs=kwargs))
    if isinstance(expr, ir.Dict):
        items = tuple(
            (key, _laid_out(value, inner + len(ir.flat(key)) + 2, inner))
            for key, value in expr.items
        )
        return ir.Broken(ir.Dict(items))
    if isinstance(expr, ir.List):
        return ir.Broken(ir.List(tuple(_laid_out(item, inner, inner) for item in expr.items)))
    return expr


def _notes(state: EmitState, step: WorkflowStepConfig) -> None:
    parallel = step.parallel_limit
    if parallel in (1, PARALLEL_CAP):
        return
    state.note(
        "deviation",
        Deviation.PARALLEL_CAP,
        f"vMCP runs up to {parallel} iterations at once, parallel() runs up to {PARALLEL_CAP}: "
        "calls start at other times, and when an iteration fails and stops the loop, a "
        "different number of calls may have started",
        step.id,
        step.where.of("maxParallel"),
    )
