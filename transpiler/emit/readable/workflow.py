"""``def run(params)`` of a readable script (the workflow part of the readable emitter).

Facade: :func:`run_function`. vMCP's execution levels (S50) become straight
code: a level of one step is that step's code, a level of several is one
``parallel([...])`` (a lambda per step, or a small local function where a step
needs statements), which gives vMCP's level barrier and its cap of 10. Steps
are named after their ids; a step's result is kept in a variable only when a
later template (or the result) reads it. Parameters read more than once are
read once, at the top.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, NamedTuple

from transpiler.config.model import StepKind, WorkflowStepConfig, exhaustive
from transpiler.deviations import Deviation
from transpiler.emit.ir import (
    Assign,
    Attribute,
    Blank,
    Comment,
    Cond,
    Def,
    Expr,
    ExprStmt,
    Lambda,
    List,
    Name,
    Parameter,
    Return,
    Str,
    assign,
    call,
    dict_of,
    json_literal,
    print_statements,
)
from transpiler.emit.readable.outputs import output_dict
from transpiler.emit.readable.state import State, StepView
from transpiler.emit.readable.steps import (
    Body,
    arguments,
    defaults,
    defaults_expr,
    elicitation_step,
    for_each_step,
    guarded,
    hoist_shared,
    recorded_answer,
    tool_step,
)
from transpiler.emit.readable.templates import NotReadable
from transpiler.emit.readable.values import MISSING, Kind, Val, constant, plain, runtime, status
from transpiler.plan.dataflow import dataflow
from transpiler.plan.levels import execution_levels


def run_function(state: State) -> tuple[str, list[tuple[str, int, int]]]:
    """The source of ``def run(params):`` and, per level, the lines (from 1) that run it."""
    tool = state.tool
    levels = execution_levels(tool.steps)
    by_id = {step.id: step for step in tool.steps}
    reads = _reads(state)
    final = final_step(state)
    body: Body = [assign(local, read) for local, read in state.param_declarations()]
    returned = False
    ranges: list[tuple[str, range]] = []
    for position, level in enumerate(levels):
        if position or state.param_declarations():
            body.append(Blank())
        last = position == len(levels) - 1
        remaining = [s for lvl in levels[position + 1 :] for s in lvl]
        steps = [by_id[step_id] for step_id in level]
        start = len(body)
        if len(steps) == 1:
            returned = _single(state, steps[0], body, reads, final if last else None, remaining)
        else:
            _parallel(state, steps, body, reads, final if last else None)
        ranges.append((",".join(level), range(start, len(body))))
    if not returned:
        body.append(Blank())
        _result(state, body, final)
    if tool.output is None and _final_may_not_win(tool.steps, levels, by_id[final]):
        state.declare(Deviation.LAST_STEP_RACE)
    printed = print_statements([Def("run", (Parameter("params"),), tuple(body))])
    spans = []
    for steps_run, statements in ranges:
        lines = printed.lines_of([(0, index) for index in statements])
        if lines is not None:
            spans.append((steps_run, *lines))
    return printed.text, spans


def final_step(state: State) -> str:
    """The workflow's final step: the last declared step of the last execution level."""
    last = set(execution_levels(state.tool.steps)[-1])
    return [s.id for s in state.tool.steps if s.id in last][-1]


def _reads(state: State) -> dict[str, set[str]]:
    """Per step, which parts of its output later templates read (``*``: all of it)."""
    found: dict[str, set[str]] = {}
    for edge in dataflow(state.tool):
        if edge.dynamic or edge.step not in {s.id for s in state.tool.steps}:
            raise NotReadable("a template chooses the step it reads at run time")
        path = edge.path
        if len(path) < 3:
            found.setdefault(edge.step, set()).add("*")
        elif path[2] == "status":
            found.setdefault(edge.step, set()).add("status")
        elif path[2] in ("output", "content"):
            found.setdefault(edge.step, set()).add(path[3] if len(path) > 3 else "*")
    return found


def _final_may_not_win(
    steps: Sequence[WorkflowStepConfig],
    levels: Sequence[Sequence[str]],
    final: WorkflowStepConfig,
) -> bool:
    return len(levels[-1]) > 1 or bool(final.condition) or final.continues_on_error


def _target(
    state: State, step: WorkflowStepConfig, reads: dict[str, set[str]], final: str | None
) -> str | None:
    final_result = final == step.id and state.tool.output is None
    if step.id in reads or final_result or is_special(step):
        return state.variable(step.id)
    return None


