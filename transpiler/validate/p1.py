"""P1: what vMCP's YAML loader rejects (strict decode S6-S8, parameters shape S12)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from transpiler.config.godecode import DecodeIssue
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation

PHASE = "P1"


@dataclass(frozen=True)
class P1Result:
    """Every P1 finding, and vMCP's own error text when it refuses the file."""

    diagnostics: tuple[Diagnostic, ...]
    reported: Diagnostic | None
    message: str | None


def decode_rule(issue: DecodeIssue) -> str:
    """The rule id of a yaml.v3 decode error."""
    text = issue.message
    if text.startswith("field "):
        return "P1.S7.unknownField"
    if text.startswith("mapping key "):
        return "P1.S8.duplicateKey"
    if text.startswith("cannot unmarshal "):
        return "P1.S8.type"
    if text.startswith("invalid duration: "):
        return "P1.S6.duration"
    return "P1.yaml.decode"


def check_loader(file: str, issues: Sequence[DecodeIssue], tools: Sequence[LoadedTool]) -> P1Result:
    """yaml.v3 decode errors of a config file, then the parameters shape of each tool (S12).

    vMCP reports the first fatal decode error alone, else all type errors
    together; the S12 check runs only when decoding succeeded and stops at
    the first failing tool.
    """
    diagnostics = [
        Diagnostic(
            decode_rule(issue),
            issue.message,
            SourceLocation(file, issue.line, issue.column),
            Severity.ERROR,
            phase=PHASE,
        )
        for issue in issues
    ]
    reported: Diagnostic | None = None
    message: str | None = None
    fatal = [index for index, issue in enumerate(issues) if issue.fatal]
    if fatal:
        reported = diagnostics[fatal[0]]
        message = f"failed to parse YAML: {issues[fatal[0]].go_text}"
    elif issues:
        reported = diagnostics[0]
        lines = "\n  ".join(issue.go_text for issue in issues)
        message = f"failed to parse YAML: yaml: unmarshal errors:\n  {lines}"
    for index, tool in enumerate(tools):
        for finding in parameter_shape(tool, f"compositeTools[{index}]"):
            diagnostics.append(finding)
            if message is None:
                reported = finding
                message = f"failed to process config: compositeTools[{index}]: {finding.message}"
    return P1Result(tuple(diagnostics), reported, message)


def parameter_shape(tool: LoadedTool, path: str) -> Iterator[Diagnostic]:
    """S12: ``parameters`` must look like an object JSON Schema (the loader's own check)."""
    params = tool.effective.parameters
    if not params:
        return
    name = tool.effective.name
    where = tool.effective.where.of("parameters")

    def finding(message: str, rule: str) -> Diagnostic:
        return Diagnostic(
            rule, f"tool {name}: {message}", where, Severity.ERROR, name or None, None, PHASE
        )

    if "type" not in params:
        yield finding(
            "parameters must have 'type' field (should be 'object' for JSON Schema)", "P1.S12.type"
        )
        return
    kind = params["type"]
    if not isinstance(kind, str):
        yield finding("parameters 'type' field must be a string", "P1.S12.type")
        return
    if kind != "object":
        yield finding(f"parameters 'type' must be 'object' (got '{kind}')", "P1.S12.type")
        return
    if "properties" in params and not isinstance(params["properties"], dict):
        yield finding("parameters 'properties' must be an object", "P1.S12.properties")
        return
    if "required" in params and not isinstance(params["required"], list):
        yield finding("parameters 'required' must be an array", "P1.S12.required")
