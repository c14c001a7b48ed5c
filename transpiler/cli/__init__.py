"""Command-line interface: ``python -m transpiler <command>``.

Each command lives in the module of its name in this package and exposes
``register(subparsers)``. :data:`COMMANDS` lists them with the line ``--help``
shows, so that listing imports none of them: a command's module (and what it
imports) is loaded only when that command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Final

from transpiler.cli.common import EXIT_INPUT, EXIT_INTERNAL, CommandHandler
from transpiler.diagnostics import TranspilerError

#: Every command, by name (its module in this package), with the line ``--help`` lists.
COMMANDS: Final = {
    "check": "prove each scripted tool behaves like the composite workflow it replaces",
    "deviations": "list the named ways a script may differ from its composite tool",
    "emit": "print the Starlark script of each composite tool",
    "hook": "the pre-commit hook: check the staged configurations and scripts",
    "library": "print the helpers exact scripts load, or write them to a directory",
    "migrate": "rewrite configs: composite tools become Starlark scripted tools (dry run by "
    "default)",
    "mutate": "measure the gate: how many mutants of each tool's script check catches",
    "plan": "show each composite tool's execution levels and dataflow",
    "run": "run a tool against a scenario and print the trace",
    "serve": "serve each scripted tool of a configuration as an MCP server, on real backends",
    "template": "Go text/template tools",
    "validate": "check composite and scripted tools exactly as vMCP does",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser: every command listed, ``command``'s own parser registered (its
    module imported); the others are names and help lines only."""
    parser = argparse.ArgumentParser(
        prog="python -m transpiler",
        description=(
            "Migrate ToolHive vMCP composite tools to Starlark scripted tools "
            "and prove the scripts behave exactly like the workflows."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name, summary in COMMANDS.items():
        if name == command:
            importlib.import_module(f"{__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; errors become messages, not tracebacks."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    chosen = arguments[0] if arguments and arguments[0] in COMMANDS else None
    args = build_parser(chosen).parse_args(arguments)
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
