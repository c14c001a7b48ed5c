"""Calls on MCP 2026-07-28 connections: multi-round-trip requests (MRTR, SEP-2322).

From 2026-07-28 a server may not send ``elicitation/create`` while it handles a
call; it answers the ``tools/call`` with an ``InputRequiredResult`` carrying
its questions and an opaque ``requestState``, and the client calls again with
the answers and that state. A script's run cannot be put in a token, so it
stays here between rounds: the first request starts the run in the background
and is answered as soon as the run ends or asks what no answer has come for;
each retry hands its answers to the run's client
(:class:`~.clients.RoundTripClient`) and waits the same way. A question a
retry leaves unanswered is asked again (as the specification advises).

The state names the waiting call and is taken once, by the retry that brings
it; the SDK's :class:`RequestStateBoundary` seals it with a key of this
process and binds it to the tool and its arguments, for :data:`STATE_SECONDS`,
the time ``elicit`` waits for an answer. A call whose client has not come back
by then is abandoned: its run is cancelled, and serve's log says so.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least

from transpiler.inert import one_line
from transpiler.profile import ELICITATION_TIMEOUT_NS, SECOND_NS
from transpiler.serve.clients import RoundTripClient

#: The first protocol version whose servers ask their client by multi-round-trip requests.
ROUND_TRIP_VERSION = "2026-07-28"
#: How long a waiting call's state is good for: as long as ``elicit`` waits for an answer.
STATE_SECONDS = ELICITATION_TIMEOUT_NS / SECOND_NS
#: The answer to a state that is not (or no longer) a waiting call's: the SDK's own words for
#: a state it cannot verify.
STALE_STATE = "Invalid or expired requestState"

Answer = types.CallToolResult | types.InputRequiredResult


def asks_in_rounds(ctx: ServerRequestContext[Any]) -> bool:
    """Whether this request's client is asked by multi-round-trip requests."""
    return is_version_at_least(ctx.protocol_version, ROUND_TRIP_VERSION)


def state_boundary(server_name: str) -> RequestStateBoundary:
    """The SDK's sealing of ``requestState``, under a key of this process."""
    security = RequestStateSecurity.ephemeral(ttl=STATE_SECONDS, audience=server_name)
    return RequestStateBoundary(security, default_audience=server_name)


@dataclass(eq=False)
class _Call:
    """A call whose run goes on between its client's requests."""

    label: str
    client: RoundTripClient
    scope: anyio.CancelScope
    result: asyncio.Future[types.CallToolResult]


class Rounds:
    """The calls waiting for their client's next request, by ``requestState``; their runs
    and expiries are tasks of ``group``."""

    def __init__(self, group: TaskGroup, note: Callable[[str], None]) -> None:
        self._group = group
        self._note = note
        self._waiting: dict[str, _Call] = {}

    async def start(
        self,
        label: str,
        client: RoundTripClient,
        work: Callable[[], Awaitable[types.CallToolResult]],
    ) -> Answer:
        """Start the call's ``work`` in the background; the first request's answer."""
        result: asyncio.Future[types.CallToolResult] = asyncio.get_running_loop().create_future()
        call = _Call(label, client, anyio.CancelScope(), result)

        async def run() -> None:
            with call.scope:
                try:
                    result.set_result(await work())
                except Exception as error:  # the request waiting then answers with it
                    result.set_exception(error)
            if not result.done():  # cancelled: the client went away, or serve stops
                result.cancel()
            client.poke()

        self._group.start_soon(run)
        return await self._round(call, client.ctx)

    async def resume(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> Answer:
        """A retry: its answers go to the call its state names, whose next answer it waits for."""
        call = self._waiting.pop(params.request_state or "", None)
        if call is None:
            raise MCPError(code=types.INVALID_PARAMS, message=STALE_STATE)
        call.client.answer(params.input_responses)
        return await self._round(call, ctx)

    async def _round(self, call: _Call, ctx: ServerRequestContext[Any] | None) -> Answer:
        """Wait until the run ends (its result) or asks what no answer has come for (those
        questions, with the state the retry must bring)."""
        client = call.client
        client.ctx = ctx
        try:
            await client.send_lines()
            while True:
                changed = client.watch()
                if call.result.cancelled():
                    raise MCPError(code=types.INTERNAL_ERROR, message="the call was cancelled")
                if call.result.done():
                    answer = call.result.result()
                    await client.send_lines()
                    return answer
                asked = client.unanswered()
                if asked:
                    return self._suspend(call, asked)
                await changed.wait()
        except anyio.get_cancelled_exc_class():
            call.scope.cancel()
            raise
        finally:
            client.ctx = None

    def _suspend(self, call: _Call, asked: dict[str, types.ElicitRequest]) -> Answer:
        token = secrets.token_urlsafe(24)
        self._waiting[token] = call
        self._group.start_soon(self._expire, token, call)
        return types.InputRequiredResult(input_requests=dict(asked), request_state=token)

    async def _expire(self, token: str, call: _Call) -> None:
        """A call whose client has not come back while its state was good is abandoned."""
        await anyio.sleep(STATE_SECONDS)
        if self._waiting.pop(token, None) is call:
            call.scope.cancel()
            self._note(
                f"{one_line(call.label)}: the client did not come back with its answers "
                f"within {STATE_SECONDS:g} s: its run is cancelled"
            )
