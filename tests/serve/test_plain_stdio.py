"""``serve`` spoken to by hand: a plain JSON-RPC client over stdio (no SDK) on a migrated
configuration whose backend is a plain MCP stdio server (no SDK either)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import DEADLINE, HERE, backends_file, serve_command
from tests.starlark_runtime.conftest import ENGINES
from transpiler.cli import main


class PlainClient:
    """JSON-RPC 2.0 lines on a process's stdin and stdout, every read bounded in time."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._buffer = b""
        self._next = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self._next and "method" not in message:
                return message

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + DEADLINE
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            readable, _, _ = select.select([self.process.stdout], [], [], max(left, 0))
            assert readable, "serve did not answer in time"
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            assert chunk, "serve closed its stdout"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def close(self) -> tuple[int, str]:
        """Close stdin; serve must exit by itself."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout=DEADLINE)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        assert self.process.stderr is not None
        return code, self.process.stderr.read().decode()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_plain_client_calls_a_migrated_tool_whose_step_retries(
    ticket_config: Path, engine: str
) -> None:
    assert main(["migrate", str(ticket_config), "--write", "--examples", "2"]) == 0
    assert "scriptedTools" in ticket_config.read_text()
    log = ticket_config.parent / "calls.log"
    backend = [sys.executable, str(HERE / "plain_backend.py"), str(log), "2"]
    backends = backends_file(ticket_config.parent, "tracker", backend)
    client = PlainClient(serve_command(ticket_config, "--backends", backends, "--engine", engine))
    try:
        opened = client.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "plain", "version": "1"},
            },
        )
        assert opened["result"]["serverInfo"]["name"] == "vmcp-transpile-serve"
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = client.request("tools/list", {})["result"]["tools"]
        assert [tool["name"] for tool in listed] == ["ticket_status"]
        assert listed[0]["inputSchema"]["required"] == ["ticket"]
        assert listed[0]["outputSchema"]["properties"]["status"]["type"] == "string"

        called = client.request(
            "tools/call", {"name": "ticket_status", "arguments": {"ticket": "T-7"}}
        )["result"]
        assert called.get("isError") is not True, called
        assert called["structuredContent"] == {"status": "open:T-7"}
        # Two busy answers, then the answer: the workflow's three attempts, and no more.
        calls = [json.loads(line) for line in log.read_text().splitlines()]
        assert calls == [{"tool": "get_ticket", "arguments": {"id": "T-7"}}] * 3

        unknown = client.request("tools/call", {"name": "no_such_tool", "arguments": {}})
        assert "error" in unknown and "no_such_tool" in unknown["error"]["message"]

        again = client.request(
            "tools/call", {"name": "ticket_status", "arguments": {"ticket": "T-8"}}
        )["result"]
        assert again["structuredContent"] == {"status": "open:T-8"}
        assert len(log.read_text().splitlines()) == 4
    finally:
        code, stderr = client.close()
    assert code == 0, stderr