def _single(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    reads: dict[str, set[str]],
    final: str | None,
    remaining: list[str],
) -> bool:
    """One step's code; True when it ended the script with ``return``."""
    target = _target(state, step, reads, final)
    returns = (
        final == step.id
        and state.tool.output is None
        and step.id not in reads
        and not step.condition
        and not is_special(step)
    )
    if not step.condition and not is_special(step):
        hoist_shared(state, step, body)
    state.binding = body
    try:
        if returns:
            expr, view = tool_step(state, step, None)
            body.append(Return(expr))
            state.visible[step.id] = view
            return True
        view = guarded(
            state,
            step,
            body,
            target,
            lambda b: _step_code(state, step, b, target, reads, remaining),
        )
    finally:
        state.binding = None
    state.visible[step.id] = view
    return False


def _step_code(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str | None,
    reads: dict[str, set[str]],
    remaining: list[str],
    local: bool = False,
) -> StepView:
    """The step's code; ``local``: inside a function of a parallel level, whose names the
    rest of the script cannot see (a forEach step then keeps its whole output in one dict)."""
    return _lowering(step).body(state, step, body, target, reads, remaining, local)


def _elicitation_body(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str | None,
    reads: dict[str, set[str]],
    remaining: list[str],
    local: bool,
) -> StepView:
    assert target is not None
    return elicitation_step(
        state, step, body, target, lambda b, views: _skip(state, b, views, remaining)
    )


def _for_each_body(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str | None,
    reads: dict[str, set[str]],
    remaining: list[str],
    local: bool,
) -> StepView:
    assert target is not None
    parts = set(reads.get(step.id, ()))
    final = step.id == final_step(state) and state.tool.output is None
    if final or step.condition or local:
        parts.add("*")
    return for_each_step(state, step, body, target, frozenset(parts))


def _tool_body(
    state: State,
    step: WorkflowStepConfig,
    body: Body,
    target: str | None,
    reads: dict[str, set[str]],
    remaining: list[str],
    local: bool,
) -> StepView:
    if "status" in reads.get(step.id, ()) and step.continues_on_error:
        return _continued_with_status(state, step, body, target)
    expr, view = tool_step(state, step, target)
    body.append(assign(target, expr) if target else ExprStmt(expr))
    return view


class _Lowering(NamedTuple):
    """How a kind of step becomes code: its body (arguments as :func:`_step_code`'s), and whether
    that needs statements (else it is one expression)."""

    body: Callable[
        [State, WorkflowStepConfig, Body, str | None, dict[str, set[str]], list[str], bool],
        StepView,
    ]
    statements: bool


#: Each kind's lowering.
_LOWERINGS: Final[Mapping[StepKind, _Lowering]] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: _Lowering(_tool_body, statements=False),
        StepKind.ELICITATION: _Lowering(_elicitation_body, statements=True),
        StepKind.FOR_EACH: _Lowering(_for_each_body, statements=True),
    },
)


def _lowering(step: WorkflowStepConfig) -> _Lowering:
    """The lowering of the step's kind (a type validation would reject lowers as a tool)."""
    return _LOWERINGS[step.kind or StepKind.TOOL]


def is_special(step: WorkflowStepConfig) -> bool:
    """Whether the step's code needs statements (not one expression)."""
    return _lowering(step).statements


def _step_code_of(
    state: State, step: WorkflowStepConfig, target: str, reads: dict[str, set[str]]
) -> Callable[[Body], StepView]:
    return lambda body: _step_code(state, step, body, target, reads, [], local=True)


def _continued_with_status(
    state: State, step: WorkflowStepConfig, body: Body, target: str | None
) -> StepView:
    """``try_call_tool`` kept in a variable, because a template reads the step's status."""
    result = state.variable(f"\x00call:{step.id}", f"{step.id}_call")
    output = target or state.variable(step.id)
    body.append(assign(result, call("try_call_tool", Str(step.tool), arguments(state, step))))
    body.append(assign(output, _fallback(result, step)))
    return StepView("tool", runtime(Name(output), Kind.MAP), status=_call_status(result))


def _fallback(result: str, step: WorkflowStepConfig) -> Expr:
    """The output of a ``continue`` step from its ``try_call_tool`` result."""
    held = Name(result)
    return Cond(Attribute(held, "output"), Attribute(held, "ok"), defaults_expr(step))


def _call_status(result: str) -> Val:
    return status(Attribute(Name(result), "ok"), "failed")


