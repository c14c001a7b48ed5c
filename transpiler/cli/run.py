"""``python -m transpiler run``: run one tool against a scenario and print the trace.

``--form composite CONFIG`` runs a composite tool with the model of vMCP's
workflow engine; ``--form starlark SCRIPT.star --engine rust|go`` runs a
script on starlark-rust or go.starlark.net, its ``load()`` calls resolved in
the ``--library-path`` directories; ``--form starlark CONFIG`` runs the
scripted tool of that name (``--tool``, or the scenario's) in a
configuration, as ``migrate`` writes it, with its ``timeout``. ``--form both
CONFIG`` runs the composite tool and the script ``check`` pairs it with (the
same ``--baseline``, ``--baseline-git`` and composite baselines) and shows
what differs, field by field: the command ``check`` prints to replay a saved
counterexample (:func:`replay_command`). A failing workflow still exits 0: the
trace says ``outcome: error``. Unreadable input, or a config vMCP would refuse
to start with, exits 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from transpiler.cli.common import EXIT_OK, add_target_option, chosen_target, policy_of, print_json
from transpiler.composite import run_composite, run_composite_schedules
from transpiler.config.loader import SUFFIXES, LoadedTool, load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.diagnostics import InputError
from transpiler.gate.batch import compared
from transpiler.golang.duration import parse_duration
from transpiler.harness.judging.fields import field_differences
from transpiler.harness.running.check import CheckOptions
from transpiler.inert import one_line
from transpiler.inputs.files import read_inputs
from transpiler.pairs import Request, Script, Where, pair, scripts_of
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
from transpiler.validate import validate

#: A form's runner: (parsed arguments, scenario) -> traces in schedule order.
FormRunner = Callable[[argparse.Namespace, Scenario], list[Trace]]
_SERVE_PHASES = ("admission", "operator", "P1", "P2", "P3", "P4")


def register(subparsers: Any) -> None:
    """Add the ``run`` command."""
    parser = subparsers.add_parser(
        "run",
        description="Run one form of a tool against a scenario's simulated backends and print "
        "the trace (a JSON list of traces with --schedule all). Exit 0 when it ran, "
        "2 when an input cannot be read or vMCP would not run the tool.",
    )
    parser.add_argument(
        "--form",
        choices=sorted([*FORMS, BOTH]),
        required=True,
        help="which form to run; both: the composite tool and its script, and what differs",
    )
    parser.add_argument(
        "source",
        metavar="CONFIG",
        help="the configuration (for --form starlark, a configuration with scripted tools or a "
        "script file)",
    )
    parser.add_argument("--tool", help="the tool's name (default: the scenario's)")
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
    pairing = parser.add_argument_group("--form both: the pair, as check makes it")
    pairing.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="BASE",
        help="the composite tool comes from BASE (files or directories; repeatable)",
    )
    pairing.add_argument(
        "--baseline-git", metavar="REV", help="the baseline is CONFIG as git revision REV holds it"
    )
    pairing.add_argument(
        "--script", metavar="FILE.star", help="the script is this file, not CONFIG's"
    )
    pairing.add_argument(
        "--style",
        choices=("readable", "exact"),
        default="readable",
        help="the emitter's style, for a composite tool no scripted tool replaces yet",
    )
    add_target_option(parser, f"default: the policy's target, else {DEFAULT_TARGET}")
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
    if args.form == BOTH:
        return _run_both(args, scenario)
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
    tool, served = _select_tool(args.source, args.tool or scenario.tool, _target(args))
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
    source: str, name: str | None, target: Target
) -> tuple[LoadedTool, list[CompositeToolConfig]]:
    """The tool to run, and every composite tool the config serves; refusing configs vMCP
    (``target``) would not start with."""
    load = load_paths([source], target)
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
    if path.suffix in SUFFIXES:
        script, timeout_ns = _scripted_tool(args, args.tool or scenario.tool)
        where = script.where
    else:
        try:
            text = read_text(path)
        except UnreadableFile as error:
            raise InputError(f"cannot read script {path}: {error.reason}") from None
        library = [Path(directory) for directory in args.library_path]
        script = Script(text, path.name, library_modules(library))
        timeout_ns, where = _timeout(args.timeout), str(path)
    if args.schedule != "canonical":
        print("note: a script runs deterministically; --schedule is ignored", file=sys.stderr)
    if args.memory_limit <= 0 or args.time_limit <= 0:
        raise InputError("--memory-limit and --time-limit must be positive")
    limits = ScriptLimits(int(args.memory_limit * 2**20), args.time_limit)
    try:
        trace = run_starlark(
            script.text,
            scenario,
            engine=args.engine,
            timeout_ns=timeout_ns,
            filename=script.where,
            modules=script.modules,
            limits=limits,
        )
    except ScriptLimitExceeded as exceeded:
        raise EngineError(f"{where}: {exceeded}") from None
    return [trace]


def _target(args: argparse.Namespace) -> Target:
    """``--target``, else the target of the policy that governs CONFIG (as ``check`` finds
    it), else the default."""
    return chosen_target(args.target, policy_of([args.source]))


def _timeout(text: str | None) -> int:
    """``--timeout`` in nanoseconds (0: none given, the default applies)."""
    return parse_duration(text) if text else 0


def _scripted_tool(args: argparse.Namespace, name: str | None) -> tuple[Script, int]:
    """The script of the scripted tool ``name`` in the configuration, and its timeout
    (``--timeout`` wins over the entry's)."""
    inputs = read_inputs([args.source], _target(args))
    found = list(inputs.scripted.counterparts())
    if name is not None:
        found = [counterpart for counterpart in found if counterpart.tool == name]
    if not found:
        known = ", ".join(sorted(c.tool for c in inputs.scripted.counterparts())) or "none"
        wanted = f"named {name!r} " if name is not None else ""
        composite = inputs.load is not None and any(
            tool.config.name == name or name is None for tool in inputs.load.tools
        )
        hint = "; it is a composite tool there: --form composite runs it" if composite else ""
        raise InputError(f"no scripted tool {wanted}in {args.source} (found: {known}){hint}")
    if len(found) > 1:
        raise InputError(f"{args.source} defines {len(found)} scripted tools: name one with --tool")
    counterpart = found[0]
    if counterpart.problem is not None:
        raise InputError(counterpart.problem)
    loaded = scripts_of(inputs, args.library_path).get(counterpart.where)
    if isinstance(loaded, UnreadableFile):
        raise InputError(f"{counterpart.where}: cannot read a module it loads: {loaded.reason}")
    if loaded is None:
        raise InputError(f"{counterpart.where}: the scripted tool {counterpart.tool} has no script")
    return loaded, _timeout(args.timeout) or counterpart.timeout_ns or 0


def _run_both(args: argparse.Namespace, scenario: Scenario) -> int:
    """The composite tool and its script on ``scenario``, then what differs."""
    if args.schedule != "canonical":
        raise InputError("--form both runs the canonical schedule, as check first does")
    name = args.tool or scenario.tool
    if args.baseline and args.baseline_git is not None:
        raise InputError("give --baseline BASE or --baseline-git REV, not both")
    target = _target(args)
    baseline = None
    if args.baseline:
        baseline = Where(tuple(args.baseline), target=target)
    elif args.baseline_git is not None:
        baseline = Where((args.source,), args.baseline_git, target=target)
    if args.script is not None and baseline is not None:
        raise InputError("--script compares one script with CONFIG's tool: give no baseline")
    library = tuple(args.library_path)
    source = Where((args.source,), target=target)
    request = Request(source, baseline, args.script, name, library, sidecars=True)
    pairing = pair(request)
    if pairing.unreadable:
        raise InputError("; ".join(problem.render() for problem in pairing.unreadable))
    chosen = [item for item in pairing.pairs if item.tool == name]
    if len(chosen) != 1:
        known = ", ".join(sorted({item.tool for item in pairing.pairs})) or "none"
        many = f"{len(chosen)} composite tools named" if chosen else "no composite tool named"
        raise InputError(f"{many} {name!r} to compare in {args.source} (found: {known})")
    found = compared(chosen[0], request, CheckOptions(style=args.style, target=target))
    if isinstance(found, str):
        raise InputError(f"{name}: {found}")
    config = found.tool.effective
    composite = run_composite(config, scenario, served=found.options.served)
    timeout_ns = found.entry.timeout_ns if found.entry is not None else config.timeout
    script = run_starlark(
        found.script, scenario, engine=args.engine, timeout_ns=timeout_ns, modules=found.modules
    )
    apart = field_differences(composite, script)
    if args.format == "json":
        print_json(
            {
                "composite": composite.to_json(),
                "script": script.to_json(),
                "differences": [asdict(difference) for difference in apart],
            }
        )
        return EXIT_OK
    if not apart:
        print(f"{name}: the script does as vMCP does on this scenario")
    else:
        print(f"{name}: vMCP's run and the script's ({args.engine}) differ:")
        for difference in apart:
            print("\n".join(f"  {one_line(line)}" for line in difference.lines()))
    return EXIT_OK


def replay_command(
    config: str,
    tool: str,
    scenario: str,
    engine: str,
    baseline: Sequence[str] = (),
    baseline_git: str | None = None,
    script: str | None = None,
    library_path: Sequence[str] = (),
    style: str | None = None,
    target: str | None = None,
) -> str:
    """The ``run --form both`` command line that replays ``scenario`` on the composite tool
    and its script as ``check`` paired them (``style``: the emitter's, when it wrote the
    script; ``target``: the one ``check`` was given, which overrides the policy's)."""
    words = ["python", "-m", "transpiler", "run", "--form", BOTH, config, "--tool", tool]
    words += ["--scenario", scenario, "--engine", engine]
    words += [word for base in baseline for word in ("--baseline", base)]
    words += ["--baseline-git", baseline_git] if baseline_git is not None else []
    words += ["--script", script] if script is not None else []
    words += [word for folder in library_path for word in ("--library-path", folder)]
    words += ["--style", style] if style is not None and style != "readable" else []
    words += ["--target", target] if target is not None else []
    return shlex.join([*words, "--format", "text"])


#: ``--form both``: the composite tool and its script, as ``check`` pairs them.
BOTH = "both"
#: Every runnable form; the Starlark form registers here.
FORMS: dict[str, FormRunner] = {
    "composite": _run_composite_form,
    "starlark": _run_starlark_form,
}
