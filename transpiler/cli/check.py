"""``python -m transpiler check PATH...``: the equivalence gate for CI."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from transpiler.changes import Change, failing
from transpiler.cli.common import (
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    add_accept_gap_option,
    add_emit_options,
    add_format_option,
    add_library_path_option,
    add_target_option,
    chosen_target,
    non_empty,
    policy_of,
    print_json,
    workspace_key,
)
from transpiler.cli.run import replay_command
from transpiler.config.target import DEFAULT_TARGET
from transpiler.deviations import Deviation, read_ids
from transpiler.diagnostics import InputError
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.tools_file import load_tool_annotations, load_tool_schemas
from transpiler.gate.batch import check_all, parse_shard, select
from transpiler.gate.merge import RUN, merge, run_header
from transpiler.gate.review import review
from transpiler.gobuild import cache_dir, go_unavailable
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.reporting.github import workflow_annotations
from transpiler.harness.reporting.places import script_config, work_tree_file
from transpiler.harness.reporting.reports import (
    console_line,
    difference_lines,
    junit,
    listing_lines,
    markdown,
    not_accepted,
    policy_text,
    report_json,
    save_counterexample,
    side_by_side,
    witness_lines,
)
from transpiler.harness.reporting.since import read_since
from transpiler.harness.running.check import ENGINES, CheckOptions, ToolReport
from transpiler.inert import one_line, shown_lines
from transpiler.pairs import Pairing, Request, Where
from transpiler.policy import ENGINE_CHOICES, POLICY_FILE, Policy
from transpiler.sim.scenario import Scenario, load_scenario

DEFAULTS = CheckOptions()
#: ``--format github``: the text report, then GitHub workflow commands (annotations).
GITHUB = "github"


def register(subparsers: Any) -> None:
    """Add the ``check`` command."""
    parser = subparsers.add_parser(
        "check",
        description="Pair each composite tool with its script (the scripted tool of its name "
        "beside it, a baseline's, one --script, or the emitter's), run both on generated and "
        "path-exhaustive scenarios, and report. Exit 0 when every pair is equivalent, or "
        "equivalent except for accepted deviation classes; 1 when one differs, shows a class "
        "not accepted, is incomplete or unchecked, or there is nothing to check; 2 when an "
        "input cannot be read (the other inputs' tools are still checked). Options can also "
        f"come from the nearest {POLICY_FILE} from each PATH up to the repository root; the "
        "command line wins.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH")
    pairing = parser.add_argument_group("pairing")
    pairing.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="BASE",
        help="composite tools from BASE (files or directories; repeatable), each checked "
        "against the scripted tool of its name in PATH",
    )
    pairing.add_argument(
        "--baseline-git",
        metavar="REV",
        help="the baseline is PATH as git revision REV holds it (e.g. origin/main; symbolic "
        "links are followed inside the revision); each change since REV to what a script is "
        "held to (its record, its declared classes, the policy) is reported for review",
    )
    pairing.add_argument(
        "--script", metavar="FILE.star", help="check this script against --tool's workflow"
    )
    pairing.add_argument("--tool", metavar="NAME", help="the composite tool --script replaces")
    add_library_path_option(pairing)
    add_options(parser)
    parser.add_argument("--shard", default="1/1", help="check every n-th pair from the i-th: i/n")
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="REPORT.json",
        help="instead of checking: one verdict and report from the --report-json reports of "
        "every shard of one run (refused for reports of different runs or a missing shard)",
    )
    parser.add_argument("--jobs", type=int, help="worker processes (default: the core count)")
    parser.add_argument(
        "--since",
        metavar="REPORT.json",
        help="re-check only pairs that changed since this --report-json, which must come from "
        "a trusted run (the others' entries are carried over when their sealed certificate "
        "vouches for them, else checked again)",
    )
    parser.add_argument("--report-json", metavar="FILE", help="write the JSON report")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--report-md", metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--counterexamples",
        metavar="DIR",
        type=non_empty,
        help="where scenarios that show a difference are saved, as DIR/FILE/TOOL.ENGINE."
        "scenario.yaml (default: counterexamples/ under the cache directory, $TRANSPILER_CACHE "
        "or ~/.cache/vmcp-transpiler, outside the work tree, one folder per work tree); each "
        "saved path is printed with the `run` command that replays it",
    )
    parser.add_argument(
        "--scenarios",
        metavar="DIR",
        action="append",
        default=[],
        help="also run the scenario files in DIR (.json, .yaml; repeatable), each on the tool "
        "it names: e.g. the calls `serve --record DIR` recorded",
    )
    add_format_option(parser, GITHUB)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--verbose",
        action="store_true",
        help="print every tool's witnesses, findings and notes, and both runs of a "
        "counterexample (default: a passing tool's line alone)",
    )
    shown.add_argument(
        "--quiet", action="store_true", help="print the tools that do not pass, and the count"
    )
    parser.set_defaults(handler=run)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options that decide how hard ``check`` (and ``migrate``) look; unset ones come from
    the policy file, then the defaults."""
    parser.add_argument(
        "--examples", type=int, help=f"random scenarios per tool (default {DEFAULTS.examples})"
    )
    parser.add_argument(
        "--paths",
        dest="path_limit",
        type=int,
        help=f"most outcome combinations tried per tool (default {DEFAULTS.paths})",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINE_CHOICES,
        help="the interpreter(s) scripts run on: go is go.starlark.net, what vMCP embeds "
        "(needs Go), and the default; rust is starlark-rust, the default (with a note saying "
        "so) where go cannot run; a requested engine that cannot run is an error",
    )
    parser.add_argument("--seed", type=int, help="seed for scenario generation (default 0)")
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
    add_accept_gap_option(parser)
    add_emit_options(parser)
    add_target_option(parser, f"default: the policy's target, else {DEFAULT_TARGET}")
    parser.set_defaults(style=None)


