"""``python -m transpiler mutate PATH...``: how many deliberate slips in a script the gate
catches."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from transpiler.cli.common import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    add_accept_gap_option,
    add_emit_options,
    add_library_path_option,
    print_json,
)
from transpiler.diagnostics import InputError
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.tools_file import load_tool_schemas
from transpiler.gate.mutation import Tally, ToolMutation, mutate_request
from transpiler.harness.running.check import ENGINES, CheckOptions
from transpiler.pairs import Request, Where
from transpiler.policy import ENGINE_CHOICES

DEFAULT_EXAMPLES = 30
DEFAULT_PATHS = 16
DEFAULT_LIMIT = 200


def register(subparsers: Any) -> None:
    """Add the ``mutate`` command."""
    parser = subparsers.add_parser(
        "mutate",
        description="Pair each composite tool with its script as check does (the scripted tool "
        "beside it, --script, or the emitter's), make mutants of the script's own code (wrong "
        "argument values and keys, texts, conditions, comparisons, dropped, doubled or "
        "retargeted calls, call_tool/try_call_tool swapped, retry counts, .get defaults, "
        "parallel order, swapped outputs, loop bounds off by one), and check each with the "
        "same options. A mutant is killed when the gate does not pass it. Exit 0 when every "
        "mutant was killed; 1 when one survived, a tool could not be measured or nothing was "
        "checked; 2 when an input cannot be read. The policy file is not read.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument(
        "--tool", metavar="NAME", help="only this composite tool (the one --script replaces)"
    )
    parser.add_argument(
        "--script", metavar="FILE.star", help="mutate this script, checked against --tool's"
    )
    add_library_path_option(parser)
    parser.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        help=f"random scenarios per check (default {DEFAULT_EXAMPLES})",
    )
    parser.add_argument(
        "--paths",
        dest="path_limit",
        type=int,
        default=DEFAULT_PATHS,
        help=f"most outcome combinations per check (default {DEFAULT_PATHS})",
    )
    parser.add_argument("--engine", choices=ENGINE_CHOICES, default="rust", help="default: rust")
    add_accept_gap_option(parser)
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for scenarios and for sampling (default 0)"
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"most mutants checked per tool, sampled with the seed (default {DEFAULT_LIMIT})",
    )
    add_emit_options(parser)
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (default: text; markdown: a table for docs)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Pair, mutate, check, report."""
    if args.script is not None and args.tool is None:
        raise InputError("--script FILE.star needs --tool NAME")
    if args.limit < 1:
        raise InputError(f"--limit must be at least 1, not {args.limit}")
    options = CheckOptions(
        examples=args.examples,
        paths=args.path_limit,
        engines=ENGINES if args.engine == "both" else (args.engine,),
        seed=args.seed,
        tool_schemas=load_tool_schemas(args.tools) if args.tools else None,
        fixes=tuple(sorted(checked_fixes(args.fix))),
        style=args.style,
        inline_helpers=args.inline_helpers,
        accept_gaps=frozenset(args.accept_gap),
    )
    request = Request(
        Where(tuple(args.paths)), None, args.script, args.tool, tuple(args.library_path)
    )

    def progress(number: int, total: int, result: ToolMutation) -> None:
        tally = result.tally
        done = f"{tally.killed} killed, {tally.survived} survived"
        done = "not measured" if result.reason else done
        print(f"[{number}/{total}] {result.tool}: {done}", file=sys.stderr)

    results, pairing = mutate_request(request, options, args.limit, args.tool, progress)
    for problem in pairing.unreadable:
        print(f"error: {problem.render()}", file=sys.stderr)
    if args.format == "json":
        print_json(_document(results, options, args.limit))
    elif args.format == "markdown":
        sys.stdout.write(markdown(results))
    else:
        sys.stdout.write(text(results))
    if pairing.unreadable:
        return EXIT_INPUT
    total = _total(results)
    measured = all(not result.reason for result in results)
    return EXIT_OK if measured and total.checked and not total.survived else EXIT_FAILED


def _total(results: list[ToolMutation]) -> Tally:
    return sum((result.tally for result in results), Tally())


def _rate(tally: Tally) -> str:
    rate = tally.kill_rate
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _checked(tally: Tally) -> str:
    """How many mutants were checked, and of how many when only a sample was."""
    if tally.checked == tally.generated:
        return str(tally.checked)
    return f"{tally.checked} of {tally.generated}"


def _counts(tally: Tally) -> str:
    return (
        f"{_checked(tally)} mutants: {tally.killed} killed, {tally.survived} survived "
        f"(kill rate {_rate(tally)})"
    )


def text(results: list[ToolMutation]) -> str:
    """The console report: per tool its counts, per operator, and every survivor."""
    lines: list[str] = []
    for result in results:
        source = f"; script {result.source}" if result.source else ""
        lines.append(f"{result.tool}  ({result.file}{source})")
        if result.reason:
            lines.append(f"  not measured: {result.reason}")
            continue
        lines.append(f"  {_counts(result.tally)}")
        for operator, tally in result.by_operator().items():
            lines.append(
                f"    {operator:<20} {_checked(tally):>9} checked {tally.killed:>4} killed "
                f"{tally.survived:>4} survived"
            )
        for survivor in result.survivors:
            mutant = survivor.mutant
            lines.append(f"  survived ({survivor.verdict}): {mutant.operator}, line {mutant.line}")
            lines += [f"    - {line}" for line in mutant.original.split("\n")]
            lines += [f"    + {line}" for line in mutant.mutated.split("\n")]
    total = _total(results)
    lines.append(f"total over {len(results)} tool(s): {_counts(total)}")
    return "\n".join(lines) + "\n"


def markdown(results: list[ToolMutation]) -> str:
    """A table for docs (tool, mutants, killed, survived, kill rate, per operator killed/checked),
    then the survivors as diffs."""
    lines = [
        "| tool | mutants | killed | survived | kill rate | per operator (killed/checked) |",
        "|---|---|---|---|---|---|",
    ]
    for result in results:
        tally = result.tally
        operators = ", ".join(
            f"{name} {t.killed}/{t.checked}" for name, t in result.by_operator().items()
        )
        lines.append(
            f"| `{result.tool}` | {_checked(tally)} | {tally.killed} | {tally.survived} "
            f"| {_rate(tally)} | {operators or _cell(result.reason) or 'none'} |"
        )
    total = _total(results)
    lines.append(
        f"| **total** | {_checked(total)} | {total.killed} | {total.survived} | {_rate(total)} | |"
    )
    survivors = [(result.tool, s) for result in results for s in result.survivors]
    if survivors:
        lines += ["", "Survivors:"]
    for tool, survivor in survivors:
        mutant = survivor.mutant
        lines += ["", f"- `{tool}`, {mutant.operator}, line {mutant.line} ({survivor.verdict}):"]
        lines += ["", "  ```diff"]
        lines += [f"  - {line}" for line in mutant.original.split("\n")]
        lines += [f"  + {line}" for line in mutant.mutated.split("\n")]
        lines.append("  ```")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _document(results: list[ToolMutation], options: CheckOptions, limit: int) -> dict[str, Any]:
    return {
        "options": {
            "examples": options.examples,
            "paths": options.paths,
            "engines": list(options.engines),
            "seed": options.seed,
            "style": options.style,
            "limit": limit,
        },
        "tools": [result.to_json() for result in results],
        "total": _total(results).to_json(),
    }
