"""``serve`` with real parts on stdio and loopback: backends built with the MCP SDK (stdio and
streamable HTTP), the SDK's client calling the served tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.serve.conftest import (
    DEADLINE,
    HERE,
    REPOSITORY,
    backends_file,
    needs_go,
    serve_command,
)
from tests.starlark_runtime.conftest import ENGINES
from transpiler.cli import main

ELICIT_CONFIG = """\
name: gateway
groupRef: platform
compositeTools:
  - name: comment_after_approval
    description: Ask before commenting on a ticket
    parameters:
      type: object
      properties:
        ticket: {type: string}
      required: [ticket]
    steps:
      - id: approval
        type: elicitation
        message: "Comment on {{.params.ticket}}?"
        schema:
          type: object
          properties:
            text: {type: string}
          required: [text]
        onDecline:
          action: abort
        onCancel:
          action: abort
      - id: comment
        tool: tracker.add_comment
        dependsOn: [approval]
        arguments:
          id: "{{.params.ticket}}"
          text: "{{.steps.approval.output.content.text}}"
    output:
      properties:
        comment:
          type: string
          description: The comment written
          value: "{{.steps.comment.output.comment}}"
"""


#: The first MCP version whose servers ask their client by multi-round-trip requests.
ROUND_TRIPS = "2026-07-28"


def sdk_backend(log: Path, *options: str) -> list[str]:
    return [sys.executable, str(HERE / "sdk_backend.py"), str(log), *options]


def configuration(folder: Path, text: str) -> Path:
    """``text`` as the folder's vMCP configuration file."""
    path = folder / "vmcp.yaml"
    path.write_text(text)
    return path


def tracker(folder: Path, *options: str) -> tuple[Path, Path]:
    """The SDK tracker backend (``options`` its behaviour) as BACKENDS.yaml's ``tracker``:
    the log of the calls it gets, and the file."""
    log = folder / "calls.log"
    return log, backends_file(folder, "tracker", sdk_backend(log, *options))


def served(*arguments: str | Path) -> StdioServerParameters:
    """serve over stdio (its log goes to the test's), with the SDK's default environment (the
    project's cache directory where it always is, so the go host is built once)."""
    command = serve_command(*arguments)
    return StdioServerParameters(
        command=command[0],
        args=command[1:],
        cwd=str(REPOSITORY),
        env={"PYTHONUNBUFFERED": "1"},
    )


def run(test: Callable[[], Any]) -> None:
    """Run an async test, bounded in time."""

    async def bounded() -> None:
        with anyio.fail_after(DEADLINE * 2):
            await test()

    anyio.run(bounded)


