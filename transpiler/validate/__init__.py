"""Judge composite tools exactly as vMCP (and Kubernetes) would, phase by phase.

:func:`validate` takes a :class:`~transpiler.config.loader.LoadResult` and
returns a :class:`ValidationReport`: every finding as a
:class:`~transpiler.diagnostics.Diagnostic` (rule ids in
:mod:`transpiler.validate.rules`), and per config unit a
:class:`PhaseVerdict` for each phase saying whether vMCP passes it and, when
not, the text vMCP itself prints and the diagnostic behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from transpiler.composite.advertise import BackendCatalog
from transpiler.config.model import DocumentKind
from transpiler.config.scripted import ScriptReader
from transpiler.config.units import ConfigUnit, LoadedTool, LoadResult
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation
from transpiler.golang.strconv import quote
from transpiler.reading import read_text
from transpiler.validate.advice import advise
from transpiler.validate.gate import collision_warnings, gate_warnings
from transpiler.validate.p1 import check_loader, decode_rule, parameter_shape
from transpiler.validate.p2 import validate_composite_tool
from transpiler.validate.p3 import convert
from transpiler.validate.p4 import validate_workflows
from transpiler.validate.scripted import ScriptedCheck, check_scripted

__all__ = [
    "PhaseVerdict",
    "ScriptedCheck",
    "UnitReport",
    "ValidationReport",
    "validate",
    "validate_unit",
]


@dataclass(frozen=True)
class PhaseVerdict:
    """One phase's outcome for a unit: ``message`` is what vMCP (or the API server) prints."""

    phase: str
    passed: bool
    message: str | None = None
    reported: Diagnostic | None = None


@dataclass(frozen=True)
class UnitReport:
    """Findings and per-phase verdicts for one config unit, and each of its own scripted tools
    as its target loads them."""

    unit: ConfigUnit
    diagnostics: tuple[Diagnostic, ...]
    verdicts: tuple[PhaseVerdict, ...]
    scripted: tuple[ScriptedCheck, ...] = ()

    @property
    def valid(self) -> bool:
        """No error at any phase."""
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def verdict(self, phase: str) -> PhaseVerdict | None:
        """The verdict of ``phase`` (``P1``..``P4``, ``admission``, ``operator``), if it applies."""
        return next((v for v in self.verdicts if v.phase == phase), None)

    @cached_property
    def _by_tool(self) -> dict[tuple[str | None, str], list[Diagnostic]]:
        found: dict[tuple[str | None, str], list[Diagnostic]] = {}
        for diagnostic in self.diagnostics:
            key = (diagnostic.tool, diagnostic.location.file)
            found.setdefault(key, []).append(diagnostic)
        return found

    def about(self, tool: str, file: str) -> tuple[Diagnostic, ...]:
        """The findings about the tool named ``tool`` written in ``file``, in order."""
        return tuple(self._by_tool.get((tool, file), ()))

    def first_failure(self, phases: tuple[str, ...]) -> PhaseVerdict | None:
        """The first failing verdict among ``phases``, taken in the order given."""
        verdicts = (self.verdict(phase) for phase in phases)
        return next((v for v in verdicts if v is not None and not v.passed), None)


@dataclass(frozen=True)
class ValidationReport:
    """The whole input's verdict."""

    units: tuple[UnitReport, ...]
    load: LoadResult

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Load problems, notes and every unit's findings."""
        found = [*self.load.unreadable, *self.load.errors, *self.load.notes]
        for unit in self.units:
            found.extend(unit.diagnostics)
        return tuple(found)

    @property
    def valid(self) -> bool:
        """No error anywhere."""
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


def validate(
    load: LoadResult, backends: BackendCatalog | None = None, read: ScriptReader = read_text
) -> ValidationReport:
    """Validate every unit of a load result (``scriptFile``s read with ``read``); with
    ``backends``, also warn about tools the advertise/call gate would drop among them
    (:mod:`.gate`)."""
    units = tuple(validate_unit(unit, read) for unit in load.units)
    if backends is not None:
        units = tuple(
            replace(
                report,
                diagnostics=(
                    *report.diagnostics,
                    *(w for tool in report.unit.tools for w in gate_warnings(tool, backends)),
                    *collision_warnings(report.unit.tools, backends),
                ),
            )
            for report in units
        )
    return ValidationReport(units, load)