def _parallel(
    state: State,
    steps: list[WorkflowStepConfig],
    body: Body,
    reads: dict[str, set[str]],
    final: str | None,
) -> None:
    """The level through ``parallel([...])``: lambdas, or local functions where needed."""
    functions: list[Expr] = []
    targets: list[str] = []
    views: dict[str, StepView] = {}
    after: list[tuple[str, Expr]] = []
    first = True
    for step in steps:
        if not step.condition and not is_special(step):
            hoist_shared(state, step, body, values=False)
    for step in steps:
        target = _target(state, step, reads, final)
        status_read = "status" in reads.get(step.id, ()) and step.continues_on_error
        if status_read and not step.condition and not is_special(step):
            result = state.variable(f"\x00call:{step.id}", f"{step.id}_call")
            output = target or state.variable(step.id)
            functions.append(
                Lambda((), call("try_call_tool", Str(step.tool), arguments(state, step)))
            )
            after.append((output, _fallback(result, step)))
            views[step.id] = StepView(
                "tool", runtime(Name(output), Kind.MAP), status=_call_status(result)
            )
            targets.append(result)
            continue
        if not is_special(step) and not status_read:
            expr, view = tool_step(state, step, target)
            if step.condition:
                test = state.compiler().condition(
                    step.condition, step.id, step.continues_on_error
                )
                if test.constant and test.const is not True:
                    raise NotReadable(f"step {step.id} in a parallel level never runs")
                if not test.constant:
                    expr = Cond(expr, test.code(), defaults_expr(step))
                    view.status = status(test.code(), "skipped")
            functions.append(Lambda((), expr))
        else:
            local = state.variable(f"\x00fn:{step.id}", f"{step.id}_step")
            if first:
                body.append(Comment("Steps that vMCP runs at the same time."))
                first = False
            inner_target = target or state.variable(step.id)
            with state.nested() as inner:
                code = _step_code_of(state, step, inner_target, reads)
                view = guarded(state, step, inner, inner_target, code)
            if step.condition and "status" in reads.get(step.id, ()) and _may_fail(view):
                raise NotReadable(
                    f"step {step.id} runs in parallel under a condition and may fail, and a "
                    "template reads its status, which its branch cannot hand back"
                )
            if target is not None:
                inner.append(Return(Name(target)))
            body += [Def(local, (), tuple(inner)), Blank()]
            functions.append(Name(local))
        views[step.id] = view
        targets.append(target or "_")
    calls = call("parallel", List(tuple(functions)))
    if any(t != "_" for t in targets):
        body.append(Assign(tuple(Name(t) for t in targets), calls))
    else:
        body.append(ExprStmt(calls))
    body += [assign(output, value) for output, value in after]
    for step_id, view in views.items():
        if view.output.expr is not None and isinstance(view.output.code(), Name):
            view.output = runtime(view.output.code(), Kind.MAP)
        state.visible[step_id] = view


def _may_fail(view: StepView) -> bool:
    """Whether a guarded step's status is more than completed-or-skipped."""
    return not view.status.constant and view.status.completed_if is None


def _skip(state: State, body: Body, views: dict[str, StepView], remaining: list[str]) -> None:
    """``return`` early for ``skip_remaining``: the rest of the workflow counts as skipped."""
    saved = dict(state.visible)
    by_id = {step.id: step for step in state.tool.steps}
    state.visible.update(views)
    for step_id in remaining:
        state.visible[step_id] = StepView(
            "tool", defaults(by_id[step_id]), status=constant("skipped")
        )
    try:
        if state.tool.output is not None:
            body.append(Return(output_dict(state, state.tool.output)))
        else:
            ((step_id, view),) = views.items()
            fields = [
                (k, v.code())
                for k, v in view.fields.items()
                if not (v.constant and v.const is MISSING)
            ]
            body.append(Return(dict_of(fields)))
    finally:
        state.visible = saved


def _result(state: State, body: Body, final: str) -> None:
    """``return`` the output block, or the final step's output."""
    if state.tool.output is not None:
        state.binding = body
        try:
            body.append(Return(output_dict(state, state.tool.output)))
        finally:
            state.binding = None
        return
    view = state.visible[final]
    if view.kind == "elicitation" and "content" in view.fields:
        content = view.fields["content"].code()
        assert isinstance(content, Attribute)
        body.append(Return(recorded_answer(content.value)))
        return
    if view.output.constant:
        held = view.output.const
        body.append(Return(json_literal(plain(None if held is MISSING else held))))
        return
    body.append(Return(view.output.code()))


__all__ = ["run_function"]
