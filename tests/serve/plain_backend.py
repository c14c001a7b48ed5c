"""A backend MCP server written without the SDK: JSON-RPC 2.0 lines on stdio, by hand.

``python plain_backend.py LOG FAILURES``: a ticket tracker with one tool, ``get_ticket``,
whose first FAILURES calls answer ``isError``; each tools/call is appended to LOG as one
JSON line before it is answered. Any other method is answered ``-32601``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TOOL = {
    "name": "get_ticket",
    "description": "A ticket's status",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
}


def answer(request: dict[str, Any], failures: list[int], log: Path) -> dict[str, Any]:
    method = request.get("method")
    if method == "initialize":
        version = request["params"]["protocolVersion"]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "plain-tracker", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        params = request["params"]
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": params["name"], "arguments": params["arguments"]}) + "\n")
        if failures[0] > 0:
            failures[0] -= 1
            return {"content": [{"type": "text", "text": "tracker busy"}], "isError": True}
        ticket = params["arguments"]["id"]
        return {
            "content": [{"type": "text", "text": json.dumps({"status": f"open:{ticket}"})}],
            "structuredContent": {"status": f"open:{ticket}"},
        }
    raise LookupError(str(method))


def main() -> None:
    log, failures = Path(sys.argv[1]), [int(sys.argv[2])]
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        try:
            result = answer(request, failures, log)
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        except LookupError as error:
            reply = {
                "jsonrpc": "2.0",
                "id": request["id"],
                "error": {"code": -32601, "message": f"method not found: {error}"},
            }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