def validate_unit(unit: ConfigUnit, read: ScriptReader = read_text) -> UnitReport:
    """All phases for one unit, in pipeline order."""
    checks, together = check_scripted(unit, read)
    scripted = [*(d for check in checks for d in check.findings), *together]
    if unit.kind is DocumentKind.VMCP_CONFIG:
        return replace(_vmcp_config(unit, scripted), scripted=checks)
    return replace(_kubernetes(unit, scripted), scripted=checks)


def _first_error(
    found: list[Diagnostic], message: str | None, reported: Diagnostic | None
) -> tuple[str | None, Diagnostic | None]:
    """The phase's message and reported finding: the ones given, else the first error of
    ``found`` (vMCP stops at the first failure)."""
    if message is not None:
        return message, reported
    error = next((d for d in found if d.severity is Severity.ERROR), None)
    return (error.message, error) if error is not None else (None, None)


def _verdict(phase: str, message: str | None, reported: Diagnostic | None) -> PhaseVerdict:
    return PhaseVerdict(phase, message is None, message, reported)


def _vmcp_config(unit: ConfigUnit, scripted: list[Diagnostic]) -> UnitReport:
    """A config file: P1 (its decode, scripted tools' included), P2 (composite tools, then
    scripted ones), then what ``vmcp serve`` adds."""
    diagnostics: list[Diagnostic] = list(unit.diagnostics)
    p1 = check_loader(unit.file, unit.decode_issues, unit.tools)
    diagnostics.extend(p1.diagnostics)
    verdicts = [_verdict("P1", p1.message, p1.reported)]
    p2_findings, p2_message, p2_reported = _p2_in_order(unit.tools)
    diagnostics.extend(p2_findings)
    diagnostics.extend(scripted)
    p2_message, p2_reported = _first_error(scripted, p2_message, p2_reported)
    message = f"invalid configuration:\n  - {p2_message}" if p2_message else None
    verdicts.append(_verdict("P2", message, p2_reported))
    verdicts.extend(_serve(unit.tools, diagnostics, with_loader=False))
    diagnostics.extend(finding for tool in unit.tools for finding in advise(tool))
    return UnitReport(unit, tuple(diagnostics), tuple(verdicts))


def _p2_in_order(
    tools: tuple[LoadedTool, ...],
) -> tuple[list[Diagnostic], str | None, Diagnostic | None]:
    """The validator's loop: duplicate names, then each tool; vMCP stops at the first failure."""
    findings: list[Diagnostic] = []
    message: str | None = None
    reported: Diagnostic | None = None
    names: set[str] = set()
    for tool in tools:
        config = tool.effective
        if config.name in names:
            duplicate = Diagnostic(
                "P2.S13.duplicateName",
                f"duplicate composite tool name: {config.name}",
                config.where.of("name"),
                Severity.ERROR,
                config.name or None,
                None,
                "P2",
            )
            findings.append(duplicate)
            if message is None:
                message, reported = duplicate.message, duplicate
        names.add(config.name)
        result = validate_composite_tool(config, tool.origin.path)
        findings.extend(result.diagnostics)
        if message is None and result.message is not None:
            message, reported = result.message, result.reported[0]
    return findings, message, reported


def _serve(
    tools: tuple[LoadedTool, ...], diagnostics: list[Diagnostic], *, with_loader: bool
) -> list[PhaseVerdict]:
    """What ``vmcp serve`` adds: (for manifests, the loader's S12 check), P3, then P4."""
    verdicts: list[PhaseVerdict] = []
    if with_loader:
        message: str | None = None
        reported: Diagnostic | None = None
        for index, tool in enumerate(tools):
            for finding in parameter_shape(tool, f"compositeTools[{index}]"):
                diagnostics.append(finding)
                if message is None:
                    message = (
                        f"failed to process config: compositeTools[{index}]: {finding.message}"
                    )
                    reported = finding
        verdicts.append(_verdict("P1", message, reported))
    p3 = convert(tools)
    diagnostics.extend(p3.diagnostics)
    verdicts.append(_verdict("P3", p3.message, p3.reported))
    p4 = validate_workflows(p3.converted)
    diagnostics.extend(p4.diagnostics)
    verdicts.append(_verdict("P4", p4.message, p4.reported))
    return verdicts


