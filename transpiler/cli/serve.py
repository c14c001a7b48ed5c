"""``python -m transpiler serve CONFIG``: the migrated tools as an MCP server (docs/serve.md)."""

from __future__ import annotations

import argparse
from typing import Any

from transpiler.cli.common import (
    EXIT_INPUT,
    add_library_path_option,
    add_target_option,
    chosen_target,
    non_empty,
    policy_of,
)


def register(subparsers: Any) -> None:
    """Add the ``serve`` command (the MCP SDK is imported only when it runs)."""
    parser = subparsers.add_parser(
        "serve",
        description="Serve each scripted tool of CONFIG (composite tools not yet migrated as "
        "the readable script the emitter writes) as an MCP server on the MCP SDK: each "
        "tools/call runs its script on go.starlark.net (or starlark-rust, --engine rust), its "
        "call_tool reaching the backend "
        "MCP servers BACKENDS.yaml names. Stops when stdin closes (stdio) or when interrupted "
        "(HTTP). See docs/serve.md.",
    )
    parser.add_argument("paths", nargs="+", metavar="CONFIG", type=non_empty)
    parser.add_argument(
        "--backends", metavar="BACKENDS.yaml", help="the MCP server of each workload scripts call"
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument(
        "--host",
        help="with --transport http: the address to listen on (default 127.0.0.1); any other "
        "needs --token-env",
    )
    parser.add_argument("--port", type=int, default=8080, help="with --transport http (0: any)")
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help="the environment variable holding the bearer token every HTTP request must carry",
    )
    parser.add_argument(
        "--engine",
        choices=("go", "rust"),
        default="go",
        help="the interpreter: go.starlark.net, which vMCP embeds (default), or starlark-rust "
        "in its memory-capped sandbox",
    )
    parser.add_argument(
        "--call-timeout",
        metavar="DURATION",
        help="each backend call's time limit (Go duration, at most THV-0051's 5m; default 5m)",
    )
    parser.add_argument(
        "--shadow",
        action="store_true",
        help="also run the composite workflow each script replaced on what the script's calls "
        "received, and log every divergence",
    )
    parser.add_argument("--shadow-log", metavar="FILE", help="the JSON log of --shadow")
    parser.add_argument(
        "--record", metavar="DIR", help="write each call's exchange as a scenario file in DIR"
    )
    add_library_path_option(parser)
    add_target_option(parser, "default: the policy's target, else thv-0051")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from transpiler.golang.duration import parse_duration
    from transpiler.profile import CALL_TIMEOUT_NS
    from transpiler.serve.main import Request, serve

    call_timeout = CALL_TIMEOUT_NS
    if args.call_timeout is not None:
        try:
            call_timeout = parse_duration(args.call_timeout)
        except ValueError as error:
            print(f"error: --call-timeout: {error}")
            return EXIT_INPUT
        if not 0 < call_timeout <= CALL_TIMEOUT_NS:
            print("error: --call-timeout is more than 0 and at most 5m (THV-0051's limit)")
            return EXIT_INPUT
    return serve(
        Request(
            tuple(args.paths),
            args.backends,
            args.transport,
            args.host,
            args.port,
            args.token_env,
            args.engine,
            args.shadow,
            args.shadow_log,
            args.record,
            call_timeout,
            tuple(args.library_path),
            chosen_target(args.target, policy_of(args.paths)),
        )
    )
