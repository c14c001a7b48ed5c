"""The ``rust`` engine: starlark-rust in-process, resumed by deterministic replay.

starlark-rust (through starlark-pyo3) cannot pass a Starlark function to
Python, and a Python builtin cannot suspend a Starlark frame. So ``parallel``
and ``retry`` are written in Starlark (``prelude.star``) over host primitives,
and the host turns one script run into a series of *passes*:

- Every builtin result is appended to the journal of the thread that asked
  (the main thread, or one ``parallel`` branch). A pass evaluates the script
  from the start; a thread's builtins are answered from its journal until the
  thread reaches its frontier, where it receives what the kernel decided.
- When the kernel decides that another thread runs next (a branch must wait
  for a slower call, a sibling starts), the pass ends ("parks") and the next
  pass replays up to that thread. Branches that have nothing to do in a pass
  are skipped; finished branches are replayed only to recompute their values.
- A halt inside ``retry``'s callable ends the pass too; the host records the
  failed attempt, waits the backoff on the virtual clock, and the next pass
  jumps straight to the next attempt.

Scripts are deterministic given builtin results, so replay reproduces the
same states; a replayed builtin that differs from its journal entry is
reported as a nondeterministic script. Cost: a pass per context switch, each
re-running the script's prefix (cheap for workflow-sized scripts; see
benchmarks/bench_runtime.py). Steps are counted per pass, so the execution-step
limit applies to each pass rather than to the sum over passes.

``load()`` resolves against the run's modules (parsed once per process and
source, evaluated at most once per pass like the script; a module whose
evaluation called no builtin is kept for the rest of the run, since replaying
it would give the same module). The dialect follows the go engine's
where starlark-rust can: top-level ``if``/``for`` and global reassignment are
allowed, loaded names are not re-exported; ``while`` does not parse, and such
a script raises :class:`GoOnlyScript`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import starlark as sl

from transpiler.profile import (
    MAX_EXECUTION_STEPS,
    STEP_LIMIT_MESSAGE,
    ScriptLimits,
)
from transpiler.sim.kernel import (
    Acquire,
    ContextError,
    Decision,
    Delivery,
    Join,
    Parked,
    StepOutcome,
    Thread,
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
from transpiler.starlark_runtime.run import (
    EngineError,
    EngineRun,
    FatalStop,
    FinishedRun,
    GoOnlyScript,
    ScriptLimitExceeded,
    ScriptOutcome,
    Starter,
)
from transpiler.starlark_runtime.syntax import DIALECT
from transpiler.starlark_runtime.values import from_script, to_script

_GLOBALS = sl.Globals.extended_by([sl.LibraryExtension.Json, sl.LibraryExtension.StructType])
#: The prelude's own: it also reads its callers' stacks (scripts cannot).
_PRELUDE_GLOBALS = sl.Globals.extended_by(
    [sl.LibraryExtension.Json, sl.LibraryExtension.StructType, sl.LibraryExtension.CallStack]
)
_DIALECT = DIALECT
_PRELUDE_TEXT = resources.files("transpiler.starlark_runtime").joinpath("prelude.star").read_text()
_PRELUDE_NAMES = tuple(re.findall(r"^def ([a-z]\w*)\(", _PRELUDE_TEXT, re.MULTILINE))
_BIND_PRELUDE = sl.parse(
    "<prelude-load>",
    "load(" + ", ".join(f'"{name}"' for name in ("prelude.star", *_PRELUDE_NAMES)) + ")\n",
    _DIALECT,
)
_ENTRY = sl.parse("<entry>", "run(__params)\n")
_RUN_CHECK = sl.parse("<check>", "__run_type = type(run)\n")
_CHECK_INTERVAL_STEPS = 1000
_CLOSED_OPTIONS = sl.EvalOptions()


class _Library:
    """The modules a script can reach through ``load()``, each parsed once per run."""

    def __init__(self, script: sl.AstModule, sources: Mapping[str, str]) -> None:
        self.asts: dict[str, sl.AstModule] = {}
        self.errors: dict[str, str] = {}
        pending = [load.module_id for load in script.loads()]
        while pending:
            name = pending.pop()
            if name in self.asts or name in self.errors or name not in sources:
                continue
            try:
                ast = _parse_module(name, sources[name])
            except sl.StarlarkError as error:
                self.errors[name] = _error_message(error)
                continue
            self.asts[name] = ast
            pending.extend(load.module_id for load in ast.loads())

    def ast(self, name: str) -> sl.AstModule:
        """The parsed module; :class:`_LoadFailure` when it is unknown or does not parse."""
        if name in self.asts:
            return self.asts[name]
        raise _LoadFailure(self.errors.get(name, "no such module"))


class _LoadFailure(Exception):
    """A module cannot be loaded; the message is go.starlark.net's inner text."""


