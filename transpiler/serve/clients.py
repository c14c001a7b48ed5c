"""The connected client as one call's run reaches it (a :class:`~.live.ClientLink`).

Up to MCP 2025-11-25 serve asks the client while it handles the call: an
``elicitation/create`` request on the request's back-channel
(:class:`DirectClient`). From 2026-07-28 a server may not send requests of its
own; it answers the call with the questions, and the client calls again with
the answers (multi-round-trip requests, :mod:`.rounds`): a
:class:`RoundTripClient` holds each question until a retry brings its answer.
Either way ``log()`` lines are MCP log messages (``notifications/message``,
level ``info``, logger the tool's name); from 2026-07-28 they may only ride a
request's answer stream, so a round-trip client keeps a line for the next
request when none is open.

A client that cannot be asked (no back-channel, no form elicitation declared,
a schema it refuses) answers ``cancel``, and serve's log says why.
"""

from __future__ import annotations

import asyncio
import itertools
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, NoBackChannelError

from transpiler.golang.values import json_numbers_as_floats
from transpiler.inert import one_line
from transpiler.starlark_runtime.host import Elicited

#: What a script's ``log()`` lines are sent as.
LOG_LEVEL: types.LoggingLevel = "info"
#: The answer of a client that was not asked.
NOT_ASKED = Elicited("cancel", "cancel")

Context = ServerRequestContext[Any]


class DirectClient:
    """The client of one call on a handshake-era connection: asked on the back-channel."""

    def __init__(self, ctx: Context, tool: str, note: Callable[[str], None]) -> None:
        self._ctx = ctx
        self._tool = tool
        self._note = note

    async def elicit(self, message: str, schema: Any) -> Elicited:
        """The client's answer to an ``elicitation/create`` request."""
        try:
            result = await self._ctx.session.elicit_form(
                message, schema if isinstance(schema, dict) else {}, self._ctx.request_id
            )
        except (NoBackChannelError, MCPError) as error:
            self._note(f"{one_line(self._tool)}: elicit: the client was not asked: "
                       f"{one_line(str(error))}")
            return NOT_ASKED
        return _elicited(result)

    async def log(self, message: str) -> None:
        """One ``log()`` line as an MCP log message."""
        await send_log_line(self._ctx, self._tool, message)


class RoundTripClient:
    """The client of one call on a 2026-07-28 connection: each ``elicit`` waits for the
    retry that brings its answer; :attr:`ctx` is the request open now (None between)."""

    def __init__(self, ctx: Context, tool: str, note: Callable[[str], None]) -> None:
        self.ctx: Context | None = ctx
        self._tool = tool
        self._note = note
        self._keys = itertools.count(1)
        self._questions: dict[str, tuple[types.ElicitRequest, asyncio.Future[Elicited]]] = {}
        self._lines: list[str] = []
        self._watch: anyio.Event | None = None
        capabilities = ctx.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        # As the SDK reads it: a bare ``elicitation: {}`` is form support, url-only is not.
        self._can_elicit = elicitation is not None and (
            elicitation.form is not None or elicitation.url is None
        )

    async def elicit(self, message: str, schema: Any) -> Elicited:
        """The answer a retry brings."""
        if not self._can_elicit:
            self._note(f"{one_line(self._tool)}: elicit: the client was not asked: it declared "
                       "no form elicitation")
            return NOT_ASKED
        key = f"elicit-{next(self._keys)}"
        params = types.ElicitRequestFormParams(
            message=message, requested_schema=schema if isinstance(schema, dict) else {}
        )
        answer: asyncio.Future[Elicited] = asyncio.get_running_loop().create_future()
        self._questions[key] = (types.ElicitRequest(params=params), answer)
        self.poke()
        try:
            return await answer
        finally:  # answered, or no longer waited for (the run's context ended)
            self._questions.pop(key, None)

    def unanswered(self) -> dict[str, types.ElicitRequest]:
        """The questions waiting for an answer, by the key each went out under."""
        return {key: asked for key, (asked, answer) in self._questions.items() if not answer.done()}

    def answer(self, responses: types.InputResponses | None) -> None:
        """Hand each answer to the question of its key (any other is ignored)."""
        for key, response in (responses or {}).items():
            question = self._questions.get(key)
            if not isinstance(response, types.ElicitResult) or question is None:
                continue
            if not question[1].done():
                question[1].set_result(_elicited(response))

    async def log(self, message: str) -> None:
        """Send the line on the open request, else keep it for the next one."""
        self._lines.append(message)
        await self.send_lines()

    async def send_lines(self) -> None:
        """Send the lines kept so far, if a request is open."""
        while self.ctx is not None and self._lines:
            await send_log_line(self.ctx, self._tool, self._lines.pop(0))

    def watch(self) -> anyio.Event:
        """An event set at the next change (a question asked, the run ended)."""
        self._watch = anyio.Event()
        return self._watch

    def poke(self) -> None:
        """Something changed: wake whoever watches."""
        if self._watch is not None:
            self._watch.set()


async def send_log_line(ctx: Context, tool: str, message: str) -> None:
    """One ``log()`` line as an MCP log message on the request of ``ctx`` (from 2026-07-28
    only if that request opted in, as the SDK enforces)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await ctx.session.send_log_message(
            LOG_LEVEL, message, logger=tool, related_request_id=ctx.request_id
        )


def _elicited(result: types.ElicitResult) -> Elicited:
    content = json_numbers_as_floats(result.content) if result.action == "accept" else None
    return Elicited(result.action, result.action, content)
