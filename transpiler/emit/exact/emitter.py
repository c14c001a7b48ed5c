"""A composite tool as a Starlark script: ``def run(params)`` plus the helpers it uses.

Execution levels (vMCP's Kahn levels, S50) become straight-line code: a
level with one step is the step's code; a level with several independent
steps becomes one local function per step run through ``parallel()``, which
gives vMCP's level barrier and its cap of 10 concurrent steps. Steps of one
level cannot see each other, as in vMCP when a step has not finished yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, NamedTuple

from transpiler.config.model import (
    CompositeToolConfig,
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)
from transpiler.declaration import TITLE as DECLARATION_TITLE
from transpiler.deviations import Deviation
from transpiler.diagnostics import TranspilerError
from transpiler.emit import ir
from transpiler.emit.exact.elicitation_step import elicitation_step
from transpiler.emit.exact.foreach_step import for_each_step
from transpiler.emit.exact.metadata import workflow_map
from transpiler.emit.exact.nodes import Body, checked, introduce
from transpiler.emit.exact.outputs import last_completed, output_block
from transpiler.emit.exact.params import params_prelude
from transpiler.emit.exact.scope import COMPLETED, EmitState, Products
from transpiler.emit.exact.step_code import Record, products_for
from transpiler.emit.exact.tool_step import tool_step
from transpiler.emit.header import header_comment
from transpiler.emit.report import Note
from transpiler.emit.timeouts import WITHIN_TIMEOUTS, timeouts_text
from transpiler.inert import comment_text
from transpiler.plan.levels import ancestors, execution_levels
from transpiler.plan.reads import workflow_reads

#: A step kind's code generator: the state, the step, its record and the block depth its code
#: sits at (which a forEach step's layout reads).
StepEmitter = Callable[[EmitState, WorkflowStepConfig, Record, int], Body]


class Lowering(NamedTuple):
    """How a kind of step becomes code: its generator, and the kind as the step's title
    comment names it."""

    code: StepEmitter
    title: Callable[[WorkflowStepConfig], str]


#: Each kind's lowering.
LOWERINGS: Final[Mapping[StepKind, Lowering]] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: Lowering(tool_step, lambda step: "tool " + comment_text(step.tool)),
        StepKind.ELICITATION: Lowering(elicitation_step, lambda step: "elicitation"),
        StepKind.FOR_EACH: Lowering(for_each_step, lambda step: "forEach"),
    },
)


def _lowering(step: WorkflowStepConfig) -> Lowering:
    """The lowering of the step's kind (a type validation would reject lowers as a tool)."""
    return LOWERINGS[step.kind or StepKind.TOOL]


def run_function(state: EmitState) -> tuple[ir.Def, dict[int, str]]:
    """``def run(params):`` and, for the source map, which statement of its body is which
    step (by position)."""
    tool = state.tool
    levels = execution_levels(tool.steps)
    by_id = {step.id: step for step in tool.steps}
    needs_status = tool.output is None or _reads_step_count(state)
    for step in tool.steps:
        state.products[step.id] = products_for(state, step, needs_status)
    state.workflow = workflow_map(state, "pending", ir.Literal(0))
    _note_run_conditions(state, levels)
    body: Body = params_prelude(state)
    owners: dict[int, str] = {}
    for level in levels:
        start = len(body)
        if len(level) == 1:
            step = by_id[level[0]]
            body += _step_code(state, step, 1, comment=_title(step))
        else:
            body += _parallel_level(state, [by_id[s] for s in level], 1)
        for index in range(start, len(body)):
            owners[index] = ",".join(level)
        state.visible.update({step_id: state.products[step_id] for step_id in level})
    state.workflow = _final_workflow(state)
    if tool.output is not None:
        body += output_block(state, tool.output)
    else:
        body += last_completed(state, levels)
    return ir.Def("run", (ir.Parameter("params"),), tuple(body)), owners