def options_from(args: argparse.Namespace) -> CheckOptions:
    """CheckOptions from parsed ``add_options`` arguments, then the policy file, then defaults."""
    policy = _policy_of(args)
    engine = _engine(args.engine, policy)
    print(f"policy: {policy.source or 'none'}; engine: {engine}", file=sys.stderr)
    return CheckOptions(
        examples=_first(args.examples, policy.examples, DEFAULTS.examples),
        paths=_first(args.path_limit, policy.paths, DEFAULTS.paths),
        engines=ENGINES if engine == "both" else (engine,),
        seed=_first(args.seed, policy.seed, DEFAULTS.seed),
        tool_schemas=load_tool_schemas(args.tools) if args.tools else None,
        tool_annotations=load_tool_annotations(args.tools) if args.tools else None,
        fixes=tuple(sorted(checked_fixes(args.fix))),
        style=args.style or policy.style or DEFAULTS.style,
        inline_helpers=args.inline_helpers,
        accept=_accepted(args) if args.strict or args.accept is not None else policy.accept,
        accept_gaps=frozenset(args.accept_gap) | policy.accept_gaps,
        target=chosen_target(args.target, policy),
    )


def recorded_scenarios(directories: list[str]) -> tuple[Scenario, ...]:
    """Every scenario file in the directories, in name order (one that cannot be read exits 2,
    naming it)."""
    found = []
    for directory in map(Path, directories):
        if not directory.is_dir():
            raise InputError(f"--scenarios {directory}: not a directory")
        files = sorted(p for p in directory.iterdir() if p.suffix in (".json", ".yaml", ".yml"))
        found += [load_scenario(path) for path in files if not path.name.startswith(".")]
    return tuple(found)


def _engine(given: str | None, policy: Policy) -> str:
    """The engine choice: given, or the policy's (go must be able to run), else go where it can
    run, and rust, said, where it cannot."""
    chosen = given or policy.engines
    unavailable = go_unavailable() if chosen != "rust" else None
    if chosen is None:
        if unavailable is None:
            return "go"
        print(
            "note: go.starlark.net, what vMCP embeds and the default engine, cannot run here "
            f"({unavailable}): scripts run on starlark-rust instead, where a few constructs "
            "behave otherwise (docs/engines.md)",
            file=sys.stderr,
        )
        return "rust"
    if unavailable is not None:
        origin = "--engine" if given else f"{policy.source}: engines:"
        needs = f"{origin} {chosen} needs go.starlark.net, which cannot run"
        raise InputError(f"{needs}: {unavailable}")
    return chosen


def _policy_of(args: argparse.Namespace) -> Policy:
    return policy_of([str(path) for path in args.paths])


def _first(given: int | None, policy: int | None, default: int) -> int:
    return given if given is not None else policy if policy is not None else default


def _accepted(args: argparse.Namespace) -> frozenset[Deviation] | None:
    """The classes the gate accepts: None (every declared one), none, or the listed ones."""
    if getattr(args, "strict", False):
        return frozenset()
    listed = getattr(args, "accept", None)
    if listed is None:
        return None
    chosen, unknown = read_ids(part.strip() for part in listed.split(",") if part.strip())
    if unknown:
        raise InputError(
            f"unknown deviation class {', '.join(unknown)} (known: {', '.join(sorted(Deviation))})"
        )
    return chosen