def _closed(name: str) -> sl.FrozenModule:
    raise _LoadFailure(f"the run is over: {name} not loaded")


_CLOSED_LOADER = sl.FileLoader(_closed)


class _Park(Exception):
    """Ends a pass because another thread runs next."""


class _Halt(Exception):
    """Ends a pass because the running thread halted."""


@dataclass
class _Entry:
    kind: str
    result: Any
    halt: str | None = None


@dataclass
class _Retry:
    policy: RetryPolicy
    attempt_starts: list[int]
    attempt: int = 1
    closed: bool = False


@dataclass
class _InFlight:
    kind: str
    index: int
    body: HostOp | None = None
    retry: _Retry | None = None


@dataclass(eq=False)
class _Group(ParallelGroup):
    children: list[_Thread] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class _Thread(ScriptThread):
    parent: _Thread | None = None
    journal: list[_Entry] = field(default_factory=list)
    inflight: _InFlight | None = None
    retries: dict[int, _Retry] = field(default_factory=dict)
    groups: dict[int, _Group] = field(default_factory=dict)
    finished: bool = False
    cursor: int = 0
    retry_stack: list[_Retry] = field(default_factory=list)
    group_stack: list[_Group] = field(default_factory=list)

    def reset_pass(self) -> None:
        self.cursor = 0
        self.retry_stack = []
        self.group_stack = []

    def attempt(self) -> int:
        """The attempt number of the innermost ``retry`` (1 outside any)."""
        return self.retry_stack[-1].policy.failures + 1 if self.retry_stack else 1


class _ThreadRunner:
    def __init__(self, run: ReplayRun, thread: _Thread) -> None:
        self._run = run
        self._thread = thread

    def step(self, delivery: Delivery) -> StepOutcome:
        assert self._thread.kthread is not None
        self._run.run_pass(Decision(self._thread.kthread, delivery))
        return Parked()