def calls_of(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize("engine", ENGINES)
def test_the_sdk_client_lists_and_calls_a_tool_whose_step_retries_on_an_sdk_backend(
    ticket_config: Path, tmp_path: Path, engine: str
) -> None:
    """Not yet migrated: the composite tool is served as the readable script, emitted."""
    log, backends = tracker(tmp_path, "--fail", "2")
    arguments = (ticket_config, "--backends", backends, "--engine", engine)

    async def test() -> None:
        async with Client(served(*arguments)) as c:
            listed = (await c.list_tools()).tools
            assert [t.name for t in listed] == ["ticket_status"]
            result = await c.call_tool("ticket_status", {"ticket": "T-1"})
            assert not result.is_error, result
            assert result.structured_content == {"status": "open:T-1"}
            assert len(calls_of(log)) == 3
            bad = await c.call_tool("ticket_status", {"ticket": 5})
            assert bad.is_error and "Input validation error" in _text(bad)
            with pytest.raises(MCPError, match="not found"):
                await c.call_tool("nope", {})
            again = await c.call_tool("ticket_status", {"ticket": "T-2"})
            assert again.structured_content == {"status": "open:T-2"}

    run(test)
    assert calls_of(log)[-1] == {"tool": "get_ticket", "arguments": {"id": "T-2"}}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_backend_that_is_down_fails_the_call_and_the_server_keeps_serving(
    ticket_config: Path, tmp_path: Path, engine: str
) -> None:
    dead = [sys.executable, "-c", "import sys; sys.exit(3)"]
    backends = backends_file(tmp_path, "tracker", dead)

    async def test() -> None:
        arguments = (ticket_config, "--backends", backends, "--engine", engine)
        parameters = served(*arguments)
        async with Client(parameters) as c:
            started = time.monotonic()
            result = await c.call_tool("ticket_status", {"ticket": "T-1"})
            assert result.is_error
            assert "tracker.get_ticket" in _text(result)
            assert time.monotonic() - started < DEADLINE
            unknown = await c.call_tool("ticket_status", {"ticket": "T-2"})
            assert unknown.is_error

    run(test)


PARALLEL_CONFIG = """\
name: gateway
groupRef: platform
scriptedTools:
  - name: three_tickets
    description: Read three tickets at once
    parameters: {type: object}
    script: |
      def run(params):
          found = parallel([
              lambda: call_tool("tracker.get_ticket", {"id": "A"}),
              lambda: call_tool("tracker.get_ticket", {"id": "B"}),
              lambda: call_tool("tracker.get_ticket", {"id": "C"}),
          ])
          log("read %d tickets" % len(found))
          return {"found": [ticket["status"] for ticket in found]}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_parallel_branches_have_their_backend_calls_in_flight_together(
    tmp_path: Path, engine: str
) -> None:
    """A hand-written scripted tool (no composite tool to pair it with) is served too."""
    config = configuration(tmp_path, PARALLEL_CONFIG)
    log, backends = tracker(tmp_path, "--slow", "0.5")
    logged: list[Any] = []

    async def collect(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def test() -> None:
        parameters = served(config, "--backends", backends, "--engine", engine)
        async with Client(parameters, mode="legacy", logging_callback=collect) as c:
            result = await c.call_tool("three_tickets", {})
            assert result.structured_content == {"found": ["open:A", "open:B", "open:C"]}

    run(test)
    assert logged == ["read 3 tickets"]
    times = [json.loads(line) for line in Path(f"{log}.times").read_text().splitlines()]
    assert len(times) == 3
    # Every call started before any ended: the three were in flight together.
    assert max(start for start, _ in times) < min(end for _, end in times), times


HUNGRY_CONFIG = """\
name: gateway
groupRef: platform
scriptedTools:
  - name: hungry
    parameters: {type: object}
    script: |
      def run(params):
          return {"n": len([0] * 2000000000)}
  - name: ticket
    parameters: {type: object}
    script: |
      def run(params):
          return call_tool("tracker.get_ticket", {"id": "T-5"})
"""


def test_a_script_past_the_memory_cap_on_rust_fails_its_call_and_the_next_call_works(
    tmp_path: Path,
) -> None:
    """starlark-rust aborts its process when an allocation fails: the sandbox takes it."""
    config = configuration(tmp_path, HUNGRY_CONFIG)
    log, backends = tracker(tmp_path)

    async def test() -> None:
        arguments = (config, "--backends", backends, "--engine", "rust")
        async with Client(served(*arguments)) as c:
            hungry = await c.call_tool("hungry", {})
            assert hungry.is_error and "of memory (the host's limit)" in _text(hungry), hungry
            ticket = await c.call_tool("ticket", {})
            assert ticket.structured_content == {"status": "open:T-5"}, ticket

    run(test)
    assert calls_of(log) == [{"tool": "get_ticket", "arguments": {"id": "T-5"}}]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_backend_slower_than_the_call_timeout_fails_that_call(
    ticket_config: Path, tmp_path: Path, engine: str
) -> None:
    _, backends = tracker(tmp_path, "--slow", "3")
    timeout = ("--call-timeout", "300ms")
    arguments = (ticket_config, "--backends", backends, *timeout, "--engine", engine)

    async def test() -> None:
        async with Client(served(*arguments)) as c:
            result = await c.call_tool("ticket_status", {"ticket": "T-1"})
            assert result.is_error and "context deadline exceeded" in _text(result)

    run(test)


@needs_go
def test_an_http_backend_and_an_http_served_tool_with_a_bearer_token(
    ticket_config: Path, tmp_path: Path
) -> None:
    log, port_file = tmp_path / "calls.log", tmp_path / "port"
    command = sdk_backend(log, "--http", str(port_file))
    backend = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    serve = None
    try:
        port = _wait_for(lambda: port_file.read_text() if port_file.exists() else None)
        backends = tmp_path / "backends.yaml"
        backends.write_text(
            "backends:\n  tracker:\n    url: http://127.0.0.1:"
            f"{port}/mcp\n    headers: {{Authorization: 'Bearer ${{TRACKER_TOKEN}}'}}\n"
        )
        env = {**os.environ, "TRACKER_TOKEN": "backend-secret", "SERVE_TOKEN": "s3cret"}
        errors = tmp_path / "serve.err"
        serve = subprocess.Popen(
            serve_command(
                ticket_config,
                "--backends",
                backends,
                "--transport",
                "http",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--token-env",
                "SERVE_TOKEN",
            ),
            stdin=subprocess.DEVNULL,
            stderr=errors.open("w"),
            env=env,
            cwd=REPOSITORY,
        )
        url = _wait_for(lambda: _listening(errors))
        refused = httpx2.post(url, json={}, timeout=DEADLINE)
        assert refused.status_code == 401

        async def test() -> None:
            http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=DEADLINE)
            from mcp.client.streamable_http import streamable_http_client

            async with http, Client(streamable_http_client(url, http_client=http)) as c:
                result = await c.call_tool("ticket_status", {"ticket": "T-9"})
                assert result.structured_content == {"status": "open:T-9"}

        run(test)
        assert "backend-secret" not in errors.read_text() and "s3cret" not in errors.read_text()
    finally:
        for process in (serve, backend):
            if process is not None:
                process.terminate()
                process.wait(timeout=DEADLINE)
    assert calls_of(log) == [{"tool": "get_ticket", "arguments": {"id": "T-9"}}]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", ["legacy", ROUND_TRIPS])
def test_an_elicitation_goes_to_the_client_and_its_answer_back(
    tmp_path: Path, engine: str, mode: str
) -> None:
    """Asked on the back-channel (handshake versions) or by multi-round-trip requests."""
    config = configuration(tmp_path, ELICIT_CONFIG)
    log, backends = tracker(tmp_path)
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"text": "looks good"})

    async def test() -> None:
        client = Client(
            served(config, "--backends", backends, "--engine", engine),
            mode=mode,
            elicitation_callback=answer,
        )
        async with client as c:
            assert (c.session.protocol_version == ROUND_TRIPS) == (mode == ROUND_TRIPS)
            result = await c.call_tool("comment_after_approval", {"ticket": "T-3"})
            assert result.structured_content == {"comment": "looks good"}, result

    run(test)
    assert asked == ["Comment on T-3?"]
    assert calls_of(log) == [
        {"tool": "add_comment", "arguments": {"id": "T-3", "text": "looks good"}}
    ]


TWO_QUESTIONS_CONFIG = """\
name: gateway
groupRef: platform
scriptedTools:
  - name: two_reviewers
    parameters: {type: object}
    script: |
      def run(params):
          log("asking")
          form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
          answers = parallel([
              lambda: elicit("Alice, approve?", form),
              lambda: elicit("Bob, approve?", form),
          ])
          log("answered")
          return {"actions": [a.action for a in answers], "ok": [a.content["ok"] for a in answers]}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_two_questions_at_once_go_out_in_one_round_and_log_lines_ride_the_requests(
    tmp_path: Path, engine: str
) -> None:
    config = configuration(tmp_path, TWO_QUESTIONS_CONFIG)
    asked: list[str] = []
    logged: list[Any] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": params.message[0] == "A"})

    async def collect(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def test() -> None:
        client = Client(
            served(config, "--engine", engine),
            mode=ROUND_TRIPS,
            elicitation_callback=answer,
            logging_callback=collect,
            log_level="info",
        )
        async with client as c:
            result = await c.call_tool("two_reviewers", {})
            assert result.structured_content == {
                "actions": ["accept", "accept"],
                "ok": [True, False],
            }, result

    run(test)
    assert sorted(asked) == ["Alice, approve?", "Bob, approve?"]
    assert logged == ["asking", "answered"]


@needs_go
def test_shadow_catches_a_script_edited_to_differ_and_record_feeds_check(
    ticket_config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", str(ticket_config), "--write", "--examples", "2"]) == 0
    capsys.readouterr()
    log, backends = tracker(tmp_path, "--fail", "1")
    recorded, shadow_log = tmp_path / "recorded", tmp_path / "shadow.json"
    options = ("--backends", backends, "--shadow", "--shadow-log", shadow_log)

    answers: list[types.CallToolResult] = []

    async def call(*more: str | Path) -> None:
        async with Client(served(ticket_config, *options, *more)) as c:
            answers.append(await c.call_tool("ticket_status", {"ticket": "T-4"}))

    run(lambda: call("--record", recorded))
    assert answers[0].structured_content == {"status": "open:T-4"}
    judged = json.loads(shadow_log.read_text())
    assert judged["summary"] == {"ticket_status": {"equivalent": 1}}, judged
    assert [p.suffix for p in recorded.iterdir()] == [".json"]

    def gate(*more: str | Path) -> int:
        capsys.readouterr()
        quick = ("--engine", "go", "--examples", "0", "--paths", "1")
        return main(["check", str(ticket_config), *quick, *map(str, more)])

    code = gate("--scenarios", recorded)
    assert code == 0, capsys.readouterr().out

    # The script edited to ask for one attempt fewer: the shadow run sees the difference.
    text = ticket_config.read_text()
    assert "max_attempts=4" in text
    ticket_config.write_text(text.replace("max_attempts=4", "max_attempts=1"))
    log.unlink()
    run(lambda: call())
    assert answers[1].is_error
    judged = json.loads(shadow_log.read_text())
    assert judged["summary"] == {"ticket_status": {"differs": 1}}, judged
    example = judged["calls"][0]["counterexample"]
    # The workflow retries where the edited script gave up: calls only the workflow made.
    # (Its failure text differs too, which the script's declared error-text allows.)
    assert [d["field"] for d in example["differences"]] == ["calls"]
    # The recorded call replays the same difference in the gate, which the generated
    # scenarios alone (here the all-success one) do not show.
    assert gate() == 0
    assert gate("--scenarios", recorded) == 1


def _text(result: types.CallToolResult) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)


def _wait_for(found: Callable[[], str | None]) -> str:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def _listening(errors: Path) -> str | None:
    for line in errors.read_text().splitlines():
        if "listening on " in line:
            return line.split("listening on ", 1)[1].strip()
    return None