def _note_run_conditions(state: EmitState, levels: Sequence[Sequence[str]]) -> None:
    """Domain assumptions every script makes, and the races this workflow has."""
    state.note(
        "domain",
        "tools-exist",
        "every tool the workflow calls exists (vMCP hides the composite tool otherwise)",
    )
    state.note(
        "domain",
        "no-negative-zero",
        "no JSON number the tool receives is -0 (the scripted-tool host reads it as 0)",
    )
    state.note("domain", "within-timeouts", WITHIN_TIMEOUTS)
    dropped = timeouts_text(state.tool)
    if dropped is not None:
        state.note("deviation", Deviation.STEP_TIMEOUT, dropped)
    level_of = {step_id: index for index, level in enumerate(levels) for step_id in level}
    before = ancestors(state.tool.steps)
    for edge in state.edges:
        reader_level = level_of.get(edge.reader)
        if reader_level is None or edge.step not in level_of or edge.step in before[edge.reader]:
            continue
        if level_of[edge.step] == reader_level:
            state.note(
                "domain",
                "sibling-race",
                f"step {edge.reader} reads step {edge.step} without depending on it: vMCP may "
                "not have run it yet, and the script always sees it as not run (one of vMCP's "
                "possible schedules)",
                edge.reader,
            )


def _title(step: WorkflowStepConfig) -> str:
    return f"Step {comment_text(step.id)} ({_lowering(step).title(step)})."


def _step_code(state: EmitState, step: WorkflowStepConfig, depth: int, comment: str | None) -> Body:
    record = Record(state, step, state.products[step.id])
    try:
        code = _lowering(step).code(state, step, record, depth)
    except TranspilerError as error:
        where = step.where.at
        raise TranspilerError(f"step {step.id} ({where.file}:{where.line}): {error}") from None
    if comment and code:
        code = introduce(code, comment, blank=True)
    return code


def _returned(products: Products) -> list[ir.Name]:
    names = [products.output]
    for extra in (products.status, products.error, products.content):
        if extra is not None and extra != products.output and extra not in names:
            names.append(extra)
    return [ir.Name(name) for name in names]


def _parallel_level(state: EmitState, steps: Sequence[WorkflowStepConfig], depth: int) -> Body:
    """One local function per step, run together through parallel()."""
    body: Body = []
    functions: list[ir.Expr] = []
    targets: list[ir.Expr] = []
    for step in steps:
        name = state.variable(step.id, "_step")
        functions.append(ir.Name(name))
        returned = _returned(state.products[step.id])
        code = _step_code(state, step, depth + 1, comment=None)
        code.append(
            ir.Return(returned[0]) if len(returned) == 1 else ir.ReturnTuple(tuple(returned))
        )
        comment = _title(step)
        if not body:
            comment = (
                "These steps do not depend on each other: vMCP runs them at the same time.\n"
                + comment
            )
        body += introduce([ir.Def(name, (), tuple(code))], comment, blank=True)
        targets.append(returned[0] if len(returned) == 1 else ir.Tuple(tuple(returned)))
    run_all = ir.Assign(tuple(targets), ir.call("parallel", ir.List(tuple(functions))))
    return [*body, ir.Blank(), checked(run_all)]


def _reads_step_count(state: EmitState) -> bool:
    return bool(workflow_reads(state.site_reads, output_only=True) & {"step_count", "*"})


def _final_workflow(state: EmitState) -> ir.Expr:
    """``.workflow`` while the output is built: completed, with the step count (S73)."""
    statuses = [state.products[step.id].status_value() for step in state.tool.steps]
    count: ir.Expr = ir.Literal(len(statuses))
    if any(status != COMPLETED for status in statuses):
        each = ir.ForClause(("s",), ir.List(tuple(statuses)))
        completed = ir.IfClause(ir.Binary(ir.Name("s"), "==", COMPLETED))
        count = ir.call("len", ir.Comprehension(ir.Name("s"), (each, completed)))
    return workflow_map(state, "completed", count)


#: The width the header's bullets wrap at (after their ``# ``).
HEADER_WIDTH = 88


def header_text(tool: CompositeToolConfig, state: EmitState, source: str) -> str:
    """The comment at the top of the script: origin, claimed domain, reproduced quirks."""
    intro = [
        f"Scripted tool {comment_text(tool.name)}, migrated from the vMCP composite tool of "
        "the same name",
        f"({comment_text(source)}) by vmcp-starlark-transpiler.",
    ]
    titles = (
        ("domain", "It behaves exactly like the composite tool when:"),
        ("quirk", "vMCP behaviours it reproduces on purpose:"),
        ("deviation", DECLARATION_TITLE),
    )
    sections = [
        (title, [_bullet(note) for note in state.notes if note.kind == kind])
        for kind, title in titles
    ]
    return header_comment(intro, sections, HEADER_WIDTH)


def _bullet(note: Note) -> str:
    return f"{note.name}: {note.render()}" if note.kind == "deviation" else note.render()
