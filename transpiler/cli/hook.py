"""``vmcp-transpile hook FILE...``: the pre-commit hook, ``check`` scoped to the staged files.

pre-commit passes the staged files it matched (``.yaml``, ``.yml``, ``.json``,
``.star``, ``.composite-baseline``). The configurations among them are
checked, with what they pair with: a changed ``.star`` brings every
configuration of the repository that names it (directly, or through a script
that loads it), a changed policy file the configurations of its folder, a
changed composite baseline the configuration it belongs to. A directory among
the arguments (the hook's ``args``, e.g. ``vmcp/``) limits the check to files
under it. Other options go to ``check`` as they are; without a baseline among
them, the hook gives ``--baseline-git HEAD`` (once the repository has a
commit), so that the commit's changes to what each script is held to are
reported for review, as CI reports a pull request's.

Each configuration is checked under the policy that governs it (the nearest
``vmcp-transpile.yaml`` up to the repository root, as ``check`` finds it): one
``check`` run per policy, each naming its policy; the exit code is the worst.

Each run reuses the last one's report (``check --since``), kept in the
project's cache directory (outside the work tree), one per repository: pairs
whose digest did not change are carried over, not checked again. The report is
updated with this run's entries (atomically; entries of files not checked now
are kept). Pairs are checked in this process (``--jobs 1``) unless ``--jobs``
is given: starting worker processes costs more than a commit's few pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from transpiler.cli.common import EXIT_OK, workspace_key
from transpiler.filenames import SIDECAR_SUFFIX
from transpiler.policy import POLICY_FILE, nearest_policy

#: What the hook reads: configurations and scripts.
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
SCRIPT_SUFFIX = ".star"
#: Text that marks a configuration holding tools ``check`` pairs.
_TOOL_KEYS = (
    "compositeTools",
    "scriptedTools",
    "composite_tools",
    "scripted_tools",
    "VirtualMCPCompositeToolDefinition",
    "VirtualMCPScriptedToolDefinition",
)


def register(subparsers: Any) -> None:
    """Add the ``hook`` command."""
    parser = subparsers.add_parser(
        "hook",
        description="Check the configurations among FILE (and those a changed script or "
        "policy file belongs to), reusing the last run's report from the cache directory. "
        "A directory among FILE limits the check to files under it; other options go to "
        "check. Exit codes are check's; 0 when no staged file is a configuration.",
        prefix_chars="+",  # every argument is the hook's: check's options are passed on
    )
    parser.add_argument("arguments", nargs="*", metavar="FILE or check option")
    parser.set_defaults(handler=run)


def split_arguments(
    arguments: list[str], takes_value: frozenset[str] | None = None
) -> tuple[list[Path], list[Path], list[str]]:
    """The staged files, the directories that scope the check, and check's options (an option
    that takes a value keeps the argument after it; ``takes_value``: those options, by default
    check's own)."""
    if takes_value is None:
        takes_value = _check_options_taking_a_value()
    files: list[Path] = []
    scopes: list[Path] = []
    options: list[str] = []
    pending = False
    for argument in arguments:
        if pending or argument.startswith("-"):
            options.append(argument)
            pending = not pending and argument in takes_value
        elif Path(argument).is_dir():
            scopes.append(Path(argument))
        else:
            files.append(Path(argument))
    return files, scopes, options


def _check_options_taking_a_value() -> frozenset[str]:
    from transpiler.cli.check import register as register_check

    commands = argparse.ArgumentParser().add_subparsers()
    register_check(commands)
    check = commands.choices["check"]
    return frozenset(
        flag for action in check._actions if action.nargs != 0 for flag in action.option_strings
    )


def run(args: argparse.Namespace) -> int:
    """Find what to check, check it with the cached report, keep the new one."""
    # A first look, without check's options or the scopes: every argument that is no option is
    # taken for a staged file. It finds every configuration the exact look below finds (an
    # option's value can only add some; a scope only removes some), so when it finds none
    # there is nothing to check, and check's code is never loaded.
    candidates, _, _ = split_arguments(args.arguments, frozenset())
    configs = configurations_for(*_staged(candidates, []))
    if configs:
        files, scopes, options = split_arguments(args.arguments)
        configs = configurations_for(*_staged(files, scopes))
    if not configs:
        print("vmcp-transpile hook: no configuration among the staged files")
        return EXIT_OK
    if not any(option.split("=")[0] == "--jobs" for option in options):
        options = ["--jobs", "1", *options]  # a commit has few pairs: no worker processes
    given = {option.split("=")[0] for option in options}
    if not given & {"--baseline-git", "--baseline", "--script"} and _has_head():
        options = [*options, "--baseline-git", "HEAD"]  # the commit's changes, for review
    groups: dict[Path | None, list[Path]] = {}
    for config in configs:
        policy = nearest_policy(config)
        groups.setdefault(None if policy is None else policy.resolve(), []).append(config)
    return max(_check(group, options) for group in groups.values())


