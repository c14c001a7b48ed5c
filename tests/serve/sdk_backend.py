"""A backend MCP server built with the SDK, for ``serve``'s tests: a ticket tracker.

``python sdk_backend.py LOG [--fail N] [--slow SECONDS] [--http PORTFILE]``: each tools/call
is appended to LOG as one JSON line (tool, arguments) before it is answered; the first N
calls of ``get_ticket`` fail (``isError``); ``--slow`` makes ``get_ticket`` take that long
(each slow call's start and end times go to LOG.times, one JSON pair a line);
``--http`` serves streamable HTTP on a loopback port written to PORTFILE, else stdio.
"""

from __future__ import annotations

import argparse
import json
import socket
import time
from pathlib import Path
from typing import Any

from mcp.server import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--fail", type=int, default=0)
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--http")
    args = parser.parse_args()
    log = Path(args.log)
    failures = [args.fail]

    def record(tool: str, arguments: dict[str, Any]) -> None:
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True) + "\n")

    app = MCPServer("tracker")

    @app.tool()
    def get_ticket(id: str) -> dict[str, Any]:
        """A ticket's status."""
        record("get_ticket", {"id": id})
        if args.slow:
            started = time.monotonic()
            time.sleep(args.slow)
            with Path(f"{log}.times").open("a", encoding="utf-8") as out:
                out.write(json.dumps([started, time.monotonic()]) + "\n")
        if failures[0] > 0:
            failures[0] -= 1
            raise ValueError(f"tracker busy, try again ({id})")
        return {"status": f"open:{id}"}

    @app.tool()
    def add_comment(id: str, text: str) -> dict[str, Any]:
        """Comment on a ticket."""
        record("add_comment", {"id": id, "text": text})
        return {"ok": True, "comment": text}

    if args.http is None:
        app.run("stdio")
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    Path(args.http).write_text(str(port))
    app.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
