"""Pieces every CLI command shares: exit codes, the ``--format`` option, output."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transpiler.config.target import Target
    from transpiler.policy import Policy

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3

CommandHandler = Callable[[argparse.Namespace], int]


def add_format_option(parser: argparse.ArgumentParser, *more: str) -> None:
    """Add ``--format text|json`` (every command that prints results has it), and the
    command's ``more`` formats."""
    parser.add_argument(
        "--format",
        choices=("text", "json", *more),
        default="text",
        help="output format (default: text)",
    )


def non_empty(text: str) -> str:
    """An option's path, refused when empty (an unset variable would name the current
    directory)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no directory (an unset variable?)")
    return text


def add_library_path_option(parser: Any) -> None:
    """``--library-path DIR`` (repeatable): where a script's ``load()`` finds modules."""
    parser.add_argument(
        "--library-path",
        action="append",
        default=[],
        type=non_empty,
        metavar="DIR",
        help="where load() finds modules (repeatable; default: the folder of the file that "
        "holds the script)",
    )


def add_accept_gap_option(parser: argparse.ArgumentParser) -> None:
    """``--accept-gap GAP`` (repeatable): a step no scenario may complete, a part of the result
    none may compare, a call site of the script no scenario may reach, or a file of it the
    parser cannot read (the names :mod:`transpiler.harness.coverage.coverage` gives)."""
    parser.add_argument(
        "--accept-gap",
        action="append",
        default=[],
        metavar="GAP",
        help="a gap the tool may still pass with, by the name the report gives it (repeatable; "
        "check adds the policy's accept_gaps): TOOL/STEP, a step no scenario completes; "
        "TOOL/output.NAME (TOOL/result without an output block), a part of the result no "
        "scenario compares with a successful script's; "
        "TOOL/line:N, the script's call sites on line N no scenario reaches; TOOL/MODULE:N, "
        "those on line N of a module it loads; TOOL/FILE:unread, a file of the script the "
        "parser cannot read",
    )


def add_target_option(parser: argparse.ArgumentParser, default: str) -> None:
    """``--target NAME``: which vMCP the configuration is for (docs/target.md)."""
    from transpiler.config.target import TARGETS

    parser.add_argument(
        "--target",
        choices=tuple(TARGETS),
        help="the vMCP the configuration is for: vmcp (toolhive e25de16, composite tools only), "
        "thv-0051 (that vMCP with the RFC's scripted tools, which have no annotations), "
        f"thv-0051+annotations (scripted tools that take annotations too); {default} "
        "(docs/target.md)",
    )


def policy_of(paths: Sequence[str]) -> Policy:
    """The policy file that governs ``paths`` (:func:`~transpiler.policy.find_policy`), read;
    an empty policy when none does."""
    from transpiler.policy import Policy, find_policy, load_policy

    found = find_policy(paths)
    return load_policy(found) if found is not None else Policy()


def chosen_target(given: str | None, policy: Policy) -> Target:
    """The vMCP the configuration is for: ``--target``, else the policy's, else
    :data:`~transpiler.config.target.DEFAULT_TARGET`."""
    from transpiler.config.target import DEFAULT_TARGET, target_named

    return target_named(given) if given else policy.target or DEFAULT_TARGET


def print_json(value: Any) -> None:
    """Print a JSON document deterministically (sorted keys, two-space indent)."""
    json.dump(value, sys.stdout, indent=2, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")


def add_emit_options(parser: argparse.ArgumentParser) -> None:
    """``--style``, ``--inline-helpers``, ``--tools FILE``, ``--fix QUIRK``: what shapes scripts."""
    from transpiler.emit import STYLES
    from transpiler.emit.fixes import FIXES

    parser.add_argument(
        "--style",
        choices=STYLES,
        default=STYLES[0],
        help="readable (default): the script a person would write, its differences from vMCP "
        "named; exact: bug-compatible with vMCP's Go engine",
    )
    parser.add_argument(
        "--inline-helpers",
        action="store_true",
        help="an exact script carries the helpers it uses instead of loading them from "
        "vmcp_compat.star (`library --out DIR` writes that file)",
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="the backends' tools/list (JSON or YAML): reproduce vMCP's argument conversion",
    )
    parser.add_argument(
        "--fix",
        action="append",
        default=[],
        metavar="QUIRK",
        help="emit the intended behaviour instead of this vMCP quirk (recorded as a "
        f"deliberate deviation); known: {', '.join(sorted(FIXES))}",
    )


def workspace_key() -> str:
    """This work tree's name among the cache's entries (the hook's report, saved scenarios):
    16 hex digits of the SHA-256 of the working directory, which the files a report names
    are relative to, so two repositories' entries never meet."""
    where = str(Path.cwd().resolve()).encode("utf-8", "surrogateescape")
    return hashlib.sha256(where).hexdigest()[:16]
