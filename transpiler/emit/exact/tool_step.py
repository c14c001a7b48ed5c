"""Code for a tool step: arguments, the call, retries, ``onError: continue``.

- abort (the default): ``vmcp_call`` stops the run with vMCP's error text;
- retry: the same call inside ``retry()``, with vMCP's attempt count (the
  retry count capped at 10, plus one) and initial delay (1s when unset);
- continue: ``try_call_tool``; a failed call leaves ``defaultResults``.
"""

from __future__ import annotations

from transpiler.config.model import WorkflowStepConfig
from transpiler.emit import ir
from transpiler.emit.exact.arguments import Arguments, arguments
from transpiler.emit.exact.nodes import Body, assign, if_, string
from transpiler.emit.exact.scope import COMPLETED, EmitState
from transpiler.emit.exact.step_code import FAILED, Record, defaults, with_condition
from transpiler.emit.retries import retry_policy


def tool_step(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> Body:
    """The whole step, condition included."""
    return with_condition(state, step, record, depth, lambda _: _run(state, step, record))


def _run(state: EmitState, step: WorkflowStepConfig, record: Record) -> Body:
    schema = state.input_schema(step.tool, step.id, step.where.at)
    args = arguments(state, step.arguments, state.env(), schema)
    step_id, tool = string(step.id), string(step.tool)
    output = record.products.output
    if step.continues_on_error:
        return _continued(state, step, record, args)
    body: Body = []
    args_expr = args.expr
    if args.fallible:
        args_expr = ir.call("vmcp_arguments", step_id, args.expr)
    policy = retry_policy(step)
    if policy is None:
        body.append(assign(output, ir.call("vmcp_call", step_id, tool, args_expr)))
    else:
        attempts, delay = policy
        arguments_var = state.variable(step.id, "_args")
        body.append(assign(arguments_var, args_expr))
        call = ir.Lambda((), ir.call("vmcp_call", step_id, tool, ir.Name(arguments_var)))
        retried = ir.call("retry", call, max_attempts=ir.Literal(attempts), delay=string(delay))
        body.append(assign(output, retried))
    return body + record.completed()


def _continued(state: EmitState, step: WorkflowStepConfig, record: Record, args: Arguments) -> Body:
    """``onError: continue``: the run goes on; a template error leaves no defaults (S102)."""
    if not args.fallible:
        return _call_continued(state, step, record, args.expr)
    arguments_var = ir.Name(state.variable(step.id, "_args"))
    problem = ir.Name(state.variable(step.id, "_problem"))
    return [
        assign(arguments_var.id, args.expr),
        assign(problem.id, ir.call("vmcp_arguments_error", string(step.id), arguments_var)),
        if_(
            ir.Binary(problem, "==", ir.Literal(None)),
            _call_continued(state, step, record, arguments_var),
            record.failed(problem),
        ),
    ]


def _call_continued(
    state: EmitState, step: WorkflowStepConfig, record: Record, args: ir.Expr
) -> Body:
    """``try_call_tool``; a failed call leaves ``defaultResults`` (S101)."""
    result = ir.Name(state.variable(step.id, "_call"))
    ok = ir.Attribute(result, "ok")
    fallback = defaults(step)
    error: ir.Expr | None = None
    if record.products.error is not None:
        failure = ir.call(
            "vmcp_call_error", string(step.id), string(step.tool), ir.Attribute(result, "error")
        )
        error = ir.Unbroken(ir.Cond(ir.Literal(None), ok, failure))
    output = ir.call("go_floats", ir.Attribute(result, "output"))
    return [
        assign(result.id, ir.call("try_call_tool", string(step.tool), args)),
        *record.ended(
            ir.Unbroken(ir.Cond(output, ok, fallback)),
            ir.Unbroken(ir.Cond(COMPLETED, ok, FAILED)),
            error,
        ),
    ]
