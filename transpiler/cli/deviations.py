"""``python -m transpiler deviations``: the named deviation classes a script may declare."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from transpiler.cli.common import EXIT_OK, print_json
from transpiler.deviations import CLASSES, markdown


def register(subparsers: Any) -> None:
    """Add the ``deviations`` command."""
    parser = subparsers.add_parser(
        "deviations",
        help="list the named ways a script may differ from its composite tool",
        description="Print the deviation classes: what vMCP does, what a script does, why.",
    )
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the catalogue."""
    if args.format == "markdown":
        sys.stdout.write(markdown())
    elif args.format == "json":
        print_json(
            [
                {
                    "id": c.id,
                    "title": c.title,
                    "summary": c.summary,
                    "vmcp": c.vmcp,
                    "script": c.script,
                    "why": c.why,
                    "affects": sorted(o.value for o in c.affects),
                    "engines": sorted(c.engines),
                }
                for c in CLASSES.values()
            ]
        )
    else:
        for deviation in CLASSES.values():
            print(deviation.render())
    return EXIT_OK
