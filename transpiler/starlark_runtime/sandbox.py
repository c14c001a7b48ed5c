"""Runs on starlark-rust in a child process whose memory is capped.

starlark-rust aborts the whole process when an allocation fails, so a script
like ``[0] * 2000000000`` cannot be stopped in-process. Rust runs therefore
happen in one reused child process (``python -m
transpiler.starlark_runtime.sandbox MEMORY``) whose address space is capped
(``RLIMIT_AS``: its size once warmed up, plus the run's memory limit). Whole
runs go there, in batches (a script and its scenarios in, one trace per
scenario out, as pickles over its stdin and stdout): the child parses the
script once per batch (and keeps the last few parses), runs the kernel, the
backends and the engine, and checks the wall-clock limit every ~1000 Starlark
instructions (:mod:`.hostlimits` caps the memory). This side waits at most
the wall-clock limit plus :data:`GRACE_SECONDS` for each trace, then kills
the child; the rest of the batch goes to a new one.
A child that meets its memory cap (an allocation that aborts the process,
or that starlark-rust reports as an "out of memory" panic, or a
``MemoryError``) or is killed is replaced for the next run, and the run
raises :class:`~transpiler.starlark_runtime.run.ScriptLimitExceeded` naming
the limit; any other failure is an engine error and the child is replaced
too. A child whose address space has grown by half the memory limit since
it warmed up retires after its reply (``retire_bytes``), so that what
earlier runs left behind never counts against a later one.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from transpiler.profile import CALL_TIMEOUT_NS, ScriptLimits
from transpiler.sim.backoff import Jitter
from transpiler.sim.kernel import Kernel
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime.forwarding import BackendsRelay, ForwardedBackends, PipeClock
from transpiler.starlark_runtime.host import RunState
from transpiler.starlark_runtime.hostlimits import cap_address_space, virtual_memory
from transpiler.starlark_runtime.pipe import Inbox, encode
from transpiler.starlark_runtime.run import (
    EngineError,
    GoOnlyScript,
    ScriptLimitExceeded,
    Starter,
    run_on,
    run_script,
)

GRACE_SECONDS = 2.0
_KEPT_PARSES = 4
#: How the child's reply to a run begins (anything else is a forwarded operation).
_REPLIES = frozenset({"trace", "limit", "go-only", "error"})


@dataclass(frozen=True)
class Request:
    """Runs of one script: everything :func:`run_script` needs for the rust engine."""

    script: str
    filename: str
    modules: dict[str, str]
    scenarios: tuple[Scenario, ...]
    timeout_ns: int
    jitter: Jitter
    seconds: float


@dataclass(frozen=True)
class LiveRequest:
    """One run of a script on real backends (``serve``): its operations are forwarded to the
    parent (:mod:`.forwarding`), and it runs on a real clock."""

    script: str
    filename: str
    modules: dict[str, str]
    params: Mapping[str, Any]
    timeout_ns: int
    jitter: Jitter
    seconds: float
    call_timeout_ns: int = CALL_TIMEOUT_NS


def _send(stream: IO[bytes], value: Any) -> None:
    stream.write(encode(value))
    stream.flush()


class Sandbox:
    """The child process and its pipes; one run at a time."""

    def __init__(self, limits: ScriptLimits, retire_bytes: int | None = None) -> None:
        """Start a child; it retires once its address space has grown by ``retire_bytes``
        (default: half the memory limit) since it warmed up (fragmentation, or anything a run
        failed to release), so no later run meets the cap early for what it did not do."""
        self.limits = limits
        retire = limits.memory_bytes // 2 if retire_bytes is None else retire_bytes
        self.lock = threading.Lock()
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(limits.memory_bytes), str(retire)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            # A panic's backtrace can take seconds to print; nobody reads it.
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )
        assert self._process.stdout is not None
        self._inbox = Inbox(self._process.stdout.fileno())
        ready = self._reply(60.0)
        if ready != ("ready",):
            self.close()
            raise EngineError(f"the starlark-rust sandbox did not start: {ready!r}")

    def run(self, request: Request) -> list[Trace | EngineError]:
        """Each scenario's trace in order, up to the first run that failed (its
        ScriptLimitExceeded or EngineError ends the list); shorter than the batch also when
        the child retired (the rest needs a new child)."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            _send(stdin, request)
        except BrokenPipeError:
            return [self._died()]
        results: list[Trace | EngineError] = []
        for _ in request.scenarios:
            try:
                reply = self._reply(request.seconds + GRACE_SECONDS)
            except EngineError as error:
                results.append(error)
                break
            if reply is None:
                self.close()
                results.append(ScriptLimitExceeded("time", self.limits))
                break
            kind, value, retiring = reply
            results.append(self._result(kind, value))
            if retiring:  # the child has exited: the next run starts a new one
                self.close()
            if kind != "trace" or not self.alive():
                break
        return results

    def _result(self, kind: str, value: Any) -> Trace | EngineError:
        if kind == "trace":
            assert isinstance(value, Trace)
            return value
        if kind == "limit":
            if value == "memory":
                self.close()
            return ScriptLimitExceeded(value, self.limits)
        if kind == "go-only":
            return GoOnlyScript(value)
        self.close()
        return EngineError(value)

    def _reply(self, seconds: float) -> Any:
        """The child's next message; None when ``seconds`` pass first."""
        try:
            return self._inbox.receive(seconds)
        except EOFError:
            raise self._died() from None

    def run_live(self, request: LiveRequest, relay: BackendsRelay) -> Trace:
        """One run on real backends: the child's operations go to ``relay`` (which this
        closes once the run ends) and its answers back. Returns the trace, or raises the
        :class:`EngineError` that ended the run (:class:`ScriptLimitExceeded` past the
        wall-clock limit plus :data:`GRACE_SECONDS`, the child then killed)."""
        stdin = self._process.stdin
        assert stdin is not None
        outbox = bytearray(encode(request))
        deadline = time.monotonic() + request.seconds + GRACE_SECONDS
        # Never blocked writing to a child that is busy writing to this side.
        os.set_blocking(stdin.fileno(), False)
        try:
            while True:
                message = self._inbox.take()
                if message is not None and message[0] in _REPLIES:
                    return self._live_result(message, relay)
                if message is not None:
                    relay.handle(message)
                    outbox += b"".join(map(encode, relay.outgoing()))
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.close()
                    raise ScriptLimitExceeded("time", self.limits)
                readable, writable, _ = select.select(
                    [self._inbox.fd, relay.wake_fd], [stdin] if outbox else [], [], remaining
                )
                if relay.wake_fd in readable:
                    relay.arrivals()
                    outbox += b"".join(map(encode, relay.outgoing()))
                if writable:
                    try:
                        del outbox[: os.write(stdin.fileno(), outbox)]
                    except BrokenPipeError:
                        raise self._died() from None
                if self._inbox.fd in readable:
                    self._fill()
        finally:
            relay.close()
            if not stdin.closed:
                os.set_blocking(stdin.fileno(), True)

    def _fill(self) -> None:
        try:
            self._inbox.fill()
        except EOFError:
            raise self._died() from None

    def _live_result(self, message: Any, relay: BackendsRelay) -> Trace:
        kind, value, retiring = message
        result = self._result(kind, value)
        if retiring:  # the child has exited: the next run starts a new one
            self.close()
        if isinstance(result, EngineError):
            raise result
        result.incomplete = relay.backends.incomplete
        return result

    def _died(self) -> EngineError:
        code = self._process.wait()
        self.close()
        if code in (-signal.SIGABRT, -signal.SIGKILL, -signal.SIGSEGV):
            return ScriptLimitExceeded("memory", self.limits)
        return EngineError(f"the starlark-rust sandbox exited unexpectedly (exit {code})")

    def alive(self) -> bool:
        """Whether the child can take another run."""
        return self._process.poll() is None

    def close(self) -> None:
        """Stop the child (for good)."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()


_SANDBOX: Sandbox | None = None
_SANDBOX_LOCK = threading.Lock()


def run_sandboxed(
    script: str,
    scenarios: tuple[Scenario, ...],
    *,
    filename: str,
    timeout_ns: int,
    jitter: Jitter,
    limits: ScriptLimits,
    modules: dict[str, str],
) -> list[Trace | EngineError]:
    """Run ``script`` on starlark-rust once per scenario in the shared child (started, or
    replaced, as needed): each run's trace in order, up to and including the error of the
    first run that failed (the rest are not run)."""
    results: list[Trace | EngineError] = []
    while len(results) < len(scenarios) and not (results and isinstance(results[-1], EngineError)):
        rest = scenarios[len(results) :]
        request = Request(script, filename, modules, rest, timeout_ns, jitter, limits.seconds)
        sandbox = _acquire(limits)
        try:
            results.extend(sandbox.run(request))
        finally:
            sandbox.lock.release()
    return results


def _acquire(limits: ScriptLimits) -> Sandbox:
    """The shared child, alive and locked for the caller.

    Whether it is alive is asked once its lock is held: the run this caller waited for may
    have ended it (a script that crashed it, a limit), and a child another thread ended is
    replaced, never handed out."""
    global _SANDBOX
    with _SANDBOX_LOCK:
        if _SANDBOX is not None:
            _SANDBOX.lock.acquire()  # under the module lock: nobody replaces it meanwhile
            if _SANDBOX.alive() and _SANDBOX.limits == limits:
                return _SANDBOX
            _SANDBOX.close()
            _SANDBOX.lock.release()
        _SANDBOX = Sandbox(limits)
        _SANDBOX.lock.acquire()
        return _SANDBOX


def serve(memory_bytes: int, retire_bytes: int) -> None:
    """The child: warm up, cap the address space, then run requests until stdin closes."""
    from transpiler.starlark_runtime.rust_engine import start_rust

    requests = Inbox(sys.stdin.fileno())
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else writes to stdout must not reach the protocol
    limits = ScriptLimits(memory_bytes=memory_bytes)
    warm_up = "def run(params):\n    return {}\n"
    run_script(start_rust(warm_up, "warm-up.star", {}, limits), Scenario())
    warmed = virtual_memory(os.getpid())
    cap_address_space(os.getpid(), memory_bytes)
    _send(replies, ("ready",))
    starters: dict[tuple[str, str, tuple[tuple[str, str], ...], float], Starter] = {}
    while True:
        try:
            request = requests.receive(None)
        except EOFError:
            return
        runs: list[Callable[[Starter], Trace]]
        if isinstance(request, Request):
            runs = [_on_scenario(request, scenario) for scenario in request.scenarios]
        elif isinstance(request, LiveRequest):
            runs = [_live(request, requests, replies)]
        else:  # a message for a run that has ended (the parent's stop came too late)
            continue
        limits = ScriptLimits(memory_bytes=memory_bytes, seconds=request.seconds)
        modules = tuple(sorted(request.modules.items()))
        key = (request.script, request.filename, modules, request.seconds)
        for run in runs:
            try:
                if key not in starters:
                    if len(starters) >= _KEPT_PARSES:
                        starters.pop(next(iter(starters)))
                    starters[key] = start_rust(
                        request.script, request.filename, request.modules, limits
                    )
                reply: tuple[str, Any] = ("trace", run(starters[key]))
            except ScriptLimitExceeded as exceeded:
                reply = ("limit", exceeded.which)
            except GoOnlyScript as refused:
                reply = ("go-only", str(refused))
            except BaseException as error:  # reported to the parent; this process is not reused
                # starlark-rust's heap reports a failed allocation as a panic ("out of memory").
                memory = isinstance(error, MemoryError) or "out of memory" in str(error)
                failure = ("limit", "memory") if memory else ("error", _describe(error))
                _send(replies, (*failure, True))
                return
            retiring = virtual_memory(os.getpid()) - warmed > retire_bytes
            _send(replies, (*reply, retiring))
            if retiring:
                return
            if reply[0] != "trace":  # the batch stops at its first failed run
                break


def _on_scenario(request: Request, scenario: Scenario) -> Callable[[Starter], Trace]:
    """A run of the batch: on the scenario's simulated backends, on virtual time."""
    return lambda starter: run_script(
        starter, scenario, timeout_ns=request.timeout_ns, jitter=request.jitter
    )


def _live(request: LiveRequest, inbox: Inbox, replies: IO[bytes]) -> Callable[[Starter], Trace]:
    """The run on real backends: every operation forwarded to the parent, on real time."""

    def run(starter: Starter) -> Trace:
        backends = ForwardedBackends(lambda message: _send(replies, message), inbox)
        clock = PipeClock(inbox, backends.dispatch)

        def started(state: RunState) -> None:
            backends.on_stop = lambda: clock.post(state.root.cancel)

        return run_on(
            starter,
            backends,
            request.params,
            Kernel(clock=clock),
            request.timeout_ns,
            request.jitter,
            request.call_timeout_ns,
            started=started,
        )

    return run


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


if __name__ == "__main__":
    # The module itself, not ``__main__``: requests name its classes.
    from transpiler.starlark_runtime import sandbox

    sandbox.serve(int(sys.argv[1]), int(sys.argv[2]))