def request_from(args: argparse.Namespace) -> Request:
    """What to pair, from the pairing options (and the policy file's library path)."""
    if (args.script is None) != (args.tool is None):
        raise InputError("--script FILE.star and --tool NAME go together")
    if args.script is not None and (args.baseline or args.baseline_git is not None):
        raise InputError("--script checks one script against PATH's tool: give no baseline")
    if args.baseline and args.baseline_git is not None:
        raise InputError("give --baseline BASE or --baseline-git REV, not both")
    policy = _policy_of(args)
    target = chosen_target(args.target, policy)
    config = Where(tuple(args.paths), target=target)
    baseline = None
    if args.baseline:
        baseline = Where(tuple(args.baseline), target=target)
    elif args.baseline_git is not None:
        baseline = Where(tuple(args.paths), args.baseline_git, target=target)
    library = args.library_path or [str(p) for p in policy.library_path]
    return Request(config, baseline, args.script, args.tool, tuple(library), sidecars=True)


#: The cache's folder for the scenarios that show a difference, when no folder is given.
COUNTEREXAMPLES = "counterexamples"


def run(args: argparse.Namespace) -> int:
    """Pair, check, report."""
    if args.merge is not None:
        return _merge(args)
    if not args.paths:
        raise InputError("give the PATH(s) to check (or --merge REPORT.json...)")
    options = replace(options_from(args), scenarios=recorded_scenarios(args.scenarios))
    request = request_from(args)
    since = read_since(Path(args.since)) if args.since is not None else None
    shard = parse_shard(args.shard)
    selected, pairing = select(request, shard)
    for problem in pairing.unreadable:
        print(f"error: {one_line(problem.render())}", file=sys.stderr)
    total = len(selected)

    def progress(number: int, report: ToolReport) -> None:
        """A bar on a terminal; a log (CI) gets the per-tool lines of the report alone."""
        width = 30
        done = width * number // max(total, 1)
        bar = "#" * done + "." * (width - done)
        name = one_line(report.tool)
        print(f"[{bar}] {number}/{total} {one_line(str(report.verdict))}: {name}", file=sys.stderr)

    shown = progress if sys.stderr.isatty() else None
    reports = check_all(selected, request, options, args.jobs, shown, since)
    _save_counterexamples(args, request, options, reports)
    accept = options.accept
    # The reviewed changes are the whole request's: the first shard reports them.
    changes = review(request, pairing, reports, options, args.jobs) if shard[0] == 1 else ()
    run_of = {RUN: run_header(request, pairing, options, shard)}
    _write_reports(args, reports, accept, pairing.unpaired, run_of, changes)
    if args.format == "json":
        print_json({**report_json(reports, accept, pairing.unpaired, changes), **run_of})
    else:
        _print(reports, pairing, accept, args, changes)
    return _verdict(args, reports, accept, bool(pairing.unreadable), changes)


def _verdict(
    args: argparse.Namespace,
    reports: list[ToolReport],
    accept: frozenset[Deviation] | None,
    unreadable: bool,
    changes: tuple[Change, ...] = (),
) -> int:
    """The annotations ``--format github`` asks for, and the exit code."""
    if args.format == GITHUB:
        for annotation in workflow_annotations(reports, accept, args.baseline_git, changes):
            print(annotation.command())
    if unreadable:
        return EXIT_INPUT
    if not reports and not changes:
        return EXIT_FAILED  # a gate pointed at the wrong place must not pass
    passed = all(r.passes(accept) for r in reports) and not failing(changes)
    return EXIT_OK if passed else EXIT_FAILED


def _save_counterexamples(
    args: argparse.Namespace, request: Request, options: CheckOptions, reports: list[ToolReport]
) -> None:
    """Save each counterexample's scenario (in ``--counterexamples DIR``, else this work tree's
    folder of the cache), with the command that replays it."""
    directory = (
        Path(args.counterexamples)
        if args.counterexamples is not None
        else cache_dir() / COUNTEREXAMPLES / workspace_key()
    )
    for report in reports:
        example = report.counterexample
        if example is None:
            continue
        file = work_tree_file(report.file, args.baseline_git)
        example.saved_to = save_counterexample(example, directory, file, report.tool)
        example.replay = replay_command(
            script_config(report, args.baseline_git) if args.script is None else file,
            report.tool,
            example.saved_to,
            example.engine,
            baseline=args.baseline,
            baseline_git=args.baseline_git,
            script=args.script,
            library_path=request.library_path,
            style=options.style,
            target=args.target,
        )


