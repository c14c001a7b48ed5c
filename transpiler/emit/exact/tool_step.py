"""Code for a tool step: arguments, the call, retries, ``onError: continue``.

- abort (the default): ``vmcp_call`` stops the run with vMCP's error text;
- retry: the same call inside ``retry()``, with vMCP's attempt count (the
  retry count capped at 10, plus one) and initial delay (1s when unset);
- continue: ``try_call_tool``; a failed call leaves ``defaultResults``.
"""

from __future__ import annotations

from transpiler.config.model import StepErrorHandling, WorkflowStepConfig
from transpiler.emit.exact import statements as st
from transpiler.emit.exact.arguments import Arguments, arguments
from transpiler.emit.exact.layout import Code, Expr, Lambda, call, render, string
from transpiler.emit.exact.scope import COMPLETED, EmitState
from transpiler.emit.exact.step_code import FAILED, Record, defaults, with_condition
from transpiler.golang.duration import format_duration


def retry_attempts(step: WorkflowStepConfig) -> int | None:
    """``max_attempts`` for an ``onError: retry`` step (None when it does not retry)."""
    if step.on_error is None or step.on_error.action != "retry":
        return None
    return step.on_error.retries + 1


def retry_delay(step: WorkflowStepConfig) -> str:
    """The initial backoff as a Go duration string (1s when unset or not positive)."""
    on_error = step.on_error if step.on_error is not None else StepErrorHandling()
    return format_duration(on_error.first_delay_ns)


def tool_step(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> st.Body:
    """The whole step, condition included."""
    return with_condition(state, step, record, depth, lambda d: _run(state, step, record, d))


def _run(state: EmitState, step: WorkflowStepConfig, record: Record, depth: int) -> st.Body:
    schema = state.input_schema(step.tool, step.id, step.where.at)
    args = arguments(state, step.arguments, state.env(), schema)
    step_id, tool = string(step.id), string(step.tool)
    output = record.products.output
    if step.continues_on_error:
        return _continued(state, step, record, depth, args)
    body: st.Body = []
    args_expr: Expr = args.expr
    if args.fallible:
        args_expr = call("vmcp_arguments", step_id, args.expr)
    attempts = retry_attempts(step)
    if attempts is None:
        body.append(st.assign(output, call("vmcp_call", step_id, tool, args_expr), depth))
    else:
        arguments_var = state.variable(step.id, "_args")
        body.append(st.assign(arguments_var, args_expr, depth))
        body.append(
            st.assign(
                output,
                call(
                    "retry",
                    Lambda(call("vmcp_call", step_id, tool, Code(arguments_var))),
                    max_attempts=Code(str(attempts)),
                    delay=string(retry_delay(step)),
                ),
                depth,
            )
        )
    return body + record.completed(depth)


def _continued(
    state: EmitState, step: WorkflowStepConfig, record: Record, depth: int, args: Arguments
) -> st.Body:
    """``onError: continue``: the run goes on; a template error leaves no defaults (S102)."""
    if not args.fallible:
        return _call_continued(state, step, record, depth, args.expr)
    arguments_var = state.variable(step.id, "_args")
    problem = state.variable(step.id, "_problem")
    return [
        st.assign(arguments_var, args.expr, depth),
        st.assign(
            problem, call("vmcp_arguments_error", string(step.id), Code(arguments_var)), depth
        ),
        st.if_(
            Code(f"{problem} == None"),
            _call_continued(state, step, record, depth + 1, Code(arguments_var)),
            depth,
            orelse=record.failed(depth + 1, Code(problem)),
        ),
    ]


def _call_continued(
    state: EmitState, step: WorkflowStepConfig, record: Record, depth: int, args: Expr
) -> st.Body:
    """``try_call_tool``; a failed call leaves ``defaultResults`` (S101)."""
    result = state.variable(step.id, "_call")
    fallback = render(defaults(step))
    error: Expr | None = None
    if record.products.error is not None:
        error = Code(
            f"None if {result}.ok else vmcp_call_error("
            f"{render(string(step.id))}, {render(string(step.tool))}, {result}.error)"
        )
    return [
        st.assign(result, call("try_call_tool", string(step.tool), args), depth),
        *record.ended(
            depth,
            Code(f"go_floats({result}.output) if {result}.ok else {fallback}"),
            f"{COMPLETED} if {result}.ok else {FAILED}",
            error,
        ),
    ]
