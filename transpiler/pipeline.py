"""One composite tool through the pipeline: vMCP's verdict, the script, the harness's verdict.

The one home of what happens to a tool, which the CLI (``emit``, ``check``,
``migrate``) and the library both use: a tool vMCP rejects is not converted
(with vMCP's reason); otherwise it is emitted in the chosen style and, when
asked, the harness checks it. The outcome carries the verdict
(:class:`~transpiler.harness.judging.verdict.Verdict`), the harness's report, and
every remark (warnings, declared deviations, findings) at its file:line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from transpiler.composite.advertise import Hidden
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.config.tool_annotations import annotations_to_mcp
from transpiler.config.units import LoadedTool
from transpiler.deviations import Deviation
from transpiler.diagnostics import (
    Diagnostic,
    Severity,
    SourceLocation,
    TranspilerError,
    phase_text,
)
from transpiler.emit import emit_tool
from transpiler.emit.report import EmitResult, Note
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.listing import (
    ScriptedEntry,
    advertised,
    entry_annotations,
    entry_classes,
    hidden_advice,
    hints_text,
    lost_annotations,
)
from transpiler.plan import plan_tool
from transpiler.validate import PhaseVerdict, UnitReport, ValidationReport


@dataclass(frozen=True)
class Remark:
    """A warning, declared deviation or finding, with the file:line and step it concerns."""

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


class Pairing(StrEnum):
    """How a composite tool pairs with a scripted tool of the same name in its config."""

    NEW = "new"
    ALREADY = "already migrated"
    CONFLICT = "conflict"


@dataclass(frozen=True)
class ToolOutcome:
    """One tool's fate; ``reason`` says why in one line.

    ``verdict`` is None when the script was emitted but not checked;
    ``report`` is the harness's report when it was. ``hidden``: vMCP hides the tool, so
    it is left as it is (:func:`hidden`).
    """

    tool: LoadedTool
    verdict: Verdict | None
    reason: str
    emitted: EmitResult | None = None
    report: ToolReport | None = None
    remarks: tuple[Remark, ...] = ()
    pairing: Pairing = Pairing.NEW
    hidden: bool = False

    def passes(self, accept: frozenset[Deviation] | None) -> bool:
        """Whether the gate lets it through (see :meth:`ToolReport.passes`)."""
        return self.report is not None and self.report.passes(accept)

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


def tool_location(tool: LoadedTool) -> SourceLocation:
    """The tool's own position (its mapping), or its file."""
    where = tool.config.where.at
    return where if where.line > 0 else SourceLocation(tool.origin.file)


def source_label(tool: LoadedTool) -> str:
    """``file:line`` as a script's header cites it."""
    return f"{tool.origin.file}:{tool_location(tool).line}"


def tool_key(tool: LoadedTool) -> tuple[str, int, str]:
    """A tool's identity in its input: file, document, path."""
    return tool.origin.file, tool.origin.document, tool.origin.path


def judging_units(report: ValidationReport) -> dict[tuple[str, int, str], UnitReport]:
    """For each tool (by :func:`tool_key`), the unit whose verdict decides it."""
    own: dict[tuple[str, int, str], UnitReport] = {}
    referencing: dict[tuple[str, int, str], list[UnitReport]] = {}
    tools: dict[tuple[str, int, str], LoadedTool] = {}
    for unit in report.units:
        for tool in unit.unit.tools:
            if tool.origin.referenced_by is None:
                own[tool_key(tool)] = unit
                tools[tool_key(tool)] = tool
            else:
                referencing.setdefault(tool_key(tool), []).append(unit)
    return {
        key: judging_unit(tool, own[key], referencing.get(key, [])) for key, tool in tools.items()
    }


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
    return ToolOutcome(tool, Verdict.NOT_CONVERTED, reason, remarks=_warnings(tool, report))


def rejected_files(report: ValidationReport) -> dict[str, str]:
    """Each file vMCP rejects before any composite tool of it is read (a legacy snake_case
    layout, YAML the loader cannot decode), with the phase and vMCP's finding."""
    return {
        unit.unit.file: unit_rejection(unit, unit.unit.file)
        for unit in report.units
        if not unit.valid and not unit.unit.tools and not unit.unit.scripted
    }


def unit_rejection(report: UnitReport, file: str) -> str:
    """Why vMCP rejects a unit, in one line: the phase and the finding vMCP reports."""
    failing, reported = _reported(report)
    phase = f" at {phase_text(failing.phase)}" if failing is not None else ""
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


def hidden(tool: LoadedTool, unit: UnitReport | None, options: CheckOptions) -> ToolOutcome | None:
    """``not converted`` when vMCP hides the tool for its annotations (they claim more than the
    floor its step tools give): clients do not see it and no call of it runs, so there is
    nothing to migrate; it is left as it is, with the two ways out. (A name that collides with
    a backend tool's depends on the session's backends, which ``check`` reports.)"""
    verdict = advertised(tool.effective, options.tool_annotations)
    if not isinstance(verdict, Hidden):
        return None
    reason = hidden_advice(tool.effective, verdict)
    return ToolOutcome(
        tool, Verdict.NOT_CONVERTED, reason, remarks=_warnings(tool, unit), hidden=True
    )