class ReplayRun:
    """One ``tools/call`` of a script on starlark-rust."""

    def __init__(
        self,
        script: sl.AstModule,
        filename: str,
        library: _Library,
        params: Any,
        state: RunState,
        limits: ScriptLimits,
    ) -> None:
        self._script = script
        self._filename = filename
        self._files = frozenset({filename, *library.asts})
        self._library = library
        self._limits = limits
        self._deadline = time.monotonic() + limits.seconds
        self._loader = sl.FileLoader(self._load)
        self._loaded: dict[str, sl.FrozenModule] = {}
        self._kept: dict[str, sl.FrozenModule] = {}
        self._loading: set[str] = set()
        self._options = sl.EvalOptions(check_cancelled=self._count_steps)
        self._params = params
        self._state = state
        self._main = _Thread(path=(), context=state.root, label="main")
        self._threads: dict[Thread, _Thread] = {}
        self._pending: Decision | None = None
        self._live: _Thread | None = None
        self._current = self._main
        self._entered: set[tuple[int, ...]] = set()
        self._halt: str | None = None
        self._parked = False
        self._steps = 0
        self._escaped: Exception | None = None
        self._outcome: ScriptOutcome | None = None
        self._calls: set[tuple[str, str, int, int]] = set()
        self._lines: set[tuple[str, int]] = set()
        self._evaluated: set[str] = set()
        self._stacks: set[tuple[str, str]] = set()

    def start(self) -> None:
        """Spawn the main thread; the kernel's loop does the rest."""
        self._spawn(self._main)

    def outcome(self) -> ScriptOutcome | None:
        """How ``run(params)`` ended."""
        return self._outcome

    def reached(self) -> ScriptReach:
        """Where the run went: its builtins' callers and stacks, and where it halted, over
        every pass (a replayed pass goes where the pass it replays went)."""
        return ScriptReach(
            frozenset(self._calls), frozenset(self._lines), frozenset(self._evaluated)
        )

    def _note(self, builtin: str, stack: str) -> None:
        """A builtin was called from the innermost frame of ``stack`` (a ``call_stack()``);
        a replayed pass repeats the stacks of the passes before it."""
        if (builtin, stack) in self._stacks:
            return
        self._stacks.add((builtin, stack))
        frames = _frames(stack)
        self._lines.update(f for f in frames if f[0] in self._files)
        if frames and frames[-1][0] in self._files:
            self._calls.add((builtin, *frames[-1], 0))

    def _note_error(self, error: sl.StarlarkError) -> None:
        """The stack where a pass's error arose (a halt, a failed attempt)."""
        self._lines.update(f for f in _error_frames(str(error)) if f[0] in self._files)

    def close(self) -> None:
        """Nothing outlives a rust run.

        The interpreter's objects that call back into the run (the loader, the
        step counter, the loaded modules' builtins) make cycles Python's collector
        cannot see through, so the run lets them go.
        """
        self._loaded = {}
        self._kept = {}
        self._loader = _CLOSED_LOADER
        self._options = _CLOSED_OPTIONS

    def _spawn(self, thread: _Thread) -> None:
        kthread = self._state.kernel.spawn(_ThreadRunner(self, thread), thread.path, thread.label)
        thread.kthread = kthread
        self._threads[kthread] = thread

    # -- passes -----------------------------------------------------------

    def run_pass(self, decision: Decision) -> None:
        """Evaluate the script once, resuming the thread of ``decision``."""
        self._pending = decision
        self._live = None
        self._current = self._main
        self._entered = set()
        self._halt = None
        self._parked = False
        self._escaped = None
        self._steps = 0
        self._loaded = dict(self._kept)
        self._loading = set()
        for thread in self._threads.values():
            thread.reset_pass()
        options = self._options
        outer, _ACTIVE.run = _ACTIVE.run, self
        try:
            self._pass(options)
        finally:
            _ACTIVE.run = outer

    def _pass(self, options: sl.EvalOptions) -> None:
        try:
            module = self._evaluate(self._script)
            self._evaluated.add(self._filename)
            self._require_run(module)
            module["__params"] = self._params
            returned = sl.eval_with(options, module, _ENTRY, _GLOBALS)
        except sl.StarlarkError as error:
            if self._escaped is not None:
                raise self._escaped from None
            if self._parked:
                self._state.kernel.defer(self._pending)
                return
            self._note_error(error)
            if self._over_budget():
                raise FatalStop(STEP_LIMIT_MESSAGE) from None
            message = self._halt if self._halt is not None else _error_message(error)
            self._unwind(self._current, message)
            return
        try:
            value = from_script(returned.value)
        except Exception:
            self._unwind(self._main, "run() returned a value that is not JSON-like")
            return
        self._outcome = ScriptOutcome(value=value)
        self._finish(self._main, None)

    @staticmethod
    def _require_run(module: sl.Module) -> None:
        try:
            sl.eval(module, _RUN_CHECK, _GLOBALS)
        except sl.StarlarkError:
            raise FatalStop("the script does not define run(params)") from None

    def _evaluate(self, ast: sl.AstModule) -> sl.Module:
        """A new module with the builtins (the prelude's, loaded), running ``ast``."""
        module = sl.Module()
        sl.eval_with(self._options, module, _BIND_PRELUDE, _GLOBALS, _PRELUDE_LOADER)
        sl.eval_with(self._options, module, ast, _GLOBALS, self._loader)
        return module

    def _load(self, name: str) -> sl.FrozenModule:
        """``load(name)``: the module run once in this pass; failures read as on go."""
        if name in self._loaded:
            return self._loaded[name]
        thread, cursor = self._current, self._current.cursor
        try:
            if name in self._loading:
                raise _LoadFailure("cycle in load graph")
            self._loading.add(name)
            frozen = self._evaluate(self._library.ast(name)).freeze()
            self._evaluated.add(name)
        except _LoadFailure as failure:
            raise self._stop(f"cannot load {name}: {failure}") from None
        except sl.StarlarkError as error:
            if self._escaped is not None or self._parked or self._over_budget():
                raise
            inner = self._halt if self._halt is not None else _error_message(error)
            raise self._stop(f"cannot load {name}: {inner}") from None
        self._loading.discard(name)
        self._loaded[name] = frozen
        if thread is self._current and thread.cursor == cursor:
            self._kept[name] = frozen
        return frozen

    def _count_steps(self) -> bool:
        self._steps += 1
        if time.monotonic() > self._deadline:
            raise ScriptLimitExceeded("time", self._limits)
        return self._over_budget()

    def _over_budget(self) -> bool:
        return self._steps * _CHECK_INTERVAL_STEPS > MAX_EXECUTION_STEPS

    # -- scheduling primitives -------------------------------------------

    def _stop(self, message: str) -> Exception:
        self._halt = message
        return _Halt(message)

    def _escape(self, error: Exception) -> Exception:
        """An exception that must leave the pass as itself, not as a Starlark error."""
        self._escaped = error
        return error

    def _park(self) -> Exception:
        self._parked = True
        self._live = None
        return _Park()

    def _claim(self, thread: _Thread) -> Delivery:
        """Let ``thread`` run on: it is live, or the kernel's pending choice is for it."""
        if self._live is thread:
            return Delivery()
        pending = self._pending
        if pending is None or pending.thread is not thread.kthread:
            raise self._escape(EngineError(f"thread {thread.label} ran without being scheduled"))
        self._pending = None
        self._live = thread
        self._check_deadline()
        return pending.delivery

    def _check_deadline(self) -> None:
        """At the tool's timeout the whole run stops, whatever the script was doing."""
        root = self._state.root
        if root.error is not None and root.error.deadline:
            raise self._escape(FatalStop(None))

    def _op(self, kind: str, start: Callable[[], HostOp], shape: Callable[[Any], Any]) -> Any:
        """Run (or replay) one builtin operation of the current thread."""
        thread = self._current
        if thread.cursor < len(thread.journal):
            entry = thread.journal[thread.cursor]
            if entry.kind != kind:
                raise self._escape(
                    EngineError(
                        f"nondeterministic script: thread {thread.label} replayed {kind} "
                        f"where its journal has {entry.kind}"
                    )
                )
            thread.cursor += 1
            if entry.halt is not None:
                raise self._stop(entry.halt)
            return entry.result
        inflight = thread.inflight
        if inflight is not None and inflight.index == thread.cursor and inflight.body is not None:
            thread.inflight = None
            body, delivery = inflight.body, self._claim(thread)
        else:
            self._claim(thread)
            body, delivery = start(), Delivery()
        value = shape(self._drive(thread, kind, body, delivery))
        thread.journal.append(_Entry(kind, value))
        thread.cursor += 1
        return value

    def _drive(self, thread: _Thread, kind: str, body: HostOp, delivery: Delivery) -> Any:
        """Step a host operation until it returns, continuing inline while this thread runs."""
        assert thread.kthread is not None
        while True:
            try:
                if delivery.error is not None:
                    operation = body.throw(delivery.error)
                else:
                    operation = body.send(delivery.value)
            except StopIteration as stop:
                return stop.value
            except ScriptHalt as halt:
                raise self._stop(str(halt)) from None
            decision = self._state.kernel.continue_inline(thread.kthread, operation)
            if decision is not None and decision.thread is thread.kthread:
                self._check_deadline()
                delivery = decision.delivery
                continue
            thread.inflight = _InFlight(kind, thread.cursor, body, _innermost(thread))
            self._pending = decision
            raise self._park()

    def _finish(self, thread: _Thread, error: str | None) -> None:
        """End a thread (outside or at the end of a pass) and queue the kernel's next choice."""
        assert thread.kthread is not None
        thread.finished = True
        thread.ended(error)
        if error is not None and thread is self._main:
            self._outcome = ScriptOutcome(error=error)
        decision = self._state.kernel.finish_inline(
            thread.kthread, None, None if error is None else RuntimeError(error)
        )
        self._state.kernel.defer(decision)

    def _unwind(self, thread: _Thread, message: str) -> None:
        """A halt in ``thread``: the innermost open ``retry`` catches it, else the thread fails."""
        while thread.retry_stack:
            retry = thread.retry_stack.pop()
            if retry.closed:
                continue
            body = self._state.retry_wait(thread.context, retry.policy)
            try:
                operation = next(body)
            except StopIteration:
                retry.closed = True
                continue
            except ScriptHalt as halt:
                retry.closed = True
                message = str(halt)
                continue
            assert thread.kthread is not None
            thread.inflight = _InFlight("retry-wait", len(thread.journal), body, retry)
            self._state.kernel.defer(self._state.kernel.continue_inline(thread.kthread, operation))
            return
        self._finish(thread, message)

    # -- builtins ----------------------------------------------------------

    def _tool(self, name: Any, args: Any) -> Any:
        thread = self._current
        return self._op(
            "call",
            lambda: self._state.call_tool(
                thread.context, thread.label, thread.attempt(), name, args
            ),
            lambda outcome: outcome.as_script_value(),
        )

    def _fail(self, message: str) -> None:
        raise self._stop("fail: " + message)

    def _call_tool(self, name: Any, args: Any, stack: str) -> Any:
        self._note("call_tool", stack)
        ok, error, output = self._tool(name, args)
        if not ok:
            raise self._stop(f"call_tool: {name}: {error}")
        return output

    def _try_call_tool(self, name: Any, args: Any, stack: str) -> Any:
        self._note("try_call_tool", stack)
        return self._tool(name, args)

    def _elicit(self, message: Any, schema: Any, stack: str) -> Any:
        self._note("elicit", stack)
        thread = self._current
        return self._op(
            "elicit", lambda: self._state.elicit(thread.context, message, schema), _same
        )

    def _log(self, message: Any, stack: str) -> None:
        self._note("log", stack)
        self._op("log", lambda: _instant(lambda: self._state.log(message)), _same)

    def _parallel_begin(self, count: int, stack: str) -> int:
        """Start (or replay starting) a group of ``count`` branches; then as
        :meth:`_next_branch`."""
        self._note("parallel", stack)
        thread = self._current
        key = thread.cursor
        if key < len(thread.journal) or (
            thread.inflight is not None and thread.inflight.index == key
        ):
            thread.group_stack.append(thread.groups[key])
            return self._next_branch()
        self._claim(thread)
        number = thread.next_parallel()
        shared = new_group(self._state, thread)
        group = _Group(shared.semaphore, shared.context)
        for index in range(count):
            path, label = thread.branch_path(number, index)
            child = _Thread(
                path=path, context=group.context, label=label, parent=thread, group=group
            )
            group.children.append(child)
            self._spawn(child)
        thread.groups[key] = group
        thread.group_stack.append(group)
        assert thread.kthread is not None
        children = tuple(c.kthread for c in group.children if c.kthread is not None)
        thread.inflight = _InFlight("parallel", key)
        self._pending = self._state.kernel.continue_inline(thread.kthread, Join(children))
        self._live = None
        return self._next_branch()

    def _next_branch(self) -> int:
        """Enter the next branch this pass runs and return its index; -1 once none is left,
        the group over (which may end the pass, or halt with the group's error)."""
        thread = self._current
        group = thread.group_stack[-1]
        pending = self._pending
        for index, child in enumerate(group.children):
            if child.path in self._entered:
                continue
            if (
                pending is not None
                and self._threads[pending.thread].path[: len(child.path)] == child.path
            ):
                return self._enter(child, index)
        if group.first_error is None and all(c.finished for c in group.children):
            for index, child in enumerate(group.children):
                if child.path not in self._entered:
                    return self._enter(child, index)
        self._parallel_end()
        return -1

    def _enter(self, child: _Thread, index: int) -> int:
        """Run ``child`` from here on: it takes (or replays taking) a slot of its group."""
        self._entered.add(child.path)
        self._current = child
        assert child.group is not None
        self._op("enter", lambda: _acquire(child.group, child), _same)  # type: ignore[arg-type]
        child.holds_slot = not child.finished
        return index

    def _branch_exit(self) -> int:
        """Leave the branch that returned; then as :meth:`_next_branch`."""
        child = self._current
        assert child.parent is not None
        self._current = child.parent
        if not child.finished:
            self._live = None
            assert child.kthread is not None
            child.finished = True
            child.ended(None)
            self._pending = self._state.kernel.finish_inline(child.kthread, None, None)
        return self._next_branch()

    def _parallel_end(self) -> None:
        thread = self._current
        group = thread.group_stack.pop()
        if thread.cursor < len(thread.journal):
            entry = thread.journal[thread.cursor]
            thread.cursor += 1
            if entry.halt is not None:
                raise self._stop(entry.halt)
            return
        pending = self._pending
        if pending is None or pending.thread is not thread.kthread:
            raise self._park()
        self._pending = None
        self._live = thread
        thread.inflight = None
        self._check_deadline()
        thread.journal.append(_Entry("parallel", None, group.first_error))
        thread.cursor += 1
        if group.first_error is not None:
            raise self._stop(group.first_error)

    def _retry_begin(self, max_attempts: Any, delay: Any, stack: str) -> int:
        self._note("retry", stack)
        thread = self._current
        key = thread.cursor
        retry = thread.retries.get(key)
        if retry is None:
            self._claim(thread)
            try:
                policy = self._state.retry_policy(max_attempts, delay, thread.next_retry_name())
            except ScriptHalt as halt:
                raise self._stop(str(halt)) from None
            retry = _Retry(policy, [key])
            thread.retries[key] = retry
            thread.retry_stack.append(retry)
            return 1
        thread.retry_stack.append(retry)
        inflight = thread.inflight
        if inflight is not None and inflight.kind == "retry-wait" and inflight.retry is retry:
            thread.cursor = inflight.index
            self._wait_then_advance(thread, retry)
            return retry.attempt
        thread.cursor = retry.attempt_starts[-1]
        return retry.attempt

    def _retry_check(self, failure: Any) -> bool:
        thread = self._current
        retry = thread.retry_stack[-1]
        if failure is None:
            retry.closed = True
            thread.retry_stack.pop()
            return True
        if not self._wait_then_advance(thread, retry):
            retry.closed = True
            thread.retry_stack.pop()
            raise self._stop(str(failure))
        return False

    def _wait_then_advance(self, thread: _Thread, retry: _Retry) -> bool:
        """Wait the backoff before the next attempt; False when none is left."""
        go_on = self._op(
            "retry-wait", lambda: self._state.retry_wait(thread.context, retry.policy), _same
        )
        if go_on:
            retry.attempt += 1
            retry.attempt_starts.append(thread.cursor)
        return bool(go_on)


