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
from transpiler.emit.exact import statements as st
from transpiler.emit.exact.layout import Code, Expr, call, string
from transpiler.emit.exact.scope import COMPLETED, EmitState, Products
from transpiler.emit.literals import literal

FAILED = '"failed"'
SKIPPED = '"skipped"'


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


def defaults(step: WorkflowStepConfig) -> Expr:
    """What a skipped step (or a tool step whose call failed under continue) leaves as output."""
    if step.default_results is None:
        return Code("GO_NIL_MAP")
    return Code(literal(step.default_results))


class Record:
    """Assignments of one step's output and companions, at one block depth."""

    def __init__(self, state: EmitState, step: WorkflowStepConfig, products: Products) -> None:
        self.state = state
        self.step = step
        self.products = products

    def ended(self, depth: int, output: Expr, status: str, error: Expr | None) -> st.Body:
        """The step ended with this output, status and error."""
        return [
            st.assign(self.products.output, output, depth),
            *self._companions(depth, status, error),
        ]

    def completed(self, depth: int) -> st.Body:
        """The step completed and its output variable is already set: the companions."""
        return self._companions(depth, COMPLETED, None)

    def _companions(self, depth: int, status: str, error: Expr | None) -> st.Body:
        body: st.Body = []
        if self.products.status not in (COMPLETED,):
            body.append(st.assign(self.products.status, Code(status), depth))
        if self.products.error is not None:
            body.append(st.assign(self.products.error, error or Code("None"), depth))
        content_var = self.products.content
        if content_var is not None and content_var != self.products.output:
            if status == COMPLETED:
                content: Expr = Code(self.products.output)
            elif status in (FAILED, SKIPPED):
                content = Code("{}")
            else:
                content = Code(f"{self.products.output} if ({status}) == {COMPLETED} else {{}}")
            body.append(st.assign(content_var, content, depth))
        return body

    def skipped(self, depth: int) -> st.Body:
        """The condition was false: defaults (or a nil map) and status ``skipped``."""
        return self.ended(depth, defaults(self.step), SKIPPED, None)

    def failed(self, depth: int, error: Expr) -> st.Body:
        """A swallowed failure that leaves no defaults (templates, elicitation)."""
        return self.ended(depth, Code("GO_NIL_MAP"), FAILED, error)


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
    run: Callable[[int], st.Body],
) -> st.Body:
    """Guard ``run`` with the step's condition, as vMCP evaluates it (S64, S65)."""
    if not step.condition:
        return run(depth)
    compiled = state.template(step.condition, state.env())
    rendered = Code(ir.flat(compiled.expr))
    step_id = string(step.id)
    if not step.continues_on_error:
        return [
            st.if_(
                call("vmcp_condition", step_id, rendered),
                run(depth + 1),
                depth,
                orelse=record.skipped(depth + 1),
            )
        ]
    decision = state.variable(step.id, "_runs")
    return [
        st.assign(decision, call("vmcp_condition_outcome", step_id, rendered), depth),
        st.if_(
            Code(f"{decision} == True"),
            run(depth + 1),
            depth,
            orelse=[
                st.if_(
                    Code(f"{decision} == False"),
                    record.skipped(depth + 2),
                    depth + 1,
                    orelse=record.failed(depth + 2, Code(decision)),
                )
            ],
        ),
    ]
