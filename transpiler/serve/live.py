"""The runtime's backends made real: each call goes to its backend's MCP session, each
``elicit`` to the connected client, each ``log()`` line to the client as an MCP log message.

A run's kernel runs on its own thread with a real clock; the sessions live on
the server's event loop. A call is started on the loop (through an anyio
portal) and the script thread awaits it while the kernel runs the others, so
the calls of ``parallel`` branches are in flight together. A call cut off by
its deadline (THV-0051's 5 minutes, or ``--call-timeout``) or by the end of
the run is cancelled on the loop.

A tool name is ``<workload>.<tool>``, split at the first dot as vMCP's router
splits it; a workload BACKENDS.yaml does not name has no such tool (``tool not
found``), and a tool its backend does not have is the backend's to answer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any, Protocol

from anyio.from_thread import BlockingPortal

from transpiler.composite.routing import target_of_reference
from transpiler.serve.exchange import DEADLINE_EXCEEDED, AnsweredCall, Exchange
from transpiler.serve.sessions import BackendPool, BackendUnavailable
from transpiler.sim.backends import BackendAnswer
from transpiler.sim.kernel import Await, Context, ContextError
from transpiler.starlark_runtime.host import Elicited, HostOp


class ClientLink(Protocol):
    """The connected client, as one call reaches it."""

    async def elicit(self, message: str, schema: Any) -> Elicited:
        """Ask the client; its answer (a client that cannot be asked: ``cancel``)."""

    async def log(self, message: str) -> None:
        """Send one ``log()`` line as an MCP log message."""


class LiveBackends:
    """:class:`~transpiler.starlark_runtime.host.ScriptBackends` over real sessions."""

    def __init__(
        self, portal: BlockingPortal, pool: BackendPool, client: ClientLink, exchange: Exchange
    ) -> None:
        self._portal = portal
        self._pool = pool
        self._client = client
        self.exchange = exchange
        self.sent: list[Future[Any]] = []

    @property
    def incomplete(self) -> bool:
        """Never: every call is answered, by its backend or with the error it met."""
        return False

    def has_tool(self, name: str) -> bool:
        """Whether the tool's workload is one BACKENDS.yaml names."""
        return self._pool.knows(target_of_reference(name).workload_id)

    def call(self, name: str, args: Any, context: Context) -> HostOp:
        """The backend's answer, or the error that kept it from answering."""
        target = target_of_reference(name)
        arguments = args if isinstance(args, dict) else {}
        future = self._start(self._call, target.workload_id, target.capability, arguments)
        started = time.monotonic_ns()
        try:
            answer: BackendAnswer = yield Await(future, context)
        except ContextError as error:
            future.cancel()
            waited = time.monotonic_ns() - started if error.deadline else 0
            text = DEADLINE_EXCEEDED if error.deadline else str(error)
            self.exchange.calls.append(AnsweredCall(name, args, BackendAnswer(None, text, waited)))
            raise
        self.exchange.calls.append(AnsweredCall(name, args, answer))
        return answer

    async def _call(self, workload: str, tool: str, arguments: dict[str, Any]) -> BackendAnswer:
        try:
            result = await self._pool.call(workload, tool, arguments)
        except BackendUnavailable as error:
            return BackendAnswer(None, str(error), 0)
        return BackendAnswer(result, None, 0)

    def elicit(self, message: str, schema: Any, context: Context) -> HostOp:
        """The client's answer; ``timeout`` when ``context`` ends first."""
        future = self._start(self._client.elicit, message, schema)
        try:
            elicited: Elicited = yield Await(future, context)
        except ContextError:
            future.cancel()
            elicited = Elicited("timeout", "cancel")
        self.exchange.elicitations.append(elicited)
        return elicited

    def log(self, message: str) -> None:
        """Send the line to the client (the call's result waits until every line is sent)."""
        self.sent.append(self._start(self._client.log, message))

    def _start(self, work: Callable[..., Awaitable[Any]], *args: Any) -> Future[Any]:
        return self._portal.start_task_soon(work, *args)
