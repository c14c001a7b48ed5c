"""``python -m transpiler emit CONFIG [--tool NAME]``: print the migrated script(s)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from transpiler.cli.common import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    add_emit_options,
    add_format_option,
    print_json,
)
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.diagnostics import InputError, TranspilerError
from transpiler.emit import emit_tool
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.report import EmitResult
from transpiler.emit.tools_file import load_tool_schemas
from transpiler.validate import validate


def register(subparsers: Any) -> None:
    """Add the ``emit`` command."""
    parser = subparsers.add_parser(
        "emit",
        description="Translate composite tools into Starlark scripted tools and print the "
        "scripts. Exit 0 when every tool was translated, 1 when one could not be, 2 when "
        "the input cannot be read or is not a valid configuration.",
    )
    parser.add_argument("paths", nargs="+", metavar="CONFIG", help="files or directories")
    parser.add_argument("--tool", help="only this composite tool")
    add_emit_options(parser)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Load, check validity, emit, print."""
    load = load_paths(args.paths)
    if load.input_errors:
        raise InputError("; ".join(d.render() for d in load.input_errors))
    schemas = load_tool_schemas(args.tools) if args.tools else None
    checked_fixes(args.fix)
    report = validate(load)
    invalid = [d for d in report.diagnostics if d.severity.value == "error"]
    if invalid:
        for diagnostic in invalid:
            print(diagnostic.render(), file=sys.stderr)
        return EXIT_INPUT
    tools = _selected(load.tools, args.tool)
    results: list[EmitResult] = []
    failures: list[tuple[LoadedTool, TranspilerError]] = []
    for tool in tools:
        try:
            results.append(
                emit_tool(
                    tool.effective,
                    _source(tool),
                    style=args.style,
                    tool_schemas=schemas,
                    fixes=args.fix,
                    inline_helpers=args.inline_helpers,
                )
            )
        except TranspilerError as problem:
            failures.append((tool, problem))
    if args.format == "json":
        print_json(
            {
                "scripts": [result.to_json() for result in results],
                "not_converted": [
                    {"tool": tool.effective.name, "file": tool.origin.file, "reason": str(why)}
                    for tool, why in failures
                ],
            }
        )
    else:
        for index, result in enumerate(results):
            if index:
                print()
            sys.stdout.write(result.script)
        for tool, why in failures:
            print(f"{_source(tool)}: not converted: {why}", file=sys.stderr)
    return EXIT_FAILED if failures else EXIT_OK


def _selected(tools: Sequence[LoadedTool], name: str | None) -> Sequence[LoadedTool]:
    if name is None:
        return tools
    chosen = [tool for tool in tools if tool.effective.name == name]
    if not chosen:
        known = ", ".join(tool.effective.name for tool in tools) or "none"
        raise InputError(f"no composite tool named {name!r} (found: {known})")
    return chosen


def _source(tool: LoadedTool) -> str:
    return f"{tool.origin.file}:{tool.config.where.at.line}"
