"""Calls on MCP 2026-07-28 connections: questions go out in answers, answers come back in
retries, and the run waits for them here (multi-round-trip requests)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from transpiler.serve import rounds
from transpiler.serve.clients import RoundTripClient
from transpiler.serve.rounds import ROUND_TRIP_VERSION, STALE_STATE, Rounds
from transpiler.starlark_runtime.host import Elicited

FORM = types.ClientCapabilities(elicitation=types.ElicitationCapability())


@dataclass
class Session:
    client_capabilities: types.ClientCapabilities | None
    sent: list[tuple[Any, Any]] = field(default_factory=list)

    async def send_log_message(
        self, level: str, data: Any, logger: str | None = None, related_request_id: Any = None
    ) -> None:
        self.sent.append((related_request_id, data))


@dataclass
class Request:
    """What a request's handler is given: each round is a request of its own."""

    request_id: int
    session: Session
    protocol_version: str = ROUND_TRIP_VERSION


def request(number: int, session: Session) -> ServerRequestContext[Any]:
    return cast(ServerRequestContext[Any], Request(number, session))


def text(result: types.CallToolResult | types.InputRequiredResult) -> str:
    assert isinstance(result, types.CallToolResult)
    return " ".join(getattr(item, "text", "") for item in result.content)


def call_params(state: str | None = None, answers: dict[str, Any] | None = None) -> Any:
    responses: types.InputResponses = {
        key: types.ElicitResult.model_validate(value) for key, value in (answers or {}).items()
    }
    return types.CallToolRequestParams(
        name="t", arguments={}, request_state=state, input_responses=responses or None
    )


def served(
    test: Callable[[Rounds, list[str]], Awaitable[None]],
) -> list[str]:
    """Run ``test`` with a table of waiting calls; what serve's log said."""
    notes: list[str] = []

    async def main() -> None:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                await test(Rounds(group, notes.append), notes)
                group.cancel_scope.cancel()

    anyio.run(main)
    return notes


def asking(client: RoundTripClient, *questions: str) -> Callable[[], Awaitable[Any]]:
    """A run that logs, asks ``questions`` one after the other, and returns the answers."""

    async def work() -> Any:
        answers: list[Elicited] = []
        for question in questions:
            await client.log(f"asking {question}")
            answers.append(await client.elicit(question, {"type": "object"}))
        text = ", ".join(f"{a.action}:{a.content}" for a in answers)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return work


def test_each_question_goes_out_in_an_answer_and_comes_back_in_a_retry() -> None:
    session = Session(FORM)

    async def test(table: Rounds, notes: list[str]) -> None:
        client = RoundTripClient(request(1, session), "t", notes.append)
        first = await table.start("call 1 of t", client, asking(client, "one?", "two?"))
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        assert first.input_requests is not None and list(first.input_requests) == ["elicit-1"]
        asked = first.input_requests["elicit-1"]
        assert isinstance(asked, types.ElicitRequest) and asked.params.message == "one?"

        answer = {"elicit-1": {"action": "accept", "content": {"n": 1}}}
        second = await table.resume(request(2, session), call_params(first.request_state, answer))
        assert isinstance(second, types.InputRequiredResult)
        assert second.input_requests is not None and list(second.input_requests) == ["elicit-2"]
        assert second.request_state != first.request_state

        declined = {"elicit-2": {"action": "decline"}}
        last = await table.resume(request(3, session), call_params(second.request_state, declined))
        assert isinstance(last, types.CallToolResult)
        assert text(last) == "accept:{'n': 1.0}, decline:None"

    assert served(test) == []
    # Each line went out on the request open when it was logged.
    assert session.sent == [(1, "asking one?"), (2, "asking two?")]


def test_a_question_left_unanswered_is_asked_again_and_a_state_is_good_once() -> None:
    session = Session(FORM)

    async def test(table: Rounds, notes: list[str]) -> None:
        client = RoundTripClient(request(1, session), "t", notes.append)
        first = await table.start("call 1 of t", client, asking(client, "one?"))
        assert isinstance(first, types.InputRequiredResult)
        again = await table.resume(request(2, session), call_params(first.request_state))
        assert isinstance(again, types.InputRequiredResult)
        assert again.input_requests is not None and list(again.input_requests) == ["elicit-1"]
        with pytest.raises(MCPError, match=STALE_STATE):
            await table.resume(request(3, session), call_params(first.request_state))
        unknown = {"elicit-9": {"action": "accept"}, "elicit-1": {"action": "cancel"}}
        done = await table.resume(request(4, session), call_params(again.request_state, unknown))
        assert isinstance(done, types.CallToolResult)
        assert text(done) == "cancel:None"

    served(test)


def test_a_call_whose_client_does_not_come_back_is_abandoned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rounds, "STATE_SECONDS", 0.2)
    session = Session(FORM)
    cancelled = anyio.Event()

    async def test(table: Rounds, notes: list[str]) -> None:
        client = RoundTripClient(request(1, session), "t", notes.append)
        ask = asking(client, "one?")

        async def work() -> Any:
            try:
                return await ask()
            except anyio.get_cancelled_exc_class():
                cancelled.set()
                raise

        first = await table.start("call 1 of t", client, work)
        assert isinstance(first, types.InputRequiredResult)
        await cancelled.wait()
        with pytest.raises(MCPError, match=STALE_STATE):
            await table.resume(request(2, session), call_params(first.request_state))

    notes = served(test)
    assert notes == [
        "call 1 of t: the client did not come back with its answers within 0.2 s: "
        "its run is cancelled"
    ]
    # The line logged before the question went out on the first request; none was kept.
    assert session.sent == [(1, "asking one?")]


def test_a_client_without_form_elicitation_is_not_asked() -> None:
    session = Session(types.ClientCapabilities())

    async def test(table: Rounds, notes: list[str]) -> None:
        client = RoundTripClient(request(1, session), "t", notes.append)
        only = await table.start("call 1 of t", client, asking(client, "one?"))
        assert isinstance(only, types.CallToolResult)
        assert text(only) == "cancel:None"

    assert served(test) == ["t: elicit: the client was not asked: it declared no form elicitation"]


def test_a_line_logged_between_requests_goes_out_on_the_next() -> None:
    session = Session(FORM)

    async def test(table: Rounds, notes: list[str]) -> None:
        client = RoundTripClient(request(1, session), "t", notes.append)

        async def work() -> Any:
            await client.elicit("one?", {})
            await client.elicit("two?", {})  # nothing logged in between
            return types.CallToolResult(content=[])

        first = await table.start("call 1 of t", client, work)
        assert isinstance(first, types.InputRequiredResult)
        await client.log("while nobody asks")
        assert session.sent == []
        answer = {"elicit-1": {"action": "accept", "content": {}}}
        second = await table.resume(request(2, session), call_params(first.request_state, answer))
        assert isinstance(second, types.InputRequiredResult)
        assert session.sent == [(2, "while nobody asks")]

    served(test)
