"""Scripted tools present in the inputs (a previous migration, or written by hand).

``check`` pairs each with the composite tool it replaces. They also make
migration idempotent: a composite tool whose scripted counterpart exists with
the same code is already migrated; one whose counterpart differs is left alone
(never overwritten).

Each is read as the target loads it (:mod:`transpiler.config.scripted`, judged
by :mod:`transpiler.validate.scripted`). One in a configuration the target
refuses (a field it does not define, ``script`` with ``scriptFile``, two
scripted tools of one name, a ``scriptFile`` outside the configuration's
folder, a script that does not parse...) is kept with the reason
(``problem``), so that nothing is checked against it: vMCP would serve none of
that configuration's tools.

Each keeps what its entry says clients see in ``tools/list``, as written: its
``description``, ``parameters``, ``output`` and (where the target takes them)
``annotations``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from transpiler.config.model import DocumentKind, ToolAnnotations
from transpiler.config.scripted import ScriptReader
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation
from transpiler.pipeline import unit_rejection
from transpiler.validate import ScriptedCheck, UnitReport, ValidationReport

__all__ = ["Counterpart", "ScriptReader", "ScriptedIndex", "one_of", "same_code"]


@dataclass(frozen=True)
class Counterpart:
    """A scripted tool: its name, its script (inline, or read from its ``scriptFile``), where it
    is (``file:line``, and the script file), the folder its script is in, why vMCP would not
    take it (``problem``: then nothing is checked against it), its ``timeout`` and what its
    ``tools/list`` entry holds (plain values; None: absent), as written."""

    tool: str
    script: str | None
    where: str
    folder: Path
    problem: str | None = None
    timeout_ns: int | None = None
    description: str | None = None
    parameters: Any = None
    output: Any = None
    annotations: ToolAnnotations | None = None


@dataclass
class ScriptedIndex:
    """Scripted tools by config mapping (file, document, container) and by resource; script
    files that cannot be read are ``unreadable`` (each an input error, as an unreadable config
    is)."""

    by_container: dict[tuple[str, int, str], dict[str, Counterpart]] = field(default_factory=dict)
    by_resource: dict[tuple[str, str], Counterpart] = field(default_factory=dict)
    unreadable: list[Diagnostic] = field(default_factory=list)

    def counterparts(self) -> Iterator[Counterpart]:
        """Every scripted tool, configuration mappings first."""
        for tools in self.by_container.values():
            yield from tools.values()
        yield from self.by_resource.values()

    def add_report(self, report: ValidationReport) -> None:
        """Record every scripted tool of a validation report, as its unit's target takes it."""
        named: dict[tuple[str, int, str], dict[str, list[Counterpart]]] = {}
        resources: dict[tuple[str, str], list[Counterpart]] = {}
        for unit in report.units:
            for check in unit.scripted:
                counterpart = _counterpart(check, unit)
                if check.unreadable is not None and check.script_file is not None:
                    where = SourceLocation(str(check.script_file))
                    self.unreadable.append(
                        Diagnostic("INPUT.unreadable", check.unreadable, where, Severity.ERROR)
                    )
                origin = check.tool.origin
                if origin.kind is DocumentKind.SCRIPTED_TOOL_DEFINITION:
                    key = (unit.unit.namespace, unit.unit.resource or "")
                    resources.setdefault(key, []).append(counterpart)
                else:
                    place = (origin.file, origin.document, check.tool.container)
                    named.setdefault(place, {}).setdefault(counterpart.tool, []).append(counterpart)
        for place, tools in named.items():
            self.by_container[place] = {name: one_of(found) for name, found in tools.items()}
        for key, found in resources.items():
            self.by_resource[key] = one_of(found)


def _counterpart(check: ScriptedCheck, unit: UnitReport) -> Counterpart:
    """One scripted tool; refused with vMCP's reason when its unit does not load."""
    config = check.tool.config
    file = check.tool.origin.file
    place = f"{file}:{config.where.at.line}"
    shown = f"{place} ({check.script_file})" if check.script_file is not None else place
    folder = check.script_file.parent if check.script_file is not None else Path(file).parent
    found = Counterpart(
        config.name,
        check.script,
        shown,
        folder,
        timeout_ns=check.timeout_ns,
        description=config.description or None,
        parameters=config.parameters,
        output=config.output,
        annotations=config.annotations,
    )
    if unit.valid:
        return found
    why = unit_rejection(unit, file)
    hints = [d.message for d in unit.diagnostics if d.rule == "LOAD.target"]
    target = f" (target {unit.unit.target}{': ' + hints[0] if hints else ''})"
    problem = f"the scripted tool {config.name} at {shown} is not taken: {why}{target}"
    return replace(found, script=None, problem=problem)


def one_of(found: Sequence[Counterpart]) -> Counterpart:
    """The scripted tool of a name; refused when there are several where one is allowed."""
    if len(found) == 1:
        return found[0]
    places = ", ".join(counterpart.where for counterpart in found)
    problem = f"scripted tool {found[0].tool} is defined {len(found)} times ({places})"
    return replace(found[0], script=None, problem=problem)


def same_code(a: str, b: str) -> bool:
    """Whether two scripts have the same code (their leading comment header aside)."""
    return _code(a) == _code(b)


def _code(script: str) -> str:
    lines = script.split("\n")
    index = 0
    while index < len(lines) and (not lines[index].strip() or lines[index].startswith("#")):
        index += 1
    return "\n".join(lines[index:])
