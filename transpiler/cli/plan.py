"""``python -m transpiler plan PATH [--tool NAME]``: execution levels, dataflow and races."""

from __future__ import annotations

import argparse
from typing import Any

from transpiler.cli.common import EXIT_FAILED, EXIT_INPUT, EXIT_OK, add_format_option, print_json
from transpiler.config.loader import load_paths
from transpiler.diagnostics import Severity
from transpiler.golang.duration import format_duration
from transpiler.plan import ToolPlan, plan_tool


def register(subparsers: Any) -> None:
    """Add the ``plan`` command."""
    parser = subparsers.add_parser(
        "plan",
        description="Print the levels vMCP runs each composite tool in, which step reads which, "
        "and the reads that race because dependsOn does not order them.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--tool", metavar="NAME", help="only the composite tool with this name")
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Plan every tool (or the one named) and print."""
    load = load_paths(args.paths)
    tools = [tool for tool in load.tools if args.tool is None or tool.effective.name == args.tool]
    if args.tool is not None and not tools:
        print(f"error: no composite tool named {args.tool!r}")
        return EXIT_FAILED
    plans = [plan_tool(tool) for tool in tools]
    if args.format == "json":
        print_json({"tools": [plan_json(plan) for plan in plans]})
    else:
        for problem in load.input_errors:
            print(problem.render())
        print("\n".join(render_plan(plan) for plan in plans), end="")
    if load.input_errors:
        return EXIT_INPUT
    broken = any(w.severity is Severity.ERROR for plan in plans for w in plan.warnings)
    return EXIT_FAILED if broken else EXIT_OK


def render_plan(plan: ToolPlan) -> str:
    """One tool's plan as text."""
    origin = plan.tool.origin
    timeout = plan.tool.effective.timeout
    limit = format_duration(timeout) if timeout > 0 else "30m0s (default)"
    lines = [f"tool {plan.tool.effective.name or '<unnamed>'} ({origin.file} {origin.path})"]
    lines.append(f"  timeout: {limit}")
    for index, level in enumerate(plan.levels):
        lines.append(f"  level {index}: {', '.join(level)}")
    if plan.dataflow:
        lines.append("  dataflow:")
        lines.extend(
            f"    {edge.step} -> {edge.reader}.{edge.site}  (.{'.'.join(edge.path)})"
            for edge in plan.dataflow
        )
    for warning in plan.warnings:
        lines.append(f"  {warning.render()}")
    return "\n".join(lines) + "\n"


def plan_json(plan: ToolPlan) -> dict[str, object]:
    """One tool's plan as JSON-ready data."""
    return {
        "tool": plan.tool.effective.name,
        "file": plan.tool.origin.file,
        "path": plan.tool.origin.path,
        "levels": [list(level) for level in plan.levels],
        "dataflow": [
            {"reader": e.reader, "step": e.step, "site": e.site, "path": list(e.path)}
            for e in plan.dataflow
        ],
        "warnings": [w.to_json() for w in plan.warnings],
    }
