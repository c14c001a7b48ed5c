"""``python -m transpiler deviations``: the named deviation classes a script may declare."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from transpiler.cli.common import EXIT_OK, print_json
from transpiler.deviations import README_BEGIN, README_END, Deviation, markdown, readme_list
from transpiler.diagnostics import InputError


def register(subparsers: Any) -> None:
    """Add the ``deviations`` command."""
    parser = subparsers.add_parser(
        "deviations",
        description="Print the deviation classes: what vMCP does, what a script does, why.",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown", "readme"),
        default="text",
        help="readme: the short list of the classes, between its markers (docs/reference.md "
        "holds it)",
    )
    parser.add_argument(
        "--write",
        metavar="FILE",
        type=Path,
        help="with --format readme: put the list in FILE in place of its block between the "
        "markers, instead of printing it",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the catalogue (or write the short list into ``--write``)."""
    if args.write is not None:
        if args.format != "readme":
            raise InputError("--write takes --format readme")
        _replace_block(args.write, readme_list())
    elif args.format == "markdown":
        sys.stdout.write(markdown())
    elif args.format == "readme":
        sys.stdout.write(readme_list())
    elif args.format == "json":
        print_json(
            [
                {
                    "id": deviation.value,
                    "title": deviation.about.title,
                    "summary": deviation.about.summary,
                    "vmcp": deviation.about.vmcp,
                    "script": deviation.about.script,
                    "why": deviation.about.why,
                    "affects": sorted(o.value for o in deviation.about.affects),
                    "engines": sorted(deviation.about.engines),
                }
                for deviation in Deviation
            ]
        )
    else:
        for deviation in Deviation:
            print(deviation.render())
    return EXIT_OK


def _replace_block(path: Path, block: str) -> None:
    """Put ``block`` in place of ``path``'s lines from :data:`README_BEGIN` to
    :data:`README_END`."""
    try:
        current = path.read_text()
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None
    start, end = current.find(README_BEGIN), current.find(README_END)
    if start < 0 or end < start:
        raise InputError(f"{path}: no block from {README_BEGIN} to {README_END} to replace")
    after = current[end + len(README_END) :].removeprefix("\n")
    path.write_text(current[:start] + block + after)
