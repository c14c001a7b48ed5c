"""S15-S22a: ``ValidateWorkflowSteps``: ids, each step (type, templates, dependencies,
onError, elicitation handlers), then cycles."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Final

from transpiler.config.model import StepKind, WorkflowStepConfig, exhaustive
from transpiler.config.schema_compile import json_schema_problem
from transpiler.diagnostics import Diagnostic
from transpiler.golang.strconv import quote
from transpiler.validate.checker import Checker
from transpiler.validate.cycles import cyclic_components
from transpiler.validate.foreach import TOOL_NAME, for_each
from transpiler.validate.templates import template_error

ERROR_ACTIONS: Final = ("abort", "continue", "retry")
RESPONSE_ACTIONS: Final = ("abort", "continue", "skip_remaining")


def step_findings(check: Checker) -> Iterator[Diagnostic]:
    """ValidateWorkflowSteps: ids first, then each step, then cycles (S15-S22a)."""
    steps, sp = check.tool.steps, check.steps_prefix
    seen: set[str] = set()
    for index, step in enumerate(steps):
        if not step.id:
            yield check.error(
                "P2.S15.idRequired", f"{sp}[{index}].id is required", step.where.of("id")
            )
        elif step.id in seen:
            yield check.error(
                "P2.S15.idDuplicated",
                f"{sp}[{index}].id {quote(step.id)} is duplicated",
                step.where.of("id"),
                step.id,
            )
        seen.add(step.id)
    for index, step in enumerate(steps):
        yield from _step(check, index, step, seen)
    yield from _cycles(check)


def _step(
    check: Checker, index: int, step: WorkflowStepConfig, ids: set[str]
) -> Iterator[Diagnostic]:
    s = f"{check.steps_prefix}[{index}]"
    sid = step.id or None
    where = step.where
    yield from _step_type(check, s, step)
    yield from _step_templates(check, s, step)
    for dependency in step.depends_on:
        if dependency not in ids:
            yield check.error(
                "P2.S20.dependsOn",
                f"{s}.dependsOn references unknown step {quote(dependency)}",
                where.of("dependsOn"),
                sid,
            )
    if step.on_error is not None and step.on_error.action:
        handler = step.on_error
        if handler.action not in ERROR_ACTIONS:
            yield check.error(
                "P2.S21.onErrorAction",
                f"{s}.onError.action must be one of: abort, continue, retry",
                handler.where.of("action"),
                sid,
            )
        elif handler.action == "retry" and handler.retry_count < 1:
            yield check.error(
                "P2.S21.retryCount",
                f"{s}.onError.retryCount must be at least 1 when action is retry",
                handler.where.of("retryCount"),
                sid,
            )
    row = step.kind_row
    for name, response in (("onDecline", step.on_decline), ("onCancel", step.on_cancel)):
        if response is None or row is None or not row.uses(name):
            continue
        if not response.action:
            yield check.error(
                "P2.S22.actionRequired",
                f"{s}.{name}.action is required",
                response.where.of("action"),
                sid,
            )
        elif response.action not in RESPONSE_ACTIONS:
            yield check.error(
                "P2.S22.action",
                f"{s}.{name}.action must be one of: abort, continue, skip_remaining",
                response.where.of("action"),
                sid,
            )


def _step_type(check: Checker, s: str, step: WorkflowStepConfig) -> Iterator[Diagnostic]:
    sid, where = step.id or None, step.where
    if not step.type and step.tool and step.message:
        yield check.error(
            "P2.S16.toolAndMessage",
            f"{s} cannot have both tool and message fields - use explicit type to clarify intent",
            where.at,
            sid,
        )
        return
    kind = step.kind
    if kind is None:
        yield check.error(
            "P2.S16.type",
            f"{s}.type must be one of: {', '.join(StepKind)}",
            where.of("type"),
            sid,
        )
    else:
        yield from _KIND_CHECKS[kind](check, s, step)


def _tool_step(check: Checker, s: str, step: WorkflowStepConfig) -> Iterator[Diagnostic]:
    sid, where = step.id or None, step.where
    if not step.tool:
        yield check.error(
            "P2.S16.toolRequired", f"{s}.tool is required when type is tool", where.of("tool"), sid
        )
    elif not TOOL_NAME.fullmatch(step.tool):
        yield check.error(
            "P2.S16.toolName", f"{s}.tool must be a valid tool name", where.of("tool"), sid
        )


def _elicitation_step(check: Checker, s: str, step: WorkflowStepConfig) -> Iterator[Diagnostic]:
    if not step.message:
        yield check.error(
            "P2.S16.messageRequired",
            f"{s}.message is required when type is elicitation",
            step.where.of("message"),
            step.id or None,
        )


#: Each kind's own checks (S16, S17).
_KIND_CHECKS: Final[
    Mapping[StepKind, Callable[[Checker, str, WorkflowStepConfig], Iterator[Diagnostic]]]
] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: _tool_step,
        StepKind.ELICITATION: _elicitation_step,
        StepKind.FOR_EACH: for_each,
    },
)


def _step_templates(check: Checker, s: str, step: WorkflowStepConfig) -> Iterator[Diagnostic]:
    """S18 (top-level argument strings, condition, message) and S19 (schema)."""
    sid, where = step.id or None, step.where
    for key, value in (step.arguments or {}).items():
        if isinstance(value, str):
            problem = template_error(value)
            if problem is not None:
                yield check.error(
                    "P2.S18.argumentTemplate",
                    f"{s}.arguments[{key}]: invalid template: invalid template syntax: {problem}",
                    where.of("arguments"),
                    sid,
                )
    for key, text in (("condition", step.condition), ("message", step.message)):
        problem = template_error(text) if text else None
        if problem is not None:
            yield check.error(
                f"P2.S18.{key}Template",
                f"{s}.{key}: invalid template: invalid template syntax: {problem}",
                where.of(key),
                sid,
            )
    if step.schema:
        problem = json_schema_problem(step.schema)
        if problem is not None:
            yield check.error("P2.S19.schema", f"{s}.schema: {problem}", where.of("schema"), sid)


def _cycles(check: Checker) -> Iterator[Diagnostic]:
    """S22a: one finding per dependency cycle (vMCP names one step of one cycle, by map order)."""
    graph: dict[str, tuple[str, ...]] = {}
    first: dict[str, WorkflowStepConfig] = {}
    for step in check.tool.steps:
        graph[step.id] = step.depends_on
        first.setdefault(step.id, step)
    for cycle in cyclic_components(graph):
        step = first[cycle[0]]
        yield check.error(
            "P2.S22a.cycle",
            f"{check.steps_prefix}: dependency cycle detected involving step {quote(cycle[0])}",
            step.where.of("dependsOn"),
            step.id or None,
        )
