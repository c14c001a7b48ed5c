"""What happens to one composite tool: validity, emission, equivalence verdict, findings.

The same steps as ``emit`` and ``check``: a tool vMCP rejects is not
converted; a tool the emitter cannot express exactly is not converted; the
rest get the harness's verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from transpiler.config.units import LoadedTool
from transpiler.config.validate import PhaseVerdict, UnitReport
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation, TranspilerError
from transpiler.emit.report import EmitResult, Note
from transpiler.emit.script import emit_script
from transpiler.migrate.verdict import CheckOptions, ToolCheck, Verdict, check_script
from transpiler.plan import plan_tool


class Status(StrEnum):
    """A tool's migration status."""

    CERTIFIED = "certified"
    DIFFERS = "differs"
    DEVIATES = "deviates"
    OUT_OF_DOMAIN = "out-of-domain"
    UNCHECKED = "unchecked"
    NOT_CONVERTED = "not converted"
    ALREADY = "already migrated"
    CONFLICT = "conflict"


@dataclass(frozen=True)
class Finding:
    """A warning or deviation, always with the file:line and step it concerns."""

    kind: str
    text: str
    location: SourceLocation
    step: str | None = None

    def render(self) -> str:
        """``file:line: kind (step s): text``."""
        step = f" (step {self.step})" if self.step else ""
        where = f"{self.location.file}:{self.location.line}"
        return f"{where}: {self.kind}{step}: {self.text}"

    def to_json(self) -> dict[str, object]:
        """The finding as JSON."""
        return {
            "kind": self.kind,
            "text": self.text,
            "file": self.location.file,
            "line": self.location.line,
            "step": self.step,
        }


@dataclass(frozen=True)
class ToolOutcome:
    """One tool's fate; ``reason`` says why in one line."""

    tool: LoadedTool
    status: Status
    reason: str
    emitted: EmitResult | None = None
    check: ToolCheck | None = None
    findings: tuple[Finding, ...] = ()

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.config.name

    @property
    def location(self) -> SourceLocation:
        """Where the tool is written."""
        return tool_location(self.tool)

    @property
    def converted(self) -> bool:
        """Whether a script exists for the tool."""
        return self.emitted is not None


_VERDICT_STATUS = {
    Verdict.CERTIFIED: Status.CERTIFIED,
    Verdict.DIFFERS: Status.DIFFERS,
    Verdict.DEVIATES: Status.DEVIATES,
    Verdict.OUT_OF_DOMAIN: Status.OUT_OF_DOMAIN,
    Verdict.NOT_CONVERTED: Status.NOT_CONVERTED,
    Verdict.UNCHECKED: Status.UNCHECKED,
}


def tool_location(tool: LoadedTool) -> SourceLocation:
    """The tool's own position (its mapping), or its file."""
    where = tool.config.where.at
    return where if where.line > 0 else SourceLocation(tool.origin.file)


def source_label(tool: LoadedTool) -> str:
    """``file:line`` as a script's header cites it."""
    return f"{tool.origin.file}:{tool_location(tool).line}"


def judging_unit(
    tool: LoadedTool, own: UnitReport, referencing: Iterable[UnitReport]
) -> UnitReport:
    """The unit whose verdict decides the tool: its own, or a server that references it.

    A definition's serve-time checks run in the ``VirtualMCPServer`` that
    references it, so a server rejected because of this tool rejects it too.
    """
    if not own.valid:
        return own
    for unit in referencing:
        if not unit.valid and _reported(unit)[1].tool == tool.config.name:
            return unit
    return own


def rejection(tool: LoadedTool, report: UnitReport | None) -> ToolOutcome | None:
    """``not converted`` when vMCP rejects the tool's unit, with the finding vMCP reports."""
    if report is None or report.valid:
        return None
    reported = _reported(report)[1]
    mine = reported.tool in (None, tool.config.name)
    whose = "" if mine else f" (tool {reported.tool} beside it)"
    reason = unit_rejection(report, tool.origin.file).replace(":", f"{whose}:", 1)
    return ToolOutcome(tool, Status.NOT_CONVERTED, reason, findings=_warnings(tool, report))


def unit_rejection(report: UnitReport, file: str) -> str:
    """Why vMCP rejects a unit, in one line: the phase and the finding vMCP reports."""
    failing, reported = _reported(report)
    phase = f" at {failing.phase}" if failing is not None else ""
    where = reported.location
    place = f"line {where.line}" if where.file == file else f"{where.file}:{where.line}"
    step = f" (step {reported.step})" if reported.step else ""
    return f"vMCP rejects the configuration{phase}: {place}{step}: {_one_line(reported.message)}"


def _reported(report: UnitReport) -> tuple[PhaseVerdict | None, Diagnostic]:
    """The first failing phase and the finding vMCP reports for it (or the first error)."""
    failing = next((v for v in report.verdicts if not v.passed), None)
    if failing is not None and failing.reported is not None:
        return failing, failing.reported
    return failing, next(d for d in report.diagnostics if d.severity is Severity.ERROR)


def emit(
    tool: LoadedTool, schemas: Mapping[str, Any] | None, fixes: Iterable[str]
) -> EmitResult | str:
    """The script (ending with one line break), or why the emitter refused.

    Trailing blank lines are dropped so the script checked is byte for byte the
    one written into the configuration (a YAML ``|`` block keeps one).
    """
    try:
        emitted = emit_script(tool.effective, source_label(tool), schemas, tuple(fixes))
    except TranspilerError as error:
        return _one_line(str(error))
    return replace(emitted, script=emitted.script.rstrip("\n") + "\n")


def decide(
    tool: LoadedTool,
    report: UnitReport | None,
    emitted: EmitResult | str,
    options: CheckOptions,
) -> ToolOutcome:
    """The outcome of a valid tool: not converted, or the harness's verdict on its script."""
    findings = _warnings(tool, report)
    if isinstance(emitted, str):
        reason = f"the emitter cannot express it exactly: {emitted}"
        return ToolOutcome(tool, Status.NOT_CONVERTED, reason, findings=findings)
    check = check_script(tool, emitted, options)
    notes = tuple(_note(tool, note) for note in (*emitted.deviations, *emitted.warnings))
    return ToolOutcome(
        tool,
        _VERDICT_STATUS[check.verdict],
        check.reason,
        emitted,
        check,
        findings + notes + _annotations(tool),
    )


def _annotations(tool: LoadedTool) -> tuple[Finding, ...]:
    """Declared annotations are kept, but THV-0051's ScriptedToolConfig has no such field."""
    if tool.config.annotations is None:
        return ()
    text = (
        "annotations are kept as written, but THV-0051's ScriptedToolConfig declares no "
        "annotations field: check that your vMCP accepts them on a scripted tool"
    )
    return (Finding("warning", text, tool.config.where.of("annotations")),)


def _warnings(tool: LoadedTool, report: UnitReport | None) -> tuple[Finding, ...]:
    """The validator's and the planner's warnings about ``tool`` (races, unknown steps...)."""
    found = list(report.about(tool.config.name, tool.origin.file)) if report is not None else []
    found.extend(plan_tool(tool).warnings)
    unique = dict.fromkeys(
        Finding("warning", _one_line(d.message), d.location, d.step)
        for d in found
        if d.severity is Severity.WARNING
    )
    return tuple(unique)


def _note(tool: LoadedTool, note: Note) -> Finding:
    location = note.location if note.location is not None else tool_location(tool)
    return Finding(note.kind, note.text, location, note.step)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())