def emit(tool: LoadedTool, options: CheckOptions) -> EmitResult | str:
    """The script (ending with one line break), or why the emitter refused; it declares the
    classes the entry ``migrate`` writes under ``options.target`` shows.

    Trailing blank lines are dropped so the script checked is byte for byte the
    one written into the configuration (a YAML ``|`` block keeps one).
    """
    try:
        emitted = emit_tool(
            tool.effective,
            source_label(tool),
            style=options.style,
            tool_schemas=options.tool_schemas,
            fixes=options.fixes,
            inline_helpers=options.inline_helpers,
            entry_deviations=entry_classes(tool.config, options.tool_annotations, options.target),
        )
    except TranspilerError as error:
        return _one_line(str(error))
    return replace(emitted, script=emitted.script.rstrip("\n") + "\n")


def decide(
    tool: LoadedTool,
    report: UnitReport | None,
    emitted: EmitResult | str,
    options: CheckOptions,
    check: bool = True,
) -> ToolOutcome:
    """The outcome of a valid tool: not converted, or its script and (``check``) its verdict."""
    remarks = _warnings(tool, report)
    if isinstance(emitted, str):
        reason = f"the emitter cannot express it: {emitted}"
        return ToolOutcome(tool, Verdict.NOT_CONVERTED, reason, remarks=remarks)
    notes = tuple(_note(tool, note) for note in (*emitted.deviations, *emitted.warnings))
    remarks = remarks + notes + _annotations(tool, options)
    if not check:
        return ToolOutcome(tool, None, "converted (not checked)", emitted, remarks=remarks)
    return _checked(tool, options, remarks, emitted)


def decide_script(
    tool: LoadedTool,
    script: str,
    where: str,
    modules: Mapping[str, str],
    options: CheckOptions,
    entry: ScriptedEntry | None = None,
) -> ToolOutcome:
    """The outcome of a script someone wrote (or edited) for a valid tool, its scripted tool
    listed with ``entry`` (None: the entry ``migrate`` writes): the harness's verdict on it."""
    return _checked(
        tool, options, (), None, script=script, modules=modules, source=where, entry=entry
    )


def _checked(
    tool: LoadedTool,
    options: CheckOptions,
    remarks: tuple[Remark, ...],
    emitted: EmitResult | None,
    script: str | None = None,
    modules: Mapping[str, str] | None = None,
    source: str = "",
    entry: ScriptedEntry | None = None,
) -> ToolOutcome:
    try:
        harness = check_tool(
            tool,
            options,
            script=script,
            emitted=emitted,
            modules=modules,
            source=source,
            entry=entry,
        )
    except (TranspilerError, RecursionError) as error:
        reason = f"the equivalence check could not finish: {error or 'too deep'}"
        return ToolOutcome(tool, Verdict.UNCHECKED, reason, emitted, remarks=remarks)
    findings = tuple(
        Remark("finding", finding.render(), tool_location(tool), finding.step)
        for finding in harness.findings
    )
    return ToolOutcome(
        tool, harness.verdict, _verdict_reason(harness), emitted, harness, remarks + findings
    )


def _verdict_reason(report: ToolReport) -> str:
    if report.reason:
        return _one_line(report.reason)
    engines = ", ".join(report.engines)
    seen = f"{report.scenarios} scenarios, {report.distinct_paths} paths on {engines}"
    if report.verdict is Verdict.EQUIVALENT_EXCEPT:
        return f"equivalent except for {', '.join(report.observed)} ({seen})"
    return f"{report.verdict} ({seen})"


def _annotations(tool: LoadedTool, options: CheckOptions) -> tuple[Remark, ...]:
    """What the scripted tool's entry holds of annotations under ``options.target``, against
    what vMCP lists for the composite tool (the backends' annotations from ``--tools``), each
    hint with the step tools vMCP derives it from (:mod:`transpiler.listing`)."""
    config, backends, target = tool.config, options.tool_annotations, options.target
    known = backends or {}
    own = annotations_to_mcp(config.annotations)
    where = config.where.of("annotations") if config.annotations else tool_location(tool)
    written = entry_annotations(config, backends, target)
    lost = lost_annotations(config, backends, target)
    if written is None and not lost and not own:
        return ()
    if written is None:
        dropped = f"; the composite tool's `annotations:` (line {where.line}) is not carried"
        text = (
            f"the scripted entry holds no annotations ({target}: THV-0051's ScriptedToolConfig "
            f"has none{dropped if own else ''})"
        )
        if lost:
            text += (
                f"; clients no longer see {hints_text(config, lost, known)}, which vMCP lists "
                f"for the composite tool: declared as `listing`; --target "
                f"{THV_0051_ANNOTATIONS} writes them for a vMCP build that takes them"
            )
        return (Remark("annotations", text, where),)
    shown = hints_text(config, written, known)
    if written == own:
        text = f"the scripted entry keeps its annotations as written ({shown}): vMCP lists these"
    else:
        text = (
            f"the scripted entry holds vMCP's listing: {shown} (the composite tool's own: "
            f"{hints_text(config, own) if own else 'none'})"
        )
    return (Remark("annotations", text, where),)


def _warnings(tool: LoadedTool, report: UnitReport | None) -> tuple[Remark, ...]:
    """The validator's and the planner's warnings about ``tool`` (races, unknown steps...)."""
    found = list(report.about(tool.config.name, tool.origin.file)) if report is not None else []
    found.extend(plan_tool(tool).warnings)
    unique = dict.fromkeys(
        Remark("warning", _one_line(d.message), d.location, d.step)
        for d in found
        if d.severity is Severity.WARNING
    )
    return tuple(unique)


def _note(tool: LoadedTool, note: Note) -> Remark:
    location = note.location if note.location is not None else tool_location(tool)
    text = f"{note.name}: {note.text}" if note.kind == "deviation" else note.text
    return Remark(note.kind, text, location, note.step)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())
