"""``python -m transpiler migrate PATH...``: rewrite configs so composite tools become scripts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from transpiler.cli.check import add_options, options_from
from transpiler.cli.common import EXIT_FAILED, EXIT_INPUT, EXIT_OK, add_format_option, print_json
from transpiler.diagnostics import InputError
from transpiler.migrate.runner import MigrateOptions, migrate
from transpiler.migrate.summary import summary_json, summary_text, unified_diff


def register(subparsers: Any) -> None:
    """Add the ``migrate`` command."""
    parser = subparsers.add_parser(
        "migrate",
        description=(
            "For each composite tool: emit its script, check equivalence as `check` does, and "
            "rewrite the configuration (compositeTools -> scriptedTools, "
            "VirtualMCPCompositeToolDefinition -> VirtualMCPScriptedToolDefinition, "
            "compositeToolRefs -> scriptedToolRefs). Without --write, print the diff and an "
            "audit summary and change nothing. Exit 0 when every tool is migrated and "
            "certified, 1 when one is not (or, with --check, when a file would be written), 2 "
            "when an input cannot be read."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--write",
        action="store_true",
        help="apply the changes atomically (a file whose tools are not all certified is left "
        "alone)",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="a dry run that exits 1 when a file would be written (changes pending), as "
        "`ruff format --check` does",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="migrate converted tools even when not certified, and the rest of a file whose "
        "tools are not all certified",
    )
    parser.add_argument(
        "--keep-composite",
        action="store_true",
        help="keep the composite definitions beside the new scripts (a staged migration)",
    )
    parser.add_argument(
        "--script-dir",
        metavar="DIR",
        type=Path,
        help="write each script of a vMCP config file to DIR/<tool>.star and cite it with "
        "scriptFile; DIR must be in the config's folder or below, where a scriptFile is read "
        "(Kubernetes manifests always inline the script)",
    )
    parser.add_argument(
        "--library-dir",
        metavar="DIR",
        type=Path,
        help="where to write vmcp_compat.star, which exact scripts load (default: --script-dir, "
        "else beside the first rewritten file; never over a different file without --force)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="with --write, write the migrated files under DIR and leave the inputs untouched",
    )
    backup = parser.add_mutually_exclusive_group()
    backup.add_argument(
        "--backup",
        metavar="SUFFIX",
        help="keep each rewritten input as FILE+SUFFIX, never overwritten (default: .orig, "
        "except for a file git holds as it is: git is its backup)",
    )
    backup.add_argument(
        "--no-backup", action="store_true", help="rewrite in place without keeping the originals"
    )
    add_options(parser)
    parser.add_argument("--no-diff", action="store_true", help="print the summary only")
    add_format_option(parser)
    parser.set_defaults(handler=run)


#: The backup suffix when none is asked for.
DEFAULT_BACKUP = ".orig"


def run(args: argparse.Namespace) -> int:
    """Plan (and with --write, apply) the migration; print the diff and the summary."""
    if args.out is not None and not args.write:
        raise InputError("--out DIR writes files: give --write as well")
    options = MigrateOptions(
        write=args.write,
        force=args.force,
        keep_composite=args.keep_composite,
        script_dir=args.script_dir,
        library_dir=args.library_dir,
        out_dir=args.out,
        backup_suffix=None if args.no_backup else args.backup or DEFAULT_BACKUP,
        git_is_backup=args.backup is None,
        check=options_from(args),
    )
    report = migrate(args.paths, options)
    if args.format == "json":
        print_json(summary_json(report))
    else:
        if not args.no_diff:
            sys.stdout.write(unified_diff(report))
        sys.stdout.write(summary_text(report))
    if report.unreadable:
        return EXIT_INPUT
    if args.check and unified_diff(report):
        print("changes pending: migrate --write would write the files above", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK if report.complete else EXIT_FAILED