def _kubernetes(unit: ConfigUnit, scripted: list[Diagnostic]) -> UnitReport:
    diagnostics: list[Diagnostic] = []
    verdicts = [
        _admission(unit, diagnostics),
        _controller_p2(unit, diagnostics, scripted),
        _operator(unit, diagnostics),
    ]
    if not unit.referenced:
        verdicts.extend(_serve(unit.tools, diagnostics, with_loader=True))
    own = [tool for tool in unit.tools if tool.origin.referenced_by is None]
    diagnostics.extend(finding for tool in own for finding in advise(tool))
    return UnitReport(unit, tuple(diagnostics), tuple(verdicts))


def _admission(unit: ConfigUnit, diagnostics: list[Diagnostic]) -> PhaseVerdict:
    """The API server: YAML conversion problems, then the structural schema."""
    for issue in unit.decode_issues:
        if issue.fatal or decode_rule(issue) == "P1.S8.duplicateKey":
            severity = Severity.ERROR if issue.fatal else Severity.WARNING
            text = (
                issue.message
                if issue.fatal
                else f"{issue.message}; Kubernetes keeps the last value"
            )
            where = SourceLocation(unit.file, issue.line, issue.column)
            diagnostics.append(Diagnostic("K8S.yaml", text, where, severity, phase="admission"))
    for rejection in unit.admission_issues:
        where = SourceLocation(unit.file, rejection.line, rejection.column)
        diagnostics.append(Diagnostic(rejection.rule, rejection.message, where, phase="admission"))
    blocking = [d for d in diagnostics if d.severity is Severity.ERROR]
    return _verdict("admission", _admission_text(unit, blocking), blocking[0] if blocking else None)


def _controller_p2(
    unit: ConfigUnit, diagnostics: list[Diagnostic], scripted: list[Diagnostic]
) -> PhaseVerdict:
    """``ValidateCompositeToolConfig`` by the operator: inline names unique, then each tool;
    then the scripted tools (``scripted``: the findings about them).

    Findings are reported for the unit's own tools; a referenced definition's
    own unit reports its findings, but its failure still fails this unit.
    """
    message: str | None = None
    reported: Diagnostic | None = None
    names: set[str] = set()
    for tool in unit.tools:
        own = tool.origin.referenced_by is None
        config = tool.effective
        if own and unit.kind is DocumentKind.VIRTUAL_MCP_SERVER and config.name in names:
            text = f"{tool.origin.path}.name {quote(config.name)} is duplicated"
            where = config.where.of("name")
            duplicate = Diagnostic(
                "K8S.duplicateInline", text, where, Severity.ERROR, config.name or None, None, "P2"
            )
            diagnostics.append(duplicate)
            message, reported = message or text, reported or duplicate
        names.add(config.name)
        result = validate_composite_tool(config, tool.origin.path)
        if own:
            diagnostics.extend(result.diagnostics)
        if message is None and result.message is not None:
            message, reported = result.message, result.reported[0]
    diagnostics.extend(scripted)
    message, reported = _first_error(scripted, message, reported)
    return _verdict("P2", message, reported)


def _operator(unit: ConfigUnit, diagnostics: list[Diagnostic]) -> PhaseVerdict:
    """The operator's converter: references resolve and names stay unique across them."""
    found = [d for d in unit.diagnostics if d.severity is Severity.ERROR] + _operator_duplicates(
        unit
    )
    diagnostics.extend(unit.diagnostics)
    diagnostics.extend(d for d in found if d not in unit.diagnostics)
    return _verdict("operator", found[0].message if found else None, found[0] if found else None)


def _admission_text(unit: ConfigUnit, blocking: list[Diagnostic]) -> str | None:
    if not blocking:
        return None
    return f"{unit.kind.value} {unit.resource or ''} is invalid: " + "; ".join(
        d.message for d in blocking
    )


def _operator_duplicates(unit: ConfigUnit) -> list[Diagnostic]:
    """The operator's converter: inline and referenced tools must have distinct names."""
    if unit.kind is not DocumentKind.VIRTUAL_MCP_SERVER:
        return []
    seen: set[str] = set()
    found: list[Diagnostic] = []
    for tool in unit.tools:
        name = tool.effective.name
        if name in seen and tool.origin.referenced_by is not None:
            found.append(
                Diagnostic(
                    "K8S.duplicateName",
                    f"failed to convert composite tools: invalid composite tools: duplicate "
                    f"composite tool name: {quote(name)}",
                    tool.effective.where.of("name"),
                    Severity.ERROR,
                    name or None,
                    None,
                    "operator",
                )
            )
        seen.add(name)
    return found
