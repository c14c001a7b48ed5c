"""Real backends for a run in the starlark-rust sandbox: its operations forwarded to the parent.

The sandbox child holds the kernel, the engine and the run's clock; the
backends that reach the world (``serve``'s MCP sessions and client) live in
the parent. :class:`ForwardedBackends` is the child's
:class:`~transpiler.starlark_runtime.host.ScriptBackends`: each ``call`` and
``elicit`` is sent to the parent, which runs the real backends' own operation
(:class:`BackendsRelay`) and sends back how it settled; ``log`` lines and
``has_tool`` questions go the same way. Time stays the child's: the run's
kernel waits on a real clock that also reads the pipe (:class:`PipeClock`),
and when an operation's context ends first (its deadline, the run
cancelled), the child says so and the parent throws that context error into
the real operation, which settles as it would in-process. The child never
waits on the parent except for an answer the parent gives at once
(``has_tool``, the settling of a cancelled operation).

Messages, child to parent: ``("call" | "elicit", number, *arguments)``,
``("cancel", number, deadline)``, ``("log", line)``, ``("has_tool", name)``.
Parent to child: ``("settled", number, outcome)``, ``("has_tool", bool)``,
``("stop",)`` (the run is cancelled). An outcome is ``("value", value)``,
``("context", deadline)`` (the operation's context error) or ``("failure",
text)`` (the real backends failed: an engine error).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from transpiler.sim.clock import RealClock
from transpiler.sim.kernel import Await, Context, ContextError, Delivery, Kernel, outcome_of
from transpiler.starlark_runtime.host import HostOp, ScriptBackends
from transpiler.starlark_runtime.pipe import Inbox
from transpiler.starlark_runtime.run import EngineError

Outcome = tuple[str, Any]
Send = Callable[[Any], None]


class ForwardedBackends:
    """The child's backends: every operation answered by the parent's real ones."""

    def __init__(self, send: Send, inbox: Inbox) -> None:
        self._send = send
        self._inbox = inbox
        self._waiting: dict[int, Future[Outcome]] = {}
        self._numbers = itertools.count()
        self.on_stop: Callable[[], None] = lambda: None

    @property
    def incomplete(self) -> bool:
        """Never here: the parent's backends say (it reads theirs into the trace)."""
        return False

    def has_tool(self, name: str) -> bool:
        """The parent's answer, waited for (it answers at once)."""
        self._send(("has_tool", name))
        while True:
            message = self._inbox.receive(None)
            if message[0] == "has_tool":
                return bool(message[1])
            self.dispatch(message)

    def call(self, name: str, args: Any, context: Context) -> HostOp:
        """The parent's backend call."""
        return self._forward("call", (name, args), context)

    def elicit(self, message: str, schema: Any, context: Context) -> HostOp:
        """The parent's elicitation."""
        return self._forward("elicit", (message, schema), context)

    def log(self, message: str) -> None:
        """Hand the line to the parent."""
        self._send(("log", message))

    def _forward(self, kind: str, arguments: tuple[Any, ...], context: Context) -> HostOp:
        number = next(self._numbers)
        future: Future[Outcome] = Future()
        self._waiting[number] = future
        self._send((kind, number, *arguments))
        try:
            outcome = yield Await(future, context)
        except ContextError as error:
            # The parent's operation settles as the context error makes it (an elicitation
            # answers ``cancel``), or as it already had, if its answer crossed this message.
            self._send(("cancel", number, error.deadline))
            outcome = yield Await(future)
        how, value = outcome
        if how == "context":
            raise ContextError(deadline=value)
        if how == "failure":
            raise EngineError(f"the backends failed: {value}")
        return value

    def dispatch(self, message: Any) -> None:
        """Act on one message from the parent (on the run's thread)."""
        if message[0] == "settled":
            _, number, outcome = message
            self._waiting.pop(number).set_result(outcome)
        elif message[0] == "stop":
            self.on_stop()


