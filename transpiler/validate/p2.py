"""P2: ``ValidateCompositeToolConfig`` (S13-S23), every finding, vMCP's own report marked.

vMCP joins the tool-level checks with ``"; "``, but from step validation and
from the defaultResults rule it keeps only the first error. Here every
failing check is reported; :attr:`P2Result.reported` lists the ones vMCP's
message contains.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from transpiler.config.model import CompositeToolConfig
from transpiler.config.schema_compile import json_schema_problem
from transpiler.diagnostics import Diagnostic
from transpiler.golang.values import GoValue
from transpiler.validate.checker import Checker
from transpiler.validate.defaults import default_results_findings
from transpiler.validate.steps import step_findings


@dataclass(frozen=True)
class P2Result:
    """All P2 findings for one tool, and the subset vMCP's error message carries."""

    diagnostics: tuple[Diagnostic, ...]
    reported: tuple[Diagnostic, ...]

    @property
    def message(self) -> str | None:
        """vMCP's text: ``validation failed: <e1>; <e2>``, or ``None`` when the tool passes."""
        if not self.reported:
            return None
        return "validation failed: " + "; ".join(d.message for d in self.reported)


def validate_composite_tool(tool: CompositeToolConfig, prefix: str) -> P2Result:
    """Run every P2 check on ``tool`` as vMCP names it (``compositeTools[0]``, ``spec``...)."""
    check = Checker(tool, prefix)
    reported: list[Diagnostic] = []
    everything: list[Diagnostic] = []
    for finding in _tool_fields(check):
        reported.append(finding)
        everything.append(finding)
    if tool.steps:
        for group in (step_findings(check), default_results_findings(check)):
            findings = list(group)
            everything.extend(findings)
            if findings:
                reported.append(findings[0])
    return P2Result(tuple(everything), tuple(reported))


def _tool_fields(check: Checker) -> Iterator[Diagnostic]:
    tool, p, where = check.tool, check.prefix, check.tool.where
    if not tool.name:
        yield check.error("P2.S14.name", f"{p}.name is required", where.of("name"))
    if not tool.description:
        yield check.error(
            "P2.S14.description", f"{p}.description is required", where.of("description")
        )
    if not tool.steps:
        yield check.error(
            "P2.S14.steps", f"{p}.steps must have at least one step", where.of("steps")
        )
    if tool.timeout < 0:
        yield check.error("P2.S14.timeout", f"{p}.timeout cannot be negative", where.of("timeout"))
    if tool.parameters:
        finding = _parameters(check, tool.parameters)
        if finding is not None:
            yield finding


def _parameters(check: Checker, params: Mapping[str, GoValue]) -> Diagnostic | None:
    p, where = check.prefix, check.tool.where.of("parameters")
    if "type" not in params:
        message = f"{p}.parameters: must have 'type' field (should be 'object' for JSON Schema)"
        return check.error("P2.S14.parametersType", message, where)
    kind = params["type"]
    if not isinstance(kind, str):
        return check.error(
            "P2.S14.parametersType", f"{p}.parameters: 'type' field must be a string", where
        )
    if kind != "object":
        return check.error(
            "P2.S14.parametersType",
            f"{p}.parameters: 'type' must be 'object' (got '{kind}')",
            where,
        )
    problem = json_schema_problem(params)
    if problem is not None:
        rule = (
            "P2.S14.parametersMarshal"
            if problem.startswith("failed to marshal")
            else "P2.S14.parametersSchema"
        )
        return check.error(rule, f"{p}.parameters: {problem}", where)
    return None