def _innermost(thread: _Thread) -> _Retry | None:
    return thread.retry_stack[-1] if thread.retry_stack else None


def _same(value: Any) -> Any:
    return value


def _instant(action: Callable[[], None]) -> HostOp:
    """A host operation that completes without waiting."""
    action()
    yield from ()


def _acquire(group: ParallelGroup, child: _Thread) -> HostOp:
    try:
        yield Acquire(group.semaphore, child.context)
    except ContextError as error:
        raise ScriptHalt(str(error)) from None


class _Active(threading.local):
    """The run whose pass this thread is evaluating: the prelude's host functions act on it."""

    run: ReplayRun | None = None


_ACTIVE = _Active()

_HOST_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "_host_fail": ReplayRun._fail,
    "_host_call_tool": ReplayRun._call_tool,
    "_host_try_call_tool": ReplayRun._try_call_tool,
    "_host_elicit": ReplayRun._elicit,
    "_host_log": ReplayRun._log,
    "_host_parallel_begin": ReplayRun._parallel_begin,
    "_host_branch_exit": ReplayRun._branch_exit,
    "_host_retry_begin": ReplayRun._retry_begin,
    "_host_retry_check": ReplayRun._retry_check,
}


def _on_active_run(method: Callable[..., Any]) -> Callable[..., Any]:
    def forward(*args: Any) -> Any:
        run = _ACTIVE.run
        if run is None:
            raise EngineError("a builtin was called outside a run")
        return method(run, *args)

    return forward