class PipeClock(RealClock):
    """A real clock whose waits also take the parent's messages."""

    def __init__(self, inbox: Inbox, dispatch: Callable[[Any], None]) -> None:
        super().__init__()
        self._inbox = inbox
        self._dispatch = dispatch

    def wait(self, until_ns: int | None) -> None:
        """Until instant ``until_ns`` (None: for ever) or until something happened: a
        message from the parent, or an action posted meanwhile."""
        if self.run_posted():
            return
        seconds = None if until_ns is None else max(until_ns - self.now(), 0) / 1e9
        message = self._inbox.receive(seconds)
        if message is not None:
            self._dispatch(message)
        self.run_posted()


class BackendsRelay:
    """The parent's end: runs each operation the child forwards on the real backends.

    Only the thread that talks to the child calls :meth:`handle`,
    :meth:`arrivals` and :meth:`outgoing`; any thread may call :meth:`stop`,
    and the real operations' futures finish on whichever thread does their work:
    both only queue what happened and wake the talking thread (:attr:`wake_fd`).
    """

    def __init__(self, backends: ScriptBackends) -> None:
        self.backends = backends
        # The real operations' waits never end by themselves: the child's context decides.
        self._context = Kernel().context()
        self._operations: dict[int, HostOp] = {}
        self._outgoing: list[Any] = []
        self._arrived: queue.SimpleQueue[tuple[int, HostOp, Future[Any]] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._closed = False
        self.wake_fd, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)

    def stop(self) -> None:
        """Cancel the run (any thread)."""
        self._post(None)

    def handle(self, message: Any) -> None:
        """Act on one message from the child."""
        kind = message[0]
        if kind == "has_tool":
            self._outgoing.append(("has_tool", self.backends.has_tool(message[1])))
        elif kind == "log":
            self.backends.log(message[1])
        elif kind == "call":
            _, number, name, args = message
            self._step(number, self.backends.call(name, args, self._context), Delivery())
        elif kind == "elicit":
            _, number, text, schema = message
            self._step(number, self.backends.elicit(text, schema, self._context), Delivery())
        elif kind == "cancel":
            _, number, deadline = message
            operation = self._operations.pop(number, None)
            if operation is not None:  # else it has settled already, and the child has that
                self._step(number, operation, Delivery(error=ContextError(deadline)))
        else:
            raise EngineError(f"the starlark-rust sandbox sent an unknown message {kind!r}")

    def arrivals(self) -> None:
        """Take on what happened elsewhere: operations whose work finished, a stop."""
        os.read(self.wake_fd, 1 << 16)
        while True:
            try:
                arrived = self._arrived.get_nowait()
            except queue.Empty:
                return
            if arrived is None:
                self._outgoing.append(("stop",))
                continue
            number, operation, future = arrived
            if self._operations.get(number) is operation:
                del self._operations[number]
                self._step(number, operation, outcome_of(future))

    def outgoing(self) -> list[Any]:
        """The messages for the child since the last time, in order."""
        messages, self._outgoing = self._outgoing, []
        return messages

    def _step(self, number: int, operation: HostOp, delivery: Delivery) -> None:
        """Run ``operation`` on until it waits on outside work (an :class:`Await`) or settles."""
        try:
            awaited = delivery.resume(operation)
        except StopIteration as stop:
            self._outgoing.append(("settled", number, ("value", stop.value)))
            return
        except ContextError as error:
            self._outgoing.append(("settled", number, ("context", error.deadline)))
            return
        except Exception as error:  # the real backends' bug: the run ends with an engine error
            failure = f"{type(error).__name__}: {error}"
            self._outgoing.append(("settled", number, ("failure", failure)))
            return
        if not isinstance(awaited, Await):
            operation.close()
            kind = type(awaited).__name__
            self._outgoing.append(("settled", number, ("failure", f"waits on {kind}")))
            return
        self._operations[number] = operation
        awaited.future.add_done_callback(lambda done: self._post((number, operation, done)))

    def _post(self, arrived: tuple[int, HostOp, Future[Any]] | None) -> None:
        with self._lock:
            if self._closed:
                return
            self._arrived.put(arrived)
            with contextlib.suppress(BlockingIOError):  # the pipe is full of wake-ups already
                os.write(self._wake_write, b".")

    def close(self) -> None:
        """After the run: operations still waiting are abandoned, as an in-process run
        abandons them; nothing is taken on any more."""
        with self._lock:
            self._closed = True
            os.close(self.wake_fd)
            os.close(self._wake_write)
        for operation in self._operations.values():
            operation.close()
        self._operations = {}
