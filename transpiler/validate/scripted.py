"""THV-0051's scripted tools as the RFC has vMCP load them (P2, config validation).

The RFC has the engine parse and validate every script when the configuration
loads: the script parses and defines ``run(params)``, its ``timeout`` parses,
``script`` and ``scriptFile`` are exclusive, the source is at most 1 MB. It
says that a server may have composite and scripted tools "as long as tool
names don't conflict", and that ``params`` and the result are validated
against the declared JSON Schemas (so each must compile). Where it is silent
the choice made here is in docs/target.md: a name is required and unique among
the scripted tools; a ``scriptFile`` is read from its configuration's folder
and below; one named like a composite tool beside it is a warning (the RFC
does not say what vMCP does then, and a staged migration holds both on
purpose); the modules a script loads are noted, not resolved (they come from
the deployment's library path).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from transpiler.config.schema_compile import json_schema_problem
from transpiler.config.scripted import (
    MAX_SCRIPT_BYTES,
    LoadedScripted,
    ScriptedToolConfig,
    ScriptReader,
)
from transpiler.config.units import ConfigUnit
from transpiler.diagnostics import Diagnostic, Severity
from transpiler.filenames import inside
from transpiler.golang.duration import DurationError, parse_duration
from transpiler.reading import UnreadableFile
from transpiler.starlark_runtime.syntax import run_problem, syntax_problem

PHASE = "P2"
_LOADS = re.compile(r"""^load\(\s*["']([^"'\\\n]+)["']""", re.MULTILINE)


@dataclass(frozen=True)
class ScriptedCheck:
    """One scripted tool as the unit's target loads it: its script (inline, or read from
    ``script_file``; None when there is none to read), why its script file cannot be read, its
    ``timeout`` (None: none, or not a duration) and every finding about it."""

    tool: LoadedScripted
    script: str | None
    script_file: Path | None
    unreadable: str | None
    timeout_ns: int | None
    findings: tuple[Diagnostic, ...]


def check_scripted(
    unit: ConfigUnit, read: ScriptReader
) -> tuple[tuple[ScriptedCheck, ...], tuple[Diagnostic, ...]]:
    """Each own scripted tool of ``unit`` checked (script files read with ``read``), and the
    findings about the unit's scripted tools together: a name given twice, a composite tool of
    the same name. A target without scripted tools judges none (it refuses them at P1)."""
    own = [tool for tool in unit.scripted if tool.origin.referenced_by is None]
    if not unit.target.scripted:
        return tuple(ScriptedCheck(tool, None, None, None, None, ()) for tool in own), ()
    return tuple(_check(unit, tool, read) for tool in own), tuple(_names(unit))


@dataclass
class _Findings:
    """The findings about one scripted tool, each at one of its keys."""

    config: ScriptedToolConfig
    found: list[Diagnostic] = field(default_factory=list)

    def add(self, rule: str, message: str, key: str, severity: Severity = Severity.ERROR) -> None:
        where = self.config.where.of(key)
        name = self.config.name or None
        self.found.append(Diagnostic(rule, message, where, severity, name, None, PHASE))


def _check(unit: ConfigUnit, tool: LoadedScripted, read: ScriptReader) -> ScriptedCheck:
    config, path = tool.config, tool.origin.path
    findings = _Findings(config)
    if not config.name:
        findings.add("P2.THV0051.name", f"{path}.name is required", "name")
    timeout_ns = _timeout(config.timeout, path, findings)
    for key, schema in (("parameters", config.parameters), ("output", config.output)):
        problem = json_schema_problem(schema) if schema else None
        if problem is not None:
            findings.add(f"P2.THV0051.{key}", f"{path}.{key}: {problem}", key)
    script: str | None = config.script or None
    file: Path | None = None
    unreadable: str | None = None
    if config.script and config.script_file:
        message = f"{path}: script and scriptFile are mutually exclusive: give one"
        findings.add("P2.THV0051.script", message, "scriptFile")
        script = None
    elif not config.script and not config.script_file:
        message = f"{path}: give the tool's script (script or scriptFile)"
        findings.add("P2.THV0051.script", message, "name")
    elif config.script_file and tool.origin.kubernetes:
        message = (
            f"{path}.scriptFile is read from the vMCP pod's file system, which the operator does "
            "not fill (THV-0051 ships shared code as ConfigMaps, not scripts): not checked here; "
            "give the script inline (script: |)"
        )
        findings.add("W.THV0051.kubernetesScriptFile", message, "scriptFile", Severity.WARNING)
    elif config.script_file:
        file = script_path(unit.file, config.script_file)
        if file is None:
            message = (
                f"{path}.scriptFile {config.script_file!r} is outside the folder of its "
                f"configuration ({Path(unit.file).parent}): a scriptFile is read from that "
                "folder and below"
            )
            findings.add("P2.THV0051.scriptFile", message, "scriptFile")
        else:
            try:
                script = read(file)
            except UnreadableFile as problem:
                unreadable = problem.reason
                message = f"{path}.scriptFile {config.script_file!r} cannot be read: {unreadable}"
                findings.add("P2.THV0051.scriptFile", message, "scriptFile")
    if script is not None:
        _script(script, file, findings, "scriptFile" if file is not None else "script")
    return ScriptedCheck(tool, script, file, unreadable, timeout_ns, tuple(findings.found))


def script_path(config_file: str, script_file: str) -> Path | None:
    """The file a ``scriptFile`` names, read from the folder of its configuration and below
    (:func:`~transpiler.filenames.inside`, the rule ``load()`` follows for modules); None when
    it could name anything outside. THV-0051 gives ``scriptFile`` as a relative path
    (``workflows/weather-alert.star``) and states no rule beyond."""
    return inside(Path(config_file).parent, script_file)


def _timeout(text: str, path: str, findings: _Findings) -> int | None:
    """The ``timeout`` in nanoseconds (None: none given, or not a duration: a finding)."""
    if not text:
        return None
    try:
        value = parse_duration(text)
    except DurationError as problem:
        findings.add(
            "P2.THV0051.timeout", f"{path}.timeout: invalid duration: {problem}", "timeout"
        )
        return None
    if value < 0:
        findings.add("P2.THV0051.timeout", f"{path}.timeout cannot be negative", "timeout")
        return None
    return value


def _script(script: str, file: Path | None, findings: _Findings, key: str) -> None:
    """Size, syntax and ``run(params)``; the modules it loads, noted. Each finding stands at
    the ``script`` (or ``scriptFile``) key and names the script's own line."""
    source = f"{file}: " if file is not None else ""
    size = len(script.encode("utf-8"))
    if size > MAX_SCRIPT_BYTES:
        message = f"{source}the script is {size} bytes; vMCP loads at most {MAX_SCRIPT_BYTES}"
        findings.add("P2.THV0051.size", message, key)
        return
    problem = syntax_problem(script, str(file or "script.star"))
    if problem is not None:
        message = f"{source}the script does not parse: {problem.render()}"
        findings.add("P2.THV0051.syntax", message, key)
        return
    problem = run_problem(script)
    if problem is not None:
        findings.add("P2.THV0051.run", f"{source}{problem.render()}", key)
        return
    loaded = sorted(set(_LOADS.findall(script)))
    if loaded:
        message = (
            f"the script loads {', '.join(loaded)}: vMCP finds it on its library path "
            "(starlarkConfig.libraryPaths, or a ConfigMap the VirtualMCPServer names); not "
            "resolved here"
        )
        findings.add("P2.THV0051.load", message, key, Severity.NOTE)


def _names(unit: ConfigUnit) -> Iterator[Diagnostic]:
    """A scripted name given twice is an error; a composite tool's name, a warning."""
    seen: set[str] = set()
    composite = {tool.effective.name for tool in unit.tools}
    for tool in unit.scripted:
        name, where = tool.config.name, tool.config.where.of("name")
        if name and name in seen:
            yield Diagnostic(
                "P2.THV0051.duplicateName",
                f"duplicate scripted tool name: {name}",
                where,
                Severity.ERROR,
                name,
                None,
                PHASE,
            )
        seen.add(name)
        if name in composite:
            yield Diagnostic(
                "W.THV0051.nameConflict",
                f"{name} is both a composite and a scripted tool here: THV-0051 allows both kinds "
                'in one server "as long as tool names don\'t conflict" and does not say which '
                "one clients get; serve one form (finish the migration) before serving this",
                where,
                Severity.WARNING,
                name,
                None,
                "P5",
            )
