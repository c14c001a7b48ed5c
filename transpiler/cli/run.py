"""``python -m transpiler run``: run one tool against a scenario and print the trace.

``--form composite CONFIG`` runs a composite tool with the model of vMCP's
workflow engine; ``--form starlark SCRIPT.star --engine rust|go`` runs a
scripted tool on starlark-rust or go.starlark.net, its ``load()`` calls
resolved in the ``--library-path`` directories. A failing
workflow still exits 0: the trace says ``outcome: error``. Unreadable input,
or a config vMCP would refuse to start with, exits 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transpiler.cli.common import EXIT_OK, print_json
from transpiler.composite import run_composite_schedules
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.config.validate import validate
from transpiler.diagnostics import InputError
from transpiler.golang.duration import parse_duration
from transpiler.reading import UnreadableFile, read_text
from transpiler.sim.scenario import Scenario, load_scenario
from transpiler.sim.schedule import parse_schedule
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import (
    ENGINES,
    EngineError,
    ScriptLimitExceeded,
    ScriptLimits,
    run_starlark,
)
from transpiler.starlark_runtime.library import library_modules

#: A form's runner: (parsed arguments, scenario) -> traces in schedule order.
FormRunner = Callable[[argparse.Namespace, Scenario], list[Trace]]
_SERVE_PHASES = ("admission", "operator", "P1", "P2", "P3", "P4")


def register(subparsers: Any) -> None:
    """Add the ``run`` command."""
    parser = subparsers.add_parser(
        "run",
        help="run a tool against a scenario and print the trace",
        description="Run one form of a tool against a scenario's simulated backends and print "
        "the trace (a JSON list of traces with --schedule all). Exit 0 when it ran, "
        "2 when an input cannot be read or vMCP would not run the tool.",
    )
    parser.add_argument("--form", choices=sorted(FORMS), required=True, help="which form to run")
    parser.add_argument("source", metavar="CONFIG", help="the composite config (or the script)")
    parser.add_argument("--tool", help="the composite tool's name (default: the scenario's)")
    parser.add_argument("--scenario", required=True, help="scenario file (YAML or JSON)")
    parser.add_argument(
        "--schedule",
        default="canonical",
        help="canonical (default), random:SEED, or all (every distinct behaviour)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="rust",
        help="Starlark interpreter for --form starlark: rust (default) or go "
        "(go.starlark.net, the interpreter vMCP embeds)",
    )
    defaults = ScriptLimits()
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=defaults.memory_bytes / 2**20,
        metavar="MIB",
        help=f"most memory a --form starlark run may use (default {defaults.memory_text()})",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=defaults.seconds,
        metavar="SECONDS",
        help=f"most wall-clock time a --form starlark run may take (default {defaults.seconds:g})",
    )
    parser.add_argument(
        "--timeout", help="the scripted tool's timeout for --form starlark (Go duration; 30m)"
    )
    parser.add_argument(
        "--library-path",
        metavar="DIR",
        action="append",
        default=[],
        help='for --form starlark: load("x.star") reads DIR/x.star (repeatable, first match '
        "wins; names outside DIR, absolute or with '..', are not found)",
    )
    parser.add_argument(
        "--limit", type=int, default=64, help="most schedules tried with --schedule all"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="json",
        help="json: the trace (default); text: a one-line summary per trace",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Load the scenario, run the form, print the traces."""
    try:
        parse_schedule(args.schedule)
    except ValueError as error:
        raise InputError(str(error)) from None
    if args.limit < 1:
        raise InputError("--limit must be at least 1")
    scenario = load_scenario(Path(args.scenario))
    traces = FORMS[args.form](args, scenario)
    if args.format == "text":
        for trace in traces:
            print(_summary(trace))
    elif args.schedule == "all":
        print_json([trace.to_json() for trace in traces])
    else:
        sys.stdout.write(traces[0].dumps() + "\n")
    return EXIT_OK


def _summary(trace: Trace) -> str:
    content = trace.client_result.get("content") or [{}]
    return (
        f"{trace.schedule}: {trace.outcome}, {len(trace.calls)} call(s), "
        f"{trace.virtual_duration_ns / 1e9:g}s: {content[0].get('text', '')}"
    )


def _run_composite_form(args: argparse.Namespace, scenario: Scenario) -> list[Trace]:
    tool, served = _select_tool(args.source, args.tool or scenario.tool)
    explored = run_composite_schedules(
        tool.effective, scenario, args.schedule, args.limit, served=served
    )
    if args.schedule == "all":
        coverage = "every schedule" if explored.exhaustive else f"limit of {args.limit} reached"
        print(
            f"explored {explored.schedules} schedule(s) ({coverage}): "
            f"{len(explored)} distinct trace(s)",
            file=sys.stderr,
        )
    return list(explored)


def _select_tool(
    source: str, name: str | None
) -> tuple[LoadedTool, list[CompositeToolConfig]]:
    """The tool to run, and every composite tool the config serves; refusing configs vMCP
    would not start with."""
    load = load_paths([source])
    if load.input_errors:
        raise InputError("; ".join(d.render() for d in load.input_errors))
    tools = load.tools
    if name is not None:
        matching = [tool for tool in tools if tool.effective.name == name]
        if not matching:
            known = ", ".join(tool.effective.name for tool in tools) or "none"
            raise InputError(f"no composite tool named {name!r} in {source} (found: {known})")
        chosen = matching[0]
    elif len(tools) == 1:
        chosen = tools[0]
    else:
        raise InputError(f"{source} defines {len(tools)} composite tools: name one with --tool")
    for unit in validate(load).units:
        if any(tool is chosen for tool in unit.unit.tools):
            failed = unit.first_failure(_SERVE_PHASES)
            if failed is not None:
                name = chosen.effective.name
                raise InputError(f"vMCP would not run {name!r}: {failed.phase}: {failed.message}")
    return chosen, [tool.effective for tool in tools]


def _run_starlark_form(args: argparse.Namespace, scenario: Scenario) -> list[Trace]:
    path = Path(args.source)
    try:
        script = read_text(path)
    except UnreadableFile as error:
        raise InputError(f"cannot read script {path}: {error.reason}") from None
    if args.schedule != "canonical":
        print("note: a script runs deterministically; --schedule is ignored", file=sys.stderr)
    timeout_ns = parse_duration(args.timeout) if args.timeout else 0
    modules = library_modules([Path(directory) for directory in args.library_path])
    if args.memory_limit <= 0 or args.time_limit <= 0:
        raise InputError("--memory-limit and --time-limit must be positive")
    limits = ScriptLimits(int(args.memory_limit * 2**20), args.time_limit)
    try:
        trace = run_starlark(
            script,
            scenario,
            engine=args.engine,
            timeout_ns=timeout_ns,
            filename=path.name,
            modules=modules,
            limits=limits,
        )
    except ScriptLimitExceeded as exceeded:
        raise EngineError(f"{path}: {exceeded}") from None
    return [trace]


#: Every runnable form; the Starlark form registers here.
FORMS: dict[str, FormRunner] = {
    "composite": _run_composite_form,
    "starlark": _run_starlark_form,
}
