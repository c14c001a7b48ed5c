"""The ``go`` engine: go.starlark.net, the interpreter vMCP embeds, in a host process.

``gohost/main.go`` runs the script with the builtins implemented in Go
(``parallel`` on goroutines, ``retry`` calling its lambda natively) and
forwards every builtin to this side as an ``op`` message. Here each script
thread is a kernel thread: its runner resumes the goroutine, reads its next
message, and performs the builtin with the same host semantics as the rust
engine. Only one goroutine runs at a time, so runs are deterministic. One host
process per Go toolchain (:func:`transpiler.gobuild.toolchain`) serves every
run (a lock serialises runs from several threads).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from transpiler import gobuild
from transpiler.profile import (
    MAX_EXECUTION_STEPS,
    MAX_LOG_BYTES,
    MAX_PRINT_BYTES,
    ScriptLimits,
)
from transpiler.sim.kernel import (
    Acquire,
    Blocked,
    Context,
    ContextError,
    Delivery,
    Failed,
    Finished,
    Join,
    StepOutcome,
)
from transpiler.sim.trace import ScriptReach
from transpiler.starlark_runtime.host import (
    HostOp,
    ParallelGroup,
    RetryPolicy,
    RunState,
    ScriptHalt,
    ScriptThread,
    new_group,
)
from transpiler.starlark_runtime.hostlimits import GO_ARENA_BYTES, cap_address_space
from transpiler.starlark_runtime.run import (
    EngineError,
    EngineRun,
    FatalStop,
    ScriptLimitExceeded,
    ScriptOutcome,
    Starter,
)
from transpiler.starlark_runtime.values import from_script, to_script

_SOURCE = Path(__file__).with_name("gohost") / "main.go"
WARM_UP_SECONDS = 60.0


def build_host() -> Path:
    """The go host's binary, built now unless it is already (``./dev`` builds it as it
    installs; otherwise the first run that needs it does, saying so)."""
    return gobuild.build(_SOURCE, "gohost", needs_starlark=True)


class GoHostProcess:
    """The long-lived ``gohost`` process and its JSON-lines pipe.

    Its memory is bounded (:mod:`.hostlimits`); every read from it has a
    deadline (the run's wall-clock limit), past which the process is killed.
    Its stderr (``print`` output, capped per run, and the runtime's last
    words) goes to a scratch file emptied at each run.
    """

    def __init__(self, limits: ScriptLimits) -> None:
        binary = build_host()
        self.limits = limits
        self._stderr = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 - lives with the host
        # GOMEMLIMIT makes the collector work harder near the cap instead of growing the heap.
        environment = {**os.environ, "GOMEMLIMIT": str(limits.memory_bytes), "GOTRACEBACK": "none"}
        self._process = subprocess.Popen(
            [str(binary)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=environment,
        )
        self._buffer = bytearray()
        self.deadline = time.monotonic() + WARM_UP_SECONDS
        self.lock = threading.Lock()
        self._warm_up()
        cap_address_space(self._process.pid, limits.memory_bytes, GO_ARENA_BYTES)

    def _warm_up(self) -> None:
        """One trivial run, so the runtime has mapped what it always maps."""
        self.send(
            {
                "type": "start",
                "script": "def run(params):\n    return {}\n",
                "filename": "warm-up.star",
                "params": {},
                "max_steps": MAX_EXECUTION_STEPS,
                "max_print": MAX_PRINT_BYTES,
                "max_log": MAX_LOG_BYTES,
            }
        )
        while self.receive().get("type") != "exit":
            pass

    def alive(self) -> bool:
        """Whether the process can take another run."""
        return self._process.poll() is None

    def new_run(self) -> None:
        """Start a run's clock and empty the scratch stderr."""
        self._stderr.truncate(0)
        self.deadline = time.monotonic() + self.limits.seconds

    def send(self, message: dict[str, Any]) -> None:
        """Write one message (a dead host is an engine error)."""
        stdin: IO[bytes] | None = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
            stdin.flush()
        except BrokenPipeError:
            raise self._died() from None

    def receive(self) -> dict[str, Any]:
        """Read one message before the run's deadline (a dead host is an engine error)."""
        stdout: IO[bytes] | None = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            readable, _, _ = select.select([stdout], [], [], max(remaining, 0))
            if not readable:
                self.close()
                raise ScriptLimitExceeded("time", self.limits)
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                raise self._died()
            self._buffer += chunk
        line, _, rest = self._buffer.partition(b"\n")
        self._buffer = bytearray(rest)
        message: dict[str, Any] = json.loads(line)
        if message.get("type") == "host-error":
            raise EngineError(f"go.starlark.net host: {message.get('error')}")
        return message

    def _died(self) -> EngineError:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._stderr.seek(0)
        last_words = self._stderr.read().decode("utf-8", "replace")
        self.close()
        if "fatal error: out of memory" in last_words:
            return ScriptLimitExceeded("memory", self.limits)
        return EngineError(
            "the go.starlark.net host process exited unexpectedly: " + last_words[:2000].strip()
        )

    def close(self) -> None:
        """Stop the process (for good) and close its pipes and scratch file."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout, self._stderr):
            if stream is not None:
                stream.close()


_HOSTS: dict[tuple[gobuild.Toolchain, ScriptLimits], GoHostProcess] = {}
_HOST_LOCK = threading.Lock()


def acquire_host(limits: ScriptLimits) -> GoHostProcess:
    """The process every go run on the current toolchain with these limits uses (started,
    or replaced, as needed), alive and locked for the caller's run; the run releases ``lock``.

    Whether it is alive is asked once its lock is held: the run this caller waited for may
    have ended it, and a process another thread ended is replaced, never handed out."""
    key = (gobuild.toolchain(), limits)
    with _HOST_LOCK:
        host = _HOSTS.get(key)
        if host is not None:
            host.lock.acquire()  # under the module lock: nobody replaces it meanwhile
            if host.alive():
                return host
            host.close()
            host.lock.release()
        host = _HOSTS[key] = GoHostProcess(limits)
        host.lock.acquire()
        return host


@dataclass(eq=False, kw_only=True)
class _GoThread(ScriptThread):
    started: bool = False
    retry_stack: list[RetryPolicy] = field(default_factory=list)
    inflight_kind: str = ""
    inflight_body: HostOp | None = None
    inflight_name: Any = None
    joined: ParallelGroup | None = None


class _Runner:
    def __init__(self, run: GoRun, thread: _GoThread) -> None:
        self._run = run
        self._thread = thread

    def step(self, delivery: Delivery) -> StepOutcome:
        return self._run.step(self._thread, delivery)


class GoRun:
    """One ``tools/call`` of a script on go.starlark.net."""

    def __init__(
        self,
        host: GoHostProcess,
        script: str,
        filename: str,
        modules: Mapping[str, str],
        state: RunState,
    ) -> None:
        self._host = host
        self._script = script
        self._filename = filename
        self._modules = dict(modules)
        self._state = state
        self._main = _GoThread(path=(), context=state.root, label="main")
        self._outcome: ScriptOutcome | None = None
        self._open = True
        self._unfinished = 0  # threads the host has a goroutine for that has not exited
        self._reach = ScriptReach()

    def start(self) -> None:
        """Spawn the main thread on the kernel."""
        self._spawn(self._main)

    def outcome(self) -> ScriptOutcome | None:
        """How ``run(params)`` ended."""
        return self._outcome

    def reached(self) -> ScriptReach:
        """Where the run went, as the host reported it when the run ended."""
        return self._reach

    def close(self) -> None:
        """Stop whatever still runs in the host (nothing, once every thread has exited: no
        round trip then) and release the process."""
        try:
            if self._open and self._main.started and self._unfinished and self._host.alive():
                self._host.send({"type": "abort"})
                while (message := self._host.receive()).get("type") != "aborted":
                    pass
                self._reach = _reach(message.get("reach"))
        finally:
            if self._open:
                self._open = False
                self._host.lock.release()

    def _spawn(self, thread: _GoThread) -> None:
        thread.kthread = self._state.kernel.spawn(_Runner(self, thread), thread.path, thread.label)
        self._unfinished += 1

    # -- stepping ----------------------------------------------------------

    def step(self, thread: _GoThread, delivery: Delivery) -> StepOutcome:
        """Resume ``thread`` and run it until it blocks or ends."""
        if not thread.started:
            thread.started = True
            if thread is self._main:
                self._host.send(
                    {
                        "type": "start",
                        "script": self._script,
                        "filename": self._filename,
                        "params": to_script(self._state.params),
                        "max_steps": MAX_EXECUTION_STEPS,
                        "modules": self._modules,
                        "max_print": MAX_PRINT_BYTES,
                        "max_log": MAX_LOG_BYTES,
                    }
                )
            else:
                self._host.send({"type": "start-branch", "thread": list(thread.path)})
            return self._pump(thread)
        self._check_deadline()
        if thread.joined is not None:
            group, thread.joined = thread.joined, None
            self._reply(thread, None, group.first_error)
            return self._pump(thread)
        body = thread.inflight_body
        assert body is not None
        return self._drive(thread, body, delivery)

    def _check_deadline(self) -> None:
        root = self._state.root
        if root.error is not None and root.error.deadline:
            raise FatalStop(None)

    def _drive(self, thread: _GoThread, body: HostOp, delivery: Delivery) -> StepOutcome:
        try:
            operation = delivery.resume(body)
        except StopIteration as stop:
            thread.inflight_body = None
            self._complete(thread, stop.value)
            return self._pump(thread)
        except ScriptHalt as halt:
            thread.inflight_body = None
            self._reply(thread, None, str(halt))
            return self._pump(thread)
        thread.inflight_body = body
        return Blocked(operation)

    def _complete(self, thread: _GoThread, result: Any) -> None:
        """Answer the goroutine for a finished host operation."""
        kind = thread.inflight_kind
        if kind == "call":
            ok, error, output = result.as_script_value()
            if ok:
                self._reply(thread, output, None)
            else:
                self._reply(thread, None, f"call_tool: {thread.inflight_name}: {error}")
        elif kind == "try_call":
            self._reply(thread, result.as_script_value(), None)
        elif kind == "enter":
            thread.holds_slot = True
            self._reply(thread, None, None)
        elif kind == "retry-fail":
            if not result:
                thread.retry_stack.pop()
            self._reply(thread, bool(result), None)
        else:
            self._reply(thread, result, None)

    def _reply(self, thread: _GoThread, value: Any, halt: str | None) -> None:
        answer: dict[str, Any] = {"value": value}
        if halt is not None:
            answer["halt"] = halt
        self._host.send({"type": "resume", "thread": list(thread.path), "value": answer})

    def _pump(self, thread: _GoThread) -> StepOutcome:
        """Read the goroutine's messages until it blocks on the kernel or ends."""
        while True:
            message = self._host.receive()
            path = tuple(message.get("thread") or ())
            if path != thread.path:
                raise EngineError(f"go host: thread {path} spoke while {thread.path} ran")
            if message["type"] == "exit":
                return self._exit(thread, message)
            outcome = self._operation(thread, message)
            if outcome is not None:
                return outcome

    def _exit(self, thread: _GoThread, message: dict[str, Any]) -> StepOutcome:
        self._unfinished -= 1
        if thread is self._main:
            self._reach = _reach(message.get("reach"))
        error = None if message.get("ok") else str(message.get("error"))
        if error is not None and message.get("fatal"):
            raise FatalStop(error)
        if thread is self._main:
            self._outcome = ScriptOutcome(value=from_script(message.get("value")), error=error)
        thread.ended(error)
        if error is None:
            return Finished(None)
        return Failed(RuntimeError(error))

    def _operation(self, thread: _GoThread, message: dict[str, Any]) -> StepOutcome | None:
        """Perform one builtin; None when the goroutine was answered at once."""
        kind = message["op"]
        state = self._state
        thread.inflight_kind = kind
        try:
            if kind in ("call", "try_call"):
                thread.inflight_name = message.get("name")
                body = state.call_tool(
                    thread.context,
                    thread.label,
                    _attempt(thread),
                    message.get("name"),
                    message.get("args"),
                )
                return self._drive(thread, body, Delivery())
            if kind == "elicit":
                body = state.elicit(thread.context, message.get("message"), message.get("schema"))
                return self._drive(thread, body, Delivery())
            if kind == "log":
                state.log(message.get("message"))
                self._reply(thread, None, None)
                return None
            if kind == "enter":
                assert thread.group is not None
                return self._drive(thread, _acquire(thread.group, thread.context), Delivery())
            if kind == "parallel":
                return self._parallel(thread, int(message["n"]))
            if kind == "retry-begin":
                thread.retry_stack.append(
                    state.retry_policy(
                        message.get("max_attempts"), message.get("delay"), thread.next_retry_name()
                    )
                )
                self._reply(thread, None, None)
                return None
            if kind == "retry-end":
                thread.retry_stack.pop()
                self._reply(thread, None, None)
                return None
            if kind == "retry-fail":
                body = state.retry_wait(thread.context, thread.retry_stack[-1])
                return self._drive(thread, body, Delivery())
        except ScriptHalt as halt:
            self._reply(thread, None, str(halt))
            return None
        raise EngineError(f"go host sent an unknown operation {kind!r}")

    def _parallel(self, thread: _GoThread, count: int) -> StepOutcome:
        number = thread.next_parallel()
        group = new_group(self._state, thread)
        children = []
        for index in range(count):
            path, label = thread.branch_path(number, index)
            child = _GoThread(path=path, context=group.context, label=label, group=group)
            self._spawn(child)
            assert child.kthread is not None
            children.append(child.kthread)
        thread.joined = group
        return Blocked(Join(tuple(children)))


def _reach(sent: Any) -> ScriptReach:
    """The host's report of where a run went (see gohost/main.go)."""
    if not isinstance(sent, dict):
        return ScriptReach()
    return ScriptReach(
        frozenset((str(b), str(f), int(line), int(col)) for b, f, line, col in sent["calls"]),
        frozenset((str(f), int(line)) for f, line in sent["lines"]),
        frozenset(str(f) for f in sent["evaluated"]),
    )


def _attempt(thread: _GoThread) -> int:
    """The attempt number of the innermost ``retry`` (1 outside any)."""
    return thread.retry_stack[-1].failures + 1 if thread.retry_stack else 1


def _acquire(group: ParallelGroup, context: Context) -> HostOp:
    try:
        yield Acquire(group.semaphore, context)
    except ContextError as error:
        raise ScriptHalt(str(error)) from None


def start_go(
    script: str,
    filename: str,
    modules: Mapping[str, str],
    limits: ScriptLimits,
    acquire: Callable[[ScriptLimits], GoHostProcess] = acquire_host,
) -> Starter:
    """The go engine as a :data:`~transpiler.starlark_runtime.run.Starter`; each run takes
    its host process, locked, from ``acquire`` (by default the one shared process)."""

    def start(state: RunState) -> EngineRun:
        host = acquire(limits)
        try:
            host.new_run()
            run = GoRun(host, script, filename, modules, state)
            run.start()
        except BaseException:
            host.lock.release()  # no run owns it yet to release it
            raise
        return run

    return start
