"""``python -m transpiler library [--out DIR]``: the helper library exact scripts load."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from transpiler.cli.common import EXIT_FAILED, EXIT_OK
from transpiler.emit.library import LIBRARY_NAME, library_text
from transpiler.migrate.atomic import write_all
from transpiler.migrate.library_file import LibraryStatus, library_file


def register(subparsers: Any) -> None:
    """Add the ``library`` command."""
    parser = subparsers.add_parser(
        "library",
        description=f"Exact scripts load their Go and vMCP helpers from {LIBRARY_NAME}: put it "
        "in a directory on vMCP's library path (or give that directory to `run "
        "--library-path`). Without --out, print it. Exit 0 when printed or written (or "
        "already there), 1 when a different file is in the way.",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help=f"write DIR/{LIBRARY_NAME} (atomically; an identical file is left as it is)",
    )
    parser.add_argument(
        "--force", action="store_true", help=f"replace a different DIR/{LIBRARY_NAME}"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the library, or write it into ``--out``."""
    if args.out is None:
        sys.stdout.write(library_text())
        return EXIT_OK
    target = library_file(args.out)
    if target.blocks(args.force):
        print(
            f"error: {target.path} exists and differs from this version's library: left alone "
            "(--force replaces it)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    write_all(target.writes(args.force, None))
    state = "already up to date" if target.status is LibraryStatus.SAME else "written"
    print(f"{target.path}: {state}")
    return EXIT_OK
