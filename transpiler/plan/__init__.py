"""Execution plan of a composite tool: levels, dataflow and the races they reveal.

``plan_tool(tool)`` gives the Kahn levels vMCP runs (S50), every template
read of another step's result, and a warning for each read of a step that is
not an ancestor through ``dependsOn``: vMCP orders steps only by
``dependsOn``, so such a read races (R2).
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.config.model import WorkflowStepConfig
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation
from transpiler.plan.dataflow import OUTPUT, DataflowEdge, dataflow
from transpiler.plan.levels import PlanError, ancestors, execution_levels

__all__ = ["DataflowEdge", "PlanError", "ToolPlan", "execution_levels", "plan_tool"]


@dataclass(frozen=True)
class ToolPlan:
    """The plan of one tool; ``levels`` is empty when the steps have no order."""

    tool: LoadedTool
    levels: tuple[tuple[str, ...], ...]
    dataflow: tuple[DataflowEdge, ...]
    warnings: tuple[Diagnostic, ...]


def plan_tool(tool: LoadedTool) -> ToolPlan:
    """Levels, dataflow edges and race warnings for ``tool`` (as vMCP runs it)."""
    config = tool.effective
    name = config.name or None
    steps = {step.id: step for step in config.steps}
    edges = dataflow(config)
    warnings: list[Diagnostic] = []
    try:
        levels = execution_levels(config.steps)
        before = ancestors(config.steps)
    except PlanError as error:
        levels, before = (), {}
        warnings.append(
            Diagnostic(
                "PLAN.noOrder",
                f"no execution order: {error}",
                config.where.of("steps"),
                Severity.ERROR,
                name,
                None,
                "P4",
            )
        )
    level_of = {step: index for index, level in enumerate(levels) for step in level}
    for edge in edges:
        if edge.step not in steps:
            where = (
                config.where.of("output")
                if edge.reader == OUTPUT
                else _site_location(steps[edge.reader], edge)
            )
            reader = None if edge.reader == OUTPUT else edge.reader
            warnings.append(
                Diagnostic(
                    "W.plan.unknownStep",
                    f"{edge.site} reads .{'.'.join(edge.path)}, but there "
                    f'is no step {edge.step}: it renders "<no value>"',
                    where,
                    Severity.WARNING,
                    name,
                    reader,
                    "P6",
                )
            )
        elif edge.reader != OUTPUT and levels and edge.step not in before[edge.reader]:
            warnings.append(_race(name, steps[edge.reader], edge, level_of))
    return ToolPlan(tool, levels, edges, tuple(warnings))


def _site_location(step: WorkflowStepConfig, edge: DataflowEdge) -> SourceLocation:
    return step.where.of(edge.site.split(".")[0].split("[")[0])


def _race(
    name: str | None, reader: WorkflowStepConfig, edge: DataflowEdge, level_of: dict[str, int]
) -> Diagnostic:
    """A read of a step that ``dependsOn`` does not order before the reader (R2)."""
    read = (
        f"{edge.site} reads .{'.'.join(edge.path)} but {edge.reader} does not depend on {edge.step}"
    )
    if level_of[edge.step] < level_of[edge.reader]:
        rule = "W.R2.implicitOrder"
        message = (
            f"{read}: it is finished only because it sits in an earlier level; "
            "add it to dependsOn to make the order explicit"
        )
    else:
        rule = "W.R2.race"
        what = "its own result" if edge.step == edge.reader else f"step {edge.step}"
        message = f"{read}: it may see {what} absent, running or finished (R2)"
    return Diagnostic(
        rule, message, _site_location(reader, edge), Severity.WARNING, name, edge.reader, "P6"
    )
