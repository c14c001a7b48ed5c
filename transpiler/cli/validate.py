"""``python -m transpiler validate PATH...``: judge composite and scripted tools as vMCP would."""

from __future__ import annotations

import argparse
from typing import Any

from transpiler.cli.common import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    add_format_option,
    add_target_option,
    print_json,
)
from transpiler.composite.advertise import implied_catalog
from transpiler.config.loader import load_paths
from transpiler.config.target import target_named
from transpiler.diagnostics import Diagnostic, Severity, phase_text
from transpiler.emit.tools_file import load_tool_annotations
from transpiler.inert import one_line, shown_lines
from transpiler.policy import find_policy, load_policy
from transpiler.validate import UnitReport, ValidationReport, validate

#: Which command fails at which phase (in the order it checks), per kind of input; a
#: command is shown when its last phase applies (a referenced definition is served
#: by the VirtualMCPServer that references it).
_COMMANDS = {
    "vmcp-config": (("thv vmcp validate", ("P1", "P2")), ("vmcp serve", ("P1", "P2", "P3", "P4"))),
    "kubernetes": (
        ("kubectl apply", ("admission",)),
        ("operator", ("P2", "operator")),
        ("vmcp serve", ("P1", "P2", "P3", "P4")),
    ),
}


def register(subparsers: Any) -> None:
    """Add the ``validate`` command."""
    parser = subparsers.add_parser(
        "validate",
        description="Report every problem vMCP (and Kubernetes) would reject, phase by phase, "
        "for the vMCP given by --target. Exit 0 when valid, 1 when not, 2 when an input cannot "
        "be read (or is not YAML the loader can parse).",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="files or directories (*.yaml, *.yml, *.json)"
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="the backends' tools/list (JSON or YAML): their annotations decide which "
        "composite tools vMCP drops for claiming to be safer than their steps (without it, "
        "every step tool counts as declaring nothing)",
    )
    add_target_option(
        parser,
        "default: the policy's target, else thv-0051 for a file that holds scripted tools "
        "(scriptedTools, scriptedToolRefs, a VirtualMCPScriptedToolDefinition) and vmcp for "
        "any other",
    )
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate and print; the exit code says valid, invalid or unreadable."""
    found = find_policy([str(path) for path in args.paths])
    policy = load_policy(found).target if found is not None else None
    load = load_paths(args.paths, target_named(args.target) if args.target else policy)
    annotations = load_tool_annotations(args.tools) if args.tools else None
    report = validate(load, implied_catalog((), annotations))
    if args.format == "json":
        print_json(report_json(report))
    else:
        print(render_text(report), end="")
    if report.load.input_errors:
        return EXIT_INPUT
    return EXIT_OK if report.valid else EXIT_FAILED


def _reported(unit: UnitReport) -> set[int]:
    return {id(v.reported) for v in unit.verdicts if v.reported is not None}


def render_text(report: ValidationReport) -> str:
    """The human-readable report; ``*`` marks the findings vMCP itself prints."""
    found = (*report.load.input_errors, *report.load.notes)
    lines: list[str] = [one_line(diagnostic.render()) for diagnostic in found]
    for unit in report.units:
        where = f"{one_line(unit.unit.file)} (document {unit.unit.document + 1})"
        lines.append(f"== {where}: {unit.unit.label} (target {unit.unit.target})")
        names = ", ".join(one_line(tool.effective.name or "<unnamed>") for tool in unit.unit.tools)
        if names or not unit.unit.scripted:
            lines.append(f"   tools: {names or '(none)'}")
        scripted = ", ".join(one_line(t.config.name or "<unnamed>") for t in unit.unit.scripted)
        if scripted:
            lines.append(f"   scripted tools: {scripted}")
        family = "vmcp-config" if unit.unit.kind.value == "vmcp-config" else "kubernetes"
        for command, phases in _COMMANDS[family]:
            if unit.verdict(phases[-1]) is None:
                continue
            failed = unit.first_failure(phases)
            outcome = "passes"
            if failed is not None:
                outcome = f"fails at {phase_text(failed.phase)}: {shown_lines(str(failed.message))}"
            lines.append(f"   {command}: {outcome}".replace("\n", "\n      "))
        marked = _reported(unit)
        for diagnostic in unit.diagnostics:
            prefix = " * " if id(diagnostic) in marked else "   "
            lines.append(prefix + one_line(diagnostic.render()))
    errors = sum(d.severity is Severity.ERROR for d in report.diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in report.diagnostics)
    tools = f"{len(report.load.tools)} tool(s)"
    if report.load.scripted:
        tools += f", {len(report.load.scripted)} scripted tool(s)"
    verdict = "valid" if report.valid else "invalid"
    if report.load.input_errors:
        verdict = "not judged (an input cannot be read, see above)"
    counts = f"{errors} error(s), {warnings} warning(s)"
    lines.append(f"{verdict}: {counts}, {tools} in {len(report.units)} unit(s)")
    lines.append("(* = the finding vMCP itself reports for that phase)")
    return "\n".join(lines) + "\n"


def _diagnostic_json(diagnostic: Diagnostic, marked: set[int]) -> dict[str, object]:
    return {**diagnostic.to_json(), "reported_by_vmcp": id(diagnostic) in marked}


def report_json(report: ValidationReport) -> dict[str, object]:
    """The report as JSON-ready data."""
    units = []
    for unit in report.units:
        marked = _reported(unit)
        units.append(
            {
                "file": unit.unit.file,
                "document": unit.unit.document,
                "kind": unit.unit.kind.value,
                "resource": unit.unit.resource,
                "target": str(unit.unit.target),
                "tools": [tool.effective.name for tool in unit.unit.tools],
                "scripted_tools": [tool.config.name for tool in unit.unit.scripted],
                "valid": unit.valid,
                "verdicts": [
                    {
                        "phase": v.phase,
                        "passed": v.passed,
                        "message": v.message,
                        "rule": v.reported.rule if v.reported else None,
                    }
                    for v in unit.verdicts
                ],
                "diagnostics": [_diagnostic_json(d, marked) for d in unit.diagnostics],
            }
        )
    return {
        "valid": report.valid,
        "units": units,
        "load": [d.to_json() for d in (*report.load.input_errors, *report.load.notes)],
    }
