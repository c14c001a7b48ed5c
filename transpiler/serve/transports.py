"""Running the server: on stdio until stdin closes, or on streamable HTTP until stopped.

Over HTTP serve binds the loopback address unless a host is given; then every
request must carry ``Authorization: Bearer <token>``, the token read from the
environment variable ``--token-env`` names (compared in constant time; a
request without it is answered 401 and never reaches the MCP layer).
"""

from __future__ import annotations

import hmac
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import anyio
import uvicorn
from mcp.server.stdio import stdio_server

from transpiler.serve.server import ToolServer

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class HttpOptions:
    """Where to listen and the bearer token every request must carry (None: loopback only)."""

    host: str = LOOPBACK
    port: int = 8080
    token: str | None = None


async def serve_stdio(tools: ToolServer) -> None:
    """Serve one client on stdin/stdout until stdin closes."""
    async with stdio_server() as (read, write):
        await tools.server.run(read, write, tools.server.create_initialization_options())


async def serve_http(tools: ToolServer, options: HttpOptions, ready: Callable[[str], None]) -> None:
    """Serve streamable HTTP at ``/mcp`` until interrupted; ``ready`` is told the URL once
    the socket listens (the port the system chose, for port 0)."""
    app: ASGIApp = tools.server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=options.host
    )
    if options.token is not None:
        app = _bearer(app, options.token)
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.05)
        (host, port) = server.servers[0].sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        ready(f"http://{shown}:{port}{MCP_PATH}")


def _bearer(app: ASGIApp, token: str) -> ASGIApp:
    """``app`` behind a bearer-token check."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if not hmac.compare_digest(given, expected):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"www-authenticate", b"Bearer"), (b"content-type", b"text/plain")],
                }
            )
            await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
            return
        await app(scope, receive, send)

    return guarded


def note(text: str) -> None:
    """One line on serve's log (stderr): callers pass text already made inert."""
    print(f"serve: {text}", file=sys.stderr, flush=True)