@lru_cache(maxsize=1)
def _prelude() -> sl.FrozenModule:
    """The prelude, evaluated once per process (its host functions act on the active run),
    so a pass loads it instead of evaluating it again."""
    module = sl.Module()
    for name, method in _HOST_FUNCTIONS.items():
        module.add_callable(name, _on_active_run(method))
    sl.eval(module, sl.parse("<prelude>", _PRELUDE_TEXT), _PRELUDE_GLOBALS)
    return module.freeze()


_PRELUDE_LOADER = sl.FileLoader(lambda name: _prelude())


_FRAME = re.compile(r"^  \* (.+):(\d+), in .*$", re.MULTILINE)
_ERROR_AT = re.compile(r"^ *--> (.+):(\d+):\d+$", re.MULTILINE)


@lru_cache(maxsize=4096)
def _frames(stack: str) -> tuple[tuple[str, int], ...]:
    """(file, line) of each frame of a ``call_stack()`` text, outermost first."""
    return tuple((found[1], int(found[2])) for found in _FRAME.finditer(stack))


def _error_frames(text: str) -> list[tuple[str, int]]:
    """(file, line) of each frame of an error's traceback, and of where it arose."""
    found = [*_FRAME.finditer(text), *_ERROR_AT.finditer(text)]
    return [(match[1], int(match[2])) for match in found]