def _print(
    reports: list[ToolReport],
    pairing: Pairing,
    accept: frozenset[Deviation] | None,
    args: argparse.Namespace,
    changes: tuple[Change, ...] = (),
) -> None:
    """Each tool's line; what a tool that does not pass needs (every tool's with
    ``--verbose``; no passing tool with ``--quiet``); the count."""
    for report in reports:
        passes = report.passes(accept)
        if args.quiet and passes:
            continue
        print(console_line(report, accept))
        if report.carried is not None or (passes and not args.verbose):
            continue
        for note in report.notes:
            print(f"  note: {one_line(note)}")
        for finding in report.findings:
            kind = "note" if finding.placeholder else "finding"
            print(f"  {kind}: {one_line(finding.render())}")
        for witness in report.witnesses.values():
            print("  witness: " + "\n  ".join(one_line(line) for line in witness_lines(witness)))
        listing = report.listing
        for line in [d.render() for d in listing] if args.verbose else listing_lines(listing):
            print(f"  {one_line(line)}")
        example = report.counterexample
        if example is not None:
            print("\n".join(f"  {one_line(line)}" for line in difference_lines(example)))
            if args.verbose:
                print("  " + side_by_side(example).replace("\n", "\n  "))
        elif report.reason:
            print("  " + shown_lines(report.reason).replace("\n", "\n  "))
        if not passes and report.verdict is Verdict.EQUIVALENT_EXCEPT:
            print(f"  {not_accepted(report, accept)}")
    since = args.since
    revision = args.baseline_git
    for change in changes:
        print(change.console())
        for line in change.details:
            print(f"  {one_line(line)}")
    if pairing.unpaired:
        names = ", ".join(one_line(name) for name in pairing.unpaired)
        print(f"not checked: scripted tool(s) with no composite tool to check against: {names}")
    if not reports and not changes:
        print(
            "nothing to check: no composite tool (give --baseline or --baseline-git to check "
            "scripted tools against the composite tools they replaced)"
        )
    if since is not None:
        carried = sum(r.carried is not None for r in reports)
        checked = sum(r.carried is None and bool(r.certificate) for r in reports)
        print(f"{carried} pair(s) unchanged since {since}: not checked again; {checked} checked")
    passed = sum(r.passes(accept) for r in reports)
    unread = f"; {len(pairing.unreadable)} input(s) cannot be read" if pairing.unreadable else ""
    reviewed = ""
    if changes:
        denied = len(failing(changes))
        refused = f", {denied} the policy denies" if denied else ""
        reviewed = f"; {len(changes)} change(s) since {one_line(str(revision))} to review{refused}"
    print(f"{passed} of {len(reports)} tool(s) pass ({policy_text(accept)}){unread}{reviewed}")


def _write_reports(
    args: argparse.Namespace,
    reports: list[ToolReport],
    accept: frozenset[Deviation] | None,
    unpaired: tuple[str, ...],
    run_of: dict[str, Any],
    changes: tuple[Change, ...] = (),
) -> None:
    texts: dict[str | None, Callable[[], str]] = {
        args.report_json: lambda: json.dumps(
            {**report_json(reports, accept, unpaired, changes), **run_of},
            indent=2,
            sort_keys=True,
        )
        + "\n",
        args.junit: lambda: junit(reports, accept, args.baseline_git),
        args.report_md: lambda: markdown(reports, accept, changes, args.baseline_git or ""),
    }
    for target, text in texts.items():
        if target:  # each report is made only when asked for
            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text())


#: What ``--merge`` takes from the command line; the rest of a run's options come from its
#: shards' reports.
MERGE_OPTIONS = frozenset(
    {"merge", "report_json", "junit", "report_md", "format", "baseline_git", "handler", "command"}
)


def _merge(args: argparse.Namespace) -> int:
    """``--merge``: the shards' reports as one run's verdict, summary and reports."""
    commands = argparse.ArgumentParser().add_subparsers()
    register(commands)
    parser = commands.choices["check"]
    defaults = vars(parser.parse_args(["--merge", "-"]))
    names = {a.dest: a.option_strings[0] if a.option_strings else "PATH" for a in parser._actions}
    given = sorted(
        names.get(key, key)
        for key, value in vars(args).items()
        if key not in MERGE_OPTIONS and value != defaults.get(key)
    )
    if given:
        raise InputError(
            "--merge takes the run's options from its shards' reports: give no "
            + ", ".join(given)
        )
    merged = merge([Path(path) for path in args.merge])
    reports, accept, changes = merged.reports, merged.accept, merged.changes
    _write_reports(args, reports, accept, merged.unpaired, {}, changes)
    if args.format == "json":
        print_json(report_json(reports, accept, merged.unpaired, changes))
    else:
        for report in reports:
            decision = "PASS" if report.passes(accept) else "FAIL"
            verdict = one_line(str(report.verdict))
            print(f"{decision}  {verdict:>17}  {one_line(report.tool)}  ({one_line(report.file)})")
        for change in changes:
            print(change.console())
        passed = sum(r.passes(accept) for r in reports)
        unread = f"; {merged.unreadable} input(s) cannot be read" if merged.unreadable else ""
        print(
            f"{passed} of {len(reports)} tool(s) pass ({policy_text(accept)}); merged from "
            f"{merged.shards} shard(s){unread}"
        )
    return _verdict(args, reports, accept, merged.unreadable > 0, changes)
