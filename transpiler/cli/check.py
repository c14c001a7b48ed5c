"""``python -m transpiler check PATH...``: the equivalence gate for CI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from transpiler.cli.common import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    add_emit_options,
    add_format_option,
    print_json,
)
from transpiler.deviations import CLASSES
from transpiler.diagnostics import InputError
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.tools_file import load_tool_schemas
from transpiler.harness.check import ENGINES, CheckOptions, ToolReport
from transpiler.harness.gate import check_all, parse_shard, select
from transpiler.harness.reports import (
    console_line,
    junit,
    markdown,
    report_json,
    save_counterexample,
    side_by_side,
)


def register(subparsers: Any) -> None:
    """Add the ``check`` command."""
    parser = subparsers.add_parser(
        "check",
        help="prove each tool's script behaves like the composite workflow",
        description="Emit each composite tool's script, run both forms on generated and "
        "path-exhaustive scenarios, and report. Exit 0 when every tool is equivalent, or "
        "equivalent except for accepted deviation classes; 1 when one differs, shows a class "
        "not accepted, or is not converted; 2 when an input cannot be read (the other inputs' "
        "tools are still checked).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    add_options(parser)
    parser.add_argument("--shard", default="1/1", help="check every n-th tool from the i-th: i/n")
    parser.add_argument("--jobs", type=int, help="worker processes (default: the core count)")
    parser.add_argument("--report-json", metavar="FILE", help="write the JSON report")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--report-md", metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--counterexamples",
        metavar="DIR",
        default="counterexamples",
        help="where scenarios that show a difference are saved (default: counterexamples/)",
    )
    add_format_option(parser)
    parser.set_defaults(handler=run)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options that decide how hard ``check`` (and ``migrate``) look."""
    parser.add_argument("--examples", type=int, default=100, help="random scenarios per tool")
    parser.add_argument(
        "--paths",
        dest="path_limit",
        type=int,
        default=64,
        help="most outcome combinations tried per tool",
    )
    parser.add_argument("--engine", choices=("rust", "go", "both"), default="rust")
    parser.add_argument("--seed", type=int, default=0, help="seed for scenario generation")
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument(
        "--accept",
        metavar="CLASS,...",
        help="deviation classes a tool may show and still pass (default: every class its "
        "script declares); see docs/deviations.md",
    )
    policy.add_argument(
        "--strict", action="store_true", help="accept no deviation class: only equivalent passes"
    )
    add_emit_options(parser)


def options_from(args: argparse.Namespace) -> CheckOptions:
    """CheckOptions from parsed ``add_options`` arguments."""
    engines = ENGINES if args.engine == "both" else (args.engine,)
    return CheckOptions(
        examples=args.examples,
        paths=args.path_limit,
        engines=engines,
        seed=args.seed,
        tool_schemas=load_tool_schemas(args.tools) if args.tools else None,
        fixes=tuple(sorted(checked_fixes(args.fix))),
        style=args.style,
        inline_helpers=args.inline_helpers,
        accept=_accepted(args),
    )


def _accepted(args: argparse.Namespace) -> frozenset[str] | None:
    """The classes the gate accepts: None (every declared one), none, or the listed ones."""
    if getattr(args, "strict", False):
        return frozenset()
    listed = getattr(args, "accept", None)
    if listed is None:
        return None
    chosen = frozenset(part.strip() for part in listed.split(",") if part.strip())
    unknown = sorted(chosen - set(CLASSES))
    if unknown:
        raise InputError(
            f"unknown deviation class {', '.join(unknown)} (known: {', '.join(sorted(CLASSES))})"
        )
    return chosen


def run(args: argparse.Namespace) -> int:
    """Select, check, report."""
    options = options_from(args)
    selected, unreadable = select(args.paths, parse_shard(args.shard))
    for problem in unreadable:
        print(f"error: {problem.render()}", file=sys.stderr)
    total = len(selected)

    def progress(number: int, report: ToolReport) -> None:
        width = 30
        done = width * number // max(total, 1)
        bar = "#" * done + "." * (width - done)
        print(f"[{bar}] {number}/{total} {report.verdict}: {report.tool}", file=sys.stderr)

    reports = check_all(selected, options, args.jobs, progress)
    directory = Path(args.counterexamples)
    for report in reports:
        if report.counterexample is not None:
            report.counterexample.saved_to = save_counterexample(
                report.counterexample, directory, report.tool
            )
    accept = options.accept
    _write_reports(args, reports, accept)
    if args.format == "json":
        print_json(report_json(reports, accept))
    else:
        for report in reports:
            print(console_line(report))
            for finding in report.findings:
                print(f"  finding: {finding.render()}")
            if report.counterexample is not None:
                print("  " + side_by_side(report.counterexample).replace("\n", "\n  "))
                print(f"  scenario saved to {report.counterexample.saved_to}")
            elif report.reason:
                print("  " + report.reason.replace("\n", "\n  "))
        passed = sum(r.passes(accept) for r in reports)
        unread = f"; {len(unreadable)} input(s) cannot be read" if unreadable else ""
        print(f"{passed} of {len(reports)} tool(s) pass ({_policy(accept)}){unread}")
    if unreadable:
        return EXIT_INPUT
    return EXIT_OK if all(r.passes(accept) for r in reports) else EXIT_FAILED


def _policy(accept: frozenset[str] | None) -> str:
    if accept is None:
        return "equivalent, or equivalent except for the classes each script declares"
    if not accept:
        return "strict: equivalent only"
    return "equivalent, or equivalent except for " + ", ".join(sorted(accept))


def _write_reports(
    args: argparse.Namespace, reports: list[ToolReport], accept: frozenset[str] | None
) -> None:
    texts = {
        args.report_json: json.dumps(report_json(reports, accept), indent=2, sort_keys=True) + "\n",
        args.junit: junit(reports, accept),
        args.report_md: markdown(reports),
    }
    for target, text in texts.items():
        if target:
            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
