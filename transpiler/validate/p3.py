"""P3: ``ConvertConfigToWorkflowDefinitions`` at ``vmcp serve`` start (S30-S33)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from transpiler.config.model import StepKind, WorkflowStepConfig, exhaustive
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation

PHASE = "P3"
PREFIX = "failed to convert composite tool definitions: "


@dataclass(frozen=True)
class P3Result:
    """All conversion failures; vMCP stops at the first (``reported``)."""

    diagnostics: tuple[Diagnostic, ...]
    converted: tuple[LoadedTool, ...]

    @property
    def reported(self) -> Diagnostic | None:
        """The error ``vmcp serve`` prints."""
        return self.diagnostics[0] if self.diagnostics else None

    @property
    def message(self) -> str | None:
        """vMCP's full text."""
        return PREFIX + self.diagnostics[0].message if self.diagnostics else None


def convert(tools: Sequence[LoadedTool]) -> P3Result:
    """Convert each tool; ``converted`` holds those that convert (types defaulted to ``tool``)."""
    findings: list[Diagnostic] = []
    converted: list[LoadedTool] = []
    names: set[str] = set()
    for tool in tools:
        config = tool.effective
        name = config.name
        where = config.where
        if not name:
            findings.append(
                _error(
                    "P3.S30.name", "composite tool name is required", where.of("name"), None, None
                )
            )
            continue
        if name in names:
            findings.append(
                _error(
                    "P3.S30.duplicateName",
                    f"duplicate composite tool name: {name}",
                    where.of("name"),
                    name,
                    None,
                )
            )
            continue
        names.add(name)
        if not config.steps:
            message = (
                f"failed to convert steps for composite tool {name}: "
                "workflow must have at least one step"
            )
            findings.append(_error("P3.S30.steps", message, where.of("steps"), name, None))
            continue
        problems = [
            finding
            for index, step in enumerate(config.steps)
            for finding in _step(
                index, step, name, f"failed to convert steps for composite tool {name}: "
            )
        ]
        findings.extend(problems)
        if not problems:
            steps = tuple(_converted_step(step) for step in config.steps)
            converted.append(replace(tool, effective=replace(config, steps=steps)))
    return P3Result(tuple(findings), tuple(converted))


def _error(
    rule: str, message: str, where: SourceLocation, tool: str | None, step: str | None
) -> Diagnostic:
    return Diagnostic(rule, message, where, Severity.ERROR, tool, step, PHASE)


def _step(index: int, step: WorkflowStepConfig, tool: str, prefix: str) -> Iterator[Diagnostic]:
    """``convertSingleStep``: id, type, elicitation message and schema, then the inner step."""
    where = step.where
    sid = step.id or None
    if not step.id:
        yield _error(
            "P3.S30.stepId",
            f"{prefix}step {index}: step ID is required",
            where.of("id"),
            tool,
            None,
        )
        return
    kind = step.kind
    if kind is None:
        yield _error(
            "P3.S30.type",
            f"{prefix}step {step.id}: invalid step type {step.effective_type}",
            where.of("type"),
            tool,
            sid,
        )
        return
    yield from _KIND_CONVERSIONS[kind](step, tool, prefix)


def _tool_step(step: WorkflowStepConfig, tool: str, prefix: str) -> Iterator[Diagnostic]:
    if not step.tool:
        message = f"{prefix}step {step.id}: tool name is required for tool steps"
        yield _error("P3.S30.toolRequired", message, step.where.of("tool"), tool, step.id or None)


def _elicitation_step(step: WorkflowStepConfig, tool: str, prefix: str) -> Iterator[Diagnostic]:
    sid = step.id or None
    if not step.message:
        message = f"{prefix}step {step.id}: message is required for elicitation steps"
        yield _error("P3.S30.message", message, step.where.of("message"), tool, sid)
    elif not step.schema:
        message = f"{prefix}step {step.id}: schema is required for elicitation steps"
        yield _error("P3.S30.schema", message, step.where.of("schema"), tool, sid)


def _for_each_step(step: WorkflowStepConfig, tool: str, prefix: str) -> Iterator[Diagnostic]:
    if step.inner_step is not None:
        inner_prefix = f"{prefix}step {step.id}: failed to convert inner step: "
        for finding in _step(0, step.inner_step, tool, inner_prefix):
            rule = "P3.S33.innerStepId" if finding.rule == "P3.S30.stepId" else finding.rule
            yield replace(finding, rule=rule, step=step.id or None)


#: Each kind's conversion checks (S30, S33).
_KIND_CONVERSIONS: Final[
    Mapping[StepKind, Callable[[WorkflowStepConfig, str, str], Iterator[Diagnostic]]]
] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: _tool_step,
        StepKind.ELICITATION: _elicitation_step,
        StepKind.FOR_EACH: _for_each_step,
    },
)


def _converted_step(step: WorkflowStepConfig) -> WorkflowStepConfig:
    """The engine's view: empty type is ``tool``; only a kind that uses the inner ``step``
    keeps it."""
    row = step.kind_row
    inner = step.inner_step if row is not None and row.uses("step") else None
    if inner is not None:
        inner = _converted_step(inner)
    return replace(step, type=step.effective_type, inner_step=inner)