def _error_message(error: sl.StarlarkError) -> str:
    """The message of a Starlark error (the line after ``error: ``)."""
    for line in str(error).splitlines():
        if line.startswith("error: "):
            return line[len("error: ") :]
    return str(error).strip()


@lru_cache(maxsize=64)
def _parse_module(name: str, source: str) -> sl.AstModule:
    """A module's parse, shared by every run that loads the same source."""
    return _parse(name, source)


def _parse(filename: str, source: str) -> sl.AstModule:
    """Parse in our dialect; a ``while`` loop raises :class:`GoOnlyScript`."""
    try:
        return sl.parse(filename, source, _DIALECT)
    except sl.StarlarkError as error:
        if "reserved keyword `while`" in str(error):
            raise GoOnlyScript(
                f"{filename} uses `while`, which starlark-rust cannot parse: "
                "run it on the go engine (go.starlark.net)"
            ) from None
        raise


def start_rust(
    script: str, filename: str, modules: Mapping[str, str], limits: ScriptLimits
) -> Starter:
    """The rust engine as a :data:`~transpiler.starlark_runtime.run.Starter`.

    Raises :class:`GoOnlyScript` when the script or a module it loads uses ``while``.
    It checks the wall-clock limit every ~1000 instructions; the memory limit
    needs a process of its own (:mod:`transpiler.starlark_runtime.sandbox`).
    """
    try:
        ast = _parse(filename, script)
    except sl.StarlarkError as error:
        failed = FinishedRun(ScriptOutcome(error=f"script does not parse: {_error_message(error)}"))
        return lambda state: failed
    library = _Library(ast, modules)

    def start(state: RunState) -> EngineRun:
        run = ReplayRun(ast, filename, library, to_script(state.scenario.params), state, limits)
        run.start()
        return run

    return start