def _staged(files: list[Path], scopes: list[Path]) -> tuple[list[Path], list[Path]]:
    return [path for path in files if path.is_file() and _within(path, scopes)], scopes


def _check(configs: list[Path], options: list[str]) -> int:
    """``check`` on configurations one policy governs, with the cached report."""
    from transpiler.cli import main as cli

    report = _report_path()
    fresh = report.with_name(f".{report.name}.{os.getpid()}")
    since = ["--since", str(report)] if report.is_file() else []
    paths = [str(path) for path in configs]
    code = cli(["check", *paths, *options, *since, "--report-json", str(fresh)])
    if fresh.is_file():
        _keep(fresh, report)
    return code


def configurations_for(staged: list[Path], scopes: list[Path]) -> list[Path]:
    """The configurations to check: the staged ones, and those a staged script or policy file
    belongs to (searched among the repository's tracked files)."""
    chosen = {path for path in staged if _is_configuration(path)}
    chosen |= {
        owner
        for path in staged
        if path.name.endswith(SIDECAR_SUFFIX)
        for owner in (path.with_name(path.name.removesuffix(SIDECAR_SUFFIX)),)
        if owner.is_file()
    }
    scripts = {path.name for path in staged if path.suffix == SCRIPT_SUFFIX}
    policies = {path.parent.resolve() for path in staged if path.name == POLICY_FILE}
    if scripts or policies:
        tracked = [path for path in _tracked() if _within(path, scopes)]
        chosen |= {p for p in tracked if p.parent.resolve() in policies and _is_configuration(p)}
        scripts |= _loading(scripts, [p for p in tracked if p.suffix == SCRIPT_SUFFIX])
        chosen |= {p for p in tracked if _is_configuration(p) and _names_any(p, scripts)}
    return sorted(chosen)


def _loading(names: set[str], scripts: list[Path]) -> set[str]:
    """``names`` and the scripts that name one of them (a ``load()``), to a fixed point."""
    found = set(names)
    while True:
        more = {s.name for s in scripts if s.name not in found and _names_any(s, found)}
        if not more:
            return found
        found |= more


def _names_any(path: Path, names: set[str]) -> bool:
    text = _text(path)
    return any(name in text for name in names)


def _is_configuration(path: Path) -> bool:
    return (
        path.suffix in CONFIG_SUFFIXES
        and path.name != POLICY_FILE
        and any(key in _text(path) for key in _TOOL_KEYS)
    )


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _within(path: Path, scopes: list[Path]) -> bool:
    resolved = path.resolve()
    return not scopes or any(resolved.is_relative_to(scope.resolve()) for scope in scopes)


def _has_head() -> bool:
    """Whether the repository has a commit to compare the staged change with."""
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "HEAD"], capture_output=True, check=False
    )
    return found.returncode == 0


def _tracked() -> list[Path]:
    """The repository's tracked files of the kinds the hook reads."""
    patterns = [f"*{suffix}" for suffix in (*CONFIG_SUFFIXES, SCRIPT_SUFFIX)]
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *patterns], capture_output=True, check=False
    )
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [Path(name) for name in names if name]


def _report_path() -> Path:
    """This repository's last report, in the cache directory."""
    from transpiler.gobuild import cache_dir

    return cache_dir() / "hook" / f"{workspace_key()}.report.json"


def _keep(fresh: Path, report: Path) -> None:
    """Replace ``report`` by ``fresh`` plus the old entries of files ``fresh`` does not hold."""
    new = json.loads(fresh.read_text())
    try:
        old = json.loads(report.read_text()) if report.is_file() else {"tools": []}
    except (OSError, ValueError):
        old = {"tools": []}
    checked = {entry.get("file") for entry in new["tools"]}
    kept = [entry for entry in old.get("tools", []) if entry.get("file") not in checked]
    new["tools"] = [*new["tools"], *kept]
    fresh.write_text(json.dumps(new, separators=(",", ":")))  # read by the next run alone
    os.replace(fresh, report)
    print(f"report kept for the next run: {report}", file=sys.stderr)
