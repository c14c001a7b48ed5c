"""Code shared by every kind of step: conditions, records, defaults, companions.

A step's code sets its output variable (and, where read, ``<step>_status``,
``<step>_error``, ``<step>_content``). This module holds the parts every step
kind shares: evaluating a condition, what a skipped or failed step leaves
behind, and the comment that names the step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from transpiler.config.model import WorkflowStepConfig
from transpiler.emit import ir
from transpiler.emit.exact.nodes import Body, assign, constant, if_, string
from transpiler.emit.exact.scope import COMPLETED, EmitState, Products

FAILED = ir.Str("failed")
SKIPPED = ir.Str("skipped")
GO_NIL_MAP = ir.Name("GO_NIL_MAP")


@dataclass(frozen=True)
class StepShape:
    """How a step can end, which decides which companions it needs."""

    can_skip: bool
    can_fail_quietly: bool

    @property
    def always_completes(self) -> bool:
        """Whether the step is ``completed`` whenever the run goes on past it."""
        return not self.can_skip and not self.can_fail_quietly


def shape(step: WorkflowStepConfig) -> StepShape:
    """What can happen to a step without ending the run."""
    return StepShape(can_skip=bool(step.condition), can_fail_quietly=step.continues_on_error)


def defaults(step: WorkflowStepConfig) -> ir.Expr:
    """What a skipped step (or a tool step whose call failed under continue) leaves as output."""
    if step.default_results is None:
        return GO_NIL_MAP
    return constant(step.default_results)


class Record:
    """Assignments of one step's output and companions."""

    def __init__(self, state: EmitState, step: WorkflowStepConfig, products: Products) -> None:
        self.state = state
        self.step = step
        self.products = products

    def ended(self, output: ir.Expr, status: ir.Expr, error: ir.Expr | None) -> Body:
        """The step ended with this output, status and error."""
        return [assign(self.products.output, output), *self._companions(status, error)]

    def completed(self) -> Body:
        """The step completed and its output variable is already set: the companions."""
        return self._companions(COMPLETED, None)

    def _companions(self, status: ir.Expr, error: ir.Expr | None) -> Body:
        body: Body = []
        if self.products.status is not None:
            body.append(assign(self.products.status, status))
        if self.products.error is not None:
            body.append(assign(self.products.error, ir.Literal(None) if error is None else error))
        content_var = self.products.content
        if content_var is not None and content_var != self.products.output:
            output = ir.Name(self.products.output)
            content: ir.Expr
            if status == COMPLETED:
                content = output
            elif status in (FAILED, SKIPPED):
                content = ir.Dict(())
            else:
                completed = ir.Binary(ir.Paren(status), "==", COMPLETED)
                content = ir.Unbroken(ir.Cond(output, completed, ir.Dict(())))
            body.append(assign(content_var, content))
        return body

    def skipped(self) -> Body:
        """The condition was false: defaults (or a nil map) and status ``skipped``."""
        return self.ended(defaults(self.step), SKIPPED, None)

    def failed(self, error: ir.Expr) -> Body:
        """A swallowed failure that leaves no defaults (templates, elicitation)."""
        return self.ended(GO_NIL_MAP, FAILED, error)


def products_for(state: EmitState, step: WorkflowStepConfig, needs_status: bool) -> Products:
    """Variables for a step's record: output always, companions only where read."""
    parts = state.needs.of(step.id)
    kind = shape(step)
    products = Products(output=state.variable(step.id))
    if ("status" in parts or needs_status) and not kind.always_completes:
        products.status = state.variable(step.id, "_status")
    if "error" in parts:
        products.error = state.variable(step.id, "_error") if kind.can_fail_quietly else None
    if "content" in parts:
        state.note(
            "domain",
            "content-without-structured-content",
            "tool steps whose .content is read return no structuredContent: a script sees a "
            "tool's structuredContent or, without it, its content items, never both",
            step.id,
            step.where.at,
        )
        products.content = (
            products.output if kind.always_completes else state.variable(step.id, "_content")
        )
    return products


def with_condition(
    state: EmitState,
    step: WorkflowStepConfig,
    record: Record,
    depth: int,
    run: Callable[[int], Body],
) -> Body:
    """Guard ``run`` (given the block depth it runs at) with the step's condition, as vMCP
    evaluates it (S64, S65); ``depth`` is the step's own."""
    if not step.condition:
        return run(depth)
    condition = state.template(step.condition, state.env()).expr
    step_id = string(step.id)
    if not step.continues_on_error:
        return [
            if_(ir.call("vmcp_condition", step_id, condition), run(depth + 1), record.skipped())
        ]
    decision = ir.Name(state.variable(step.id, "_runs"))
    return [
        assign(decision.id, ir.call("vmcp_condition_outcome", step_id, condition)),
        if_(
            ir.Binary(decision, "==", ir.Literal(True)),
            run(depth + 1),
            [
                if_(
                    ir.Binary(decision, "==", ir.Literal(False)),
                    record.skipped(),
                    record.failed(decision),
                )
            ],
        ),
    ]
