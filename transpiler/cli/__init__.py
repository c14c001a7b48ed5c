"""Command-line interface: ``python -m transpiler <command>``.

Each command lives in its own module in this package and exposes
``register(subparsers)``; commands are discovered, so adding one never edits
this file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from transpiler.cli.common import EXIT_INPUT, EXIT_INTERNAL, CommandHandler
from transpiler.diagnostics import TranspilerError


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every discovered subcommand."""
    parser = argparse.ArgumentParser(
        prog="python -m transpiler",
        description=(
            "Migrate ToolHive vMCP composite tools to Starlark scripted tools "
            "and prove the scripts behave exactly like the workflows."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name == "common":
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; errors become messages, not tracebacks."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: CommandHandler = args.handler
    try:
        return handler(args)
    except TranspilerError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as command-line tools do.
        sys.stderr.close()
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except RecursionError:
        print("error: input nested too deeply to process", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        print("error: input too large to process", file=sys.stderr)
        return EXIT_INPUT
    except Exception as error:  # last line of defence: never show a traceback
        print(
            f"internal error: {type(error).__name__}: {error}\n"
            "This is a bug in the transpiler; please report it with the input that caused it.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
