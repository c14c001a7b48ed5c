"""A discrete-event kernel: virtual time, threads, Go-style contexts, semaphores.

Both forms of a tool run on it: the composite model (each step a thread) and
the Starlark runtimes (each ``parallel`` branch a thread). Nothing sleeps:
waiting advances a virtual clock in integer nanoseconds, so a run with a
30-minute timeout takes milliseconds and repeats exactly.

Scheduling rules (the same for every form):

- A thread runs until it blocks on an operation (:class:`Sleep`,
  :class:`Acquire`, :class:`Join`). An operation that can complete at once
  (zero sleep, free slot, finished threads, context already done) does not
  yield: the thread goes on without a scheduling decision.
- When several threads are ready at the same virtual instant, the
  :class:`~transpiler.sim.schedule.Chooser` picks one; the canonical chooser
  takes the smallest ``key`` (declaration order).
- At one instant, context deadlines fire before sleeps end: work that would
  finish exactly at a deadline is cancelled (Go's deadline is "at or after").

Given a :class:`~transpiler.sim.clock.RealClock` instead, the same kernel runs on
real time: ``now`` is the time since the run started, a sleep or a deadline
waits that long, and :class:`Await` blocks a thread on work done outside the
kernel (a real backend call) while the other threads go on, so the calls of
several threads are in flight together. This is how ``serve`` runs scripts.

Each thread also carries the window its present instant could fall in had
every random wait (vMCP's retry jitter, a :class:`Sleep` with a ``spread``)
drawn otherwise: ``earliest`` and ``latest``, equal to ``now`` where nothing
random came before. A wait adds its spread; a thread woken by another
(a slot released, threads joined, a context ended) takes the later of its own
window and the waker's, bound by bound (interval arithmetic over the max-plus
algebra of a schedule: exact where times only add up and take maxima).
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from transpiler.sim.clock import RealClock
from transpiler.sim.schedule import CANONICAL, Chooser

_DEADLINE_PRIORITY = 0
_SLEEP_PRIORITY = 1


class ContextError(Exception):
    """A Go context error: ``context canceled`` or ``context deadline exceeded``."""

    def __init__(self, deadline: bool) -> None:
        super().__init__("context deadline exceeded" if deadline else "context canceled")
        self.deadline = deadline


class Halt(Exception):
    """Raised in a thread to end the whole run at once, every other thread where it stands."""


class KernelError(Exception):
    """A bug in a model running on the kernel (e.g. every thread blocked forever)."""


@dataclass(frozen=True)
class Delivery:
    """What a blocked thread receives when it resumes: a value or an error."""

    value: Any = None
    error: BaseException | None = None

    def resume(self, body: Generator[Any, Any, Any]) -> Any:
        """Send the value into ``body`` (or throw the error): what it yields next; raises
        StopIteration when it returns, and whatever it raises."""
        if self.error is not None:
            return body.throw(self.error)
        return body.send(self.value)


@dataclass(frozen=True)
class Sleep:
    """Wait ``duration_ns`` of virtual time; a done context interrupts the wait. ``spread``:
    how much shorter and longer the wait could have been (a random draw's range)."""

    duration_ns: int
    context: Context | None = None
    spread: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Acquire:
    """Take one slot of ``semaphore``; a done context gives up waiting."""

    semaphore: Semaphore
    context: Context | None = None


@dataclass(frozen=True)
class Join:
    """Wait until every thread in ``threads`` has finished."""

    threads: tuple[Thread, ...]


@dataclass(frozen=True)
class Await:
    """Wait for ``future`` (work outside the kernel, on a real clock only): the thread
    resumes with its result, or its exception; a done context interrupts the wait (the
    future is left to whoever started it to cancel)."""

    future: Future[Any]
    context: Context | None = None


Operation: TypeAlias = Sleep | Acquire | Join | Await


@dataclass(frozen=True)
class Blocked:
    """The thread stopped at ``operation``."""

    operation: Operation


@dataclass(frozen=True)
class Finished:
    """The thread returned ``value``."""

    value: Any


@dataclass(frozen=True)
class Failed:
    """The thread ended with ``error``."""

    error: BaseException


@dataclass(frozen=True)
class Parked:
    """The thread already handed its operation to the kernel (see ``continue_inline``)."""


StepOutcome: TypeAlias = Blocked | Finished | Failed | Parked


class Runner(Protocol):
    """Runs a thread's code from where it stopped until it blocks or ends."""

    def step(self, delivery: Delivery) -> StepOutcome:
        """Resume with ``delivery``; return why the thread stopped."""


ThreadBody: TypeAlias = Generator[Operation, Any, Any]


class GeneratorRunner:
    """A thread whose code is a Python generator yielding operations."""

    def __init__(self, body: ThreadBody) -> None:
        self._body = body

    def step(self, delivery: Delivery) -> StepOutcome:
        """Send the delivery into the generator (or throw its error)."""
        try:
            operation = delivery.resume(self._body)
        except StopIteration as stop:
            return Finished(stop.value)
        except Exception as error:
            return Failed(error)
        return Blocked(operation)


@dataclass(eq=False)
class Thread:
    """A simulated goroutine."""

    name: str
    key: tuple[Any, ...]
    runner: Runner
    #: The window of the thread's present instant (see the module's docstring).
    earliest: int = 0
    latest: int = 0
    done: bool = False
    value: Any = None
    error: BaseException | None = None
    _joiners: list[Thread] = field(default_factory=list)
    _join_pending: list[Thread] | None = None
    #: How many of ``_join_pending`` have not finished (counted down as each finishes).
    _join_left: int = 0
    _token: int = 0

    def __repr__(self) -> str:
        return f"Thread({self.name})"


def _thread_key(thread: Thread) -> tuple[Any, ...]:
    return thread.key


@dataclass(frozen=True)
class Decision:
    """The kernel's choice of what runs next."""

    thread: Thread
    delivery: Delivery


class Context:
    """A Go ``context.Context``: cancellation and an optional deadline, inherited by children."""

    deadline_ns: int | None

    def __init__(self, kernel: Kernel, parent: Context | None, deadline_ns: int | None) -> None:
        if parent is not None and parent.deadline_ns is not None:
            deadline_ns = (
                parent.deadline_ns if deadline_ns is None else min(deadline_ns, parent.deadline_ns)
            )
        self.kernel = kernel
        self.deadline_ns = deadline_ns
        self.error: ContextError | None = None
        #: When the deadline could fall (the creator's window, moved to the deadline), and
        #: once the context is done, when its end could have fallen.
        self.window = kernel.window_at(deadline_ns)
        if parent is not None and parent.deadline_ns == deadline_ns:
            self.window = parent.window
        self._children: list[Context] = []
        self._waiters: list[tuple[Thread, int]] = []
        if parent is not None:
            if parent.error is not None:
                self.error = parent.error
            else:
                parent._children.append(self)
        if self.error is None and deadline_ns is not None:
            if deadline_ns <= kernel.now:
                self.error = ContextError(deadline=True)
            else:
                kernel._add_timer(deadline_ns, _DEADLINE_PRIORITY, self._expire)

    @property
    def done(self) -> bool:
        """Whether the context is cancelled or past its deadline."""
        return self.error is not None

    def child(self, deadline_ns: int | None = None) -> Context:
        """A derived context (``WithCancel``/``WithDeadline``)."""
        return Context(self.kernel, self, deadline_ns)

    def remaining_ns(self) -> int | None:
        """Time left before the deadline (None when there is none)."""
        return None if self.deadline_ns is None else self.deadline_ns - self.kernel.now

    def cancel(self) -> None:
        """Cancel this context and its children (a no-op when already done)."""
        self._finish(ContextError(deadline=False), self.kernel.window_at(self.kernel.now))

    def _expire(self) -> None:
        self._finish(ContextError(deadline=True), self.window)

    def _finish(self, error: ContextError, window: tuple[int, int]) -> None:
        if self.error is not None:
            return
        self.error = error
        self.window = window
        waiters, self._waiters = self._waiters, []
        for thread, token in waiters:
            self.kernel._wake(thread, token, Delivery(error=error), window)
        children, self._children = self._children, []
        for child in children:
            child._finish(error, window)

    def _watch(self, thread: Thread, token: int) -> None:
        self._waiters.append((thread, token))


class Semaphore:
    """A counting semaphore with FIFO waiters (a Go buffered channel used as a slot pool)."""

    def __init__(self, kernel: Kernel, capacity: int) -> None:
        self.kernel = kernel
        self.capacity = capacity
        self.held = 0
        self._waiters: deque[tuple[Thread, int, Context | None]] = deque()

    def release(self) -> None:
        """Give a slot back; the first still-waiting thread takes it."""
        while self._waiters:
            thread, token, context = self._waiters.popleft()
            if thread._token != token or (context is not None and context.done):
                continue
            self.kernel._wake(thread, token, Delivery(), self.kernel.window_at(self.kernel.now))
            return
        self.held -= 1


class Kernel:
    """Virtual clock, ready set, timers, and the scheduling loop."""

    def __init__(self, chooser: Chooser = CANONICAL, clock: RealClock | None = None) -> None:
        self.now = 0
        self.chooser = chooser
        self.clock = clock
        self._awaited: set[Future[Any]] = set()
        self._ready: dict[Thread, Delivery] = {}
        #: The ready threads ordered by key (ties in the order they became ready).
        self._ready_order: list[Thread] = []
        self._timers: list[tuple[int, int, int, Callable[[], None]]] = []
        self._sequence = 0
        self._threads: list[Thread] = []
        self._deferred: Decision | None = None
        self.halted: Halt | None = None
        #: The thread running now (None before the first runs).
        self.current: Thread | None = None

    def context(self, deadline_ns: int | None = None) -> Context:
        """A root context (``context.Background`` with an optional deadline)."""
        return Context(self, None, deadline_ns)

    def semaphore(self, capacity: int) -> Semaphore:
        """A new slot pool."""
        return Semaphore(self, capacity)

    def window(self) -> tuple[int, int]:
        """The window of the present instant of the thread running now (see the module's
        docstring): earliest and latest, in virtual nanoseconds."""
        return self.window_at(self.now)

    def window_at(self, instant: int | None) -> tuple[int, int]:
        """The window of ``instant`` as the thread running now reaches it (the present, or a
        deadline set from it)."""
        at = self.now if instant is None else instant
        thread = self.current
        if thread is None:
            return (at, at)
        return (thread.earliest + at - self.now, thread.latest + at - self.now)

    def spawn(self, runner: Runner | ThreadBody, key: tuple[Any, ...], name: str) -> Thread:
        """Start a thread; it becomes ready at the current instant, in its spawner's window."""
        if isinstance(runner, Generator):
            runner = GeneratorRunner(runner)
        earliest, latest = self.window()
        thread = Thread(name=name, key=key, runner=runner, earliest=earliest, latest=latest)
        self._threads.append(thread)
        self._make_ready(thread, Delivery())
        return thread

    def run(self) -> None:
        """Run until every thread has finished."""
        while self.halted is None:
            decision = self._deferred or self._decide()
            self._deferred = None
            if decision is None:
                stuck = [t.name for t in self._threads if not t.done]
                if stuck:
                    raise KernelError(f"every thread is blocked forever: {', '.join(stuck)}")
                return
            self._step(decision.thread, decision.delivery)

    def continue_inline(self, thread: Thread, operation: Operation) -> Decision | None:
        """Hand over ``thread``'s operation from inside its own step and decide what runs next.

        For runners that cannot suspend mid-step (the replaying Starlark
        runner): when the returned decision is for ``thread`` it simply goes
        on; otherwise the runner must call :meth:`defer` with the decision and
        return :class:`Parked`.
        """
        immediate = self._block(thread, operation)
        if immediate is not None:
            return Decision(thread, immediate)
        return self._decide()

    def finish_inline(
        self, thread: Thread, value: Any, error: BaseException | None
    ) -> Decision | None:
        """End ``thread`` from inside a step and decide what runs next (see ``continue_inline``)."""
        self._finish(thread, value, error)
        return self._decide()

    def defer(self, decision: Decision | None) -> None:
        """Make ``decision`` (from :meth:`continue_inline`) the next thing the loop runs."""
        self._deferred = decision

    def _step(self, thread: Thread, delivery: Delivery) -> None:
        self.current = thread
        while True:
            outcome = thread.runner.step(delivery)
            if isinstance(outcome, Finished):
                self._finish(thread, outcome.value, None)
                return
            if isinstance(outcome, Failed):
                self._finish(thread, None, outcome.error)
                return
            if isinstance(outcome, Parked):
                return
            immediate = self._block(thread, outcome.operation)
            if immediate is None:
                return
            delivery = immediate

    def _finish(self, thread: Thread, value: Any, error: BaseException | None) -> None:
        if isinstance(error, Halt) and self.halted is None:
            self.halted = error
        thread.done = True
        thread.value = value
        thread.error = error
        joiners, thread._joiners = thread._joiners, []
        for joiner in joiners:
            self._wake_joiner(joiner)

    def _wake_joiner(self, joiner: Thread) -> None:
        pending = joiner._join_pending
        if pending is None:
            return
        joiner._join_left -= 1
        if joiner._join_left == 0:
            joiner._join_pending = None
            window = (max(t.earliest for t in pending), max(t.latest for t in pending))
            self._wake(joiner, joiner._token, Delivery(), window)

    def _block(self, thread: Thread, operation: Operation) -> Delivery | None:
        """Register a blocking operation; return a delivery when it completes at once."""
        thread._token += 1
        token = thread._token
        if isinstance(operation, Sleep):
            context = operation.context
            if context is not None and context.error is not None:
                return Delivery(error=context.error)
            if operation.duration_ns <= 0:
                return Delivery()
            shorter, longer = operation.spread
            ended = (
                thread.earliest + operation.duration_ns - shorter,
                thread.latest + operation.duration_ns + longer,
            )
            self._add_timer(
                self.now + operation.duration_ns,
                _SLEEP_PRIORITY,
                lambda: self._wake(thread, token, Delivery(), ended, own=True),
            )
            if context is not None:
                context._watch(thread, token)
            return None
        if isinstance(operation, Acquire):
            return self._acquire(thread, token, operation)
        if isinstance(operation, Await):
            return self._await(thread, token, operation)
        for joined in (t for t in operation.threads if t.done):  # it might have ended later
            thread.earliest = max(thread.earliest, joined.earliest)
            thread.latest = max(thread.latest, joined.latest)
        pending = [t for t in operation.threads if not t.done]
        if not pending:
            return Delivery()
        thread._join_pending = pending
        thread._join_left = len(pending)
        for other in pending:
            other._joiners.append(thread)
        return None

    def _acquire(self, thread: Thread, token: int, operation: Acquire) -> Delivery | None:
        semaphore, context = operation.semaphore, operation.context
        free = semaphore.held < semaphore.capacity
        if context is not None and context.error is not None:
            # Go's select picks at random between "slot free" and "cancelled".
            if (
                free
                and self.chooser.choose("select-slot-or-cancel", ("cancelled", "slot")) == "slot"
            ):
                semaphore.held += 1
                return Delivery()
            return Delivery(error=context.error)
        if free:
            semaphore.held += 1
            return Delivery()
        semaphore._waiters.append((thread, token, context))
        if context is not None:
            context._watch(thread, token)
        return None

    def _await(self, thread: Thread, token: int, operation: Await) -> Delivery | None:
        if self.clock is None:
            raise KernelError("a thread awaits outside work on a virtual clock")
        context, future = operation.context, operation.future
        if context is not None and context.error is not None:
            return Delivery(error=context.error)
        if future.done():
            return outcome_of(future)
        self._awaited.add(future)
        clock = self.clock

        def arrived(done: Future[Any]) -> None:
            # Called on whichever thread finished the work: the kernel's thread takes it on.
            clock.post(lambda: self._arrived(thread, token, done))

        future.add_done_callback(arrived)
        if context is not None:
            context._watch(thread, token)
        return None

    def _arrived(self, thread: Thread, token: int, future: Future[Any]) -> None:
        self._awaited.discard(future)
        self._wake(thread, token, outcome_of(future), (self.now, self.now), own=True)

    def _wake(
        self,
        thread: Thread,
        token: int,
        delivery: Delivery,
        window: tuple[int, int],
        own: bool = False,
    ) -> None:
        """Make ``thread`` ready, in ``window``: its own (``own``: the end of its wait), or a
        waker's, of which it takes the later bounds with its own."""
        if thread._token != token or thread.done or thread in self._ready:
            return
        thread._token += 1
        if own:
            thread.earliest, thread.latest = window
        else:
            thread.earliest = max(thread.earliest, window[0])
            thread.latest = max(thread.latest, window[1])
        self._make_ready(thread, delivery)

    def _make_ready(self, thread: Thread, delivery: Delivery) -> None:
        self._ready[thread] = delivery
        bisect.insort_right(self._ready_order, thread, key=_thread_key)

    def _add_timer(self, at_ns: int, priority: int, action: Callable[[], None]) -> None:
        self._sequence += 1
        heapq.heappush(self._timers, (at_ns, priority, self._sequence, action))

    def _decide(self) -> Decision | None:
        if self.clock is not None:
            self.now = self.clock.now()
            self._fire_due()
        if not self._ready:
            self._fire_next_instant()
        if not self._ready:
            return None
        candidates = self._ready_order
        chosen = (
            candidates[0]
            if len(candidates) == 1
            else self.chooser.choose("ready-thread", tuple(candidates))
        )
        del candidates[candidates.index(chosen)]
        self.current = chosen  # whoever asked runs it next (the loop, or a runner inline)
        return Decision(chosen, self._ready.pop(chosen))

    def _fire_next_instant(self) -> None:
        if all(thread.done for thread in self._threads):
            return
        if self.clock is not None:
            self._wait_real()
            return
        while self._timers and not self._ready:
            instant = self._timers[0][0]
            self.now = max(self.now, instant)
            while self._timers and self._timers[0][0] == instant:
                _, _, _, action = heapq.heappop(self._timers)
                action()

    def _wait_real(self) -> None:
        """On a real clock: wait until a thread is ready (outside work arrived, or a timer
        fell due), or nothing is left to wait for."""
        assert self.clock is not None
        while not self._ready and (self._timers or self._awaited):
            self.clock.wait(self._timers[0][0] if self._timers else None)
            self.now = self.clock.now()
            self._fire_due()

    def _fire_due(self) -> None:
        """Fire every timer due by now, deadlines before sleeps at each instant."""
        while self._timers and self._timers[0][0] <= self.now:
            _, _, _, action = heapq.heappop(self._timers)
            action()


def outcome_of(future: Future[Any]) -> Delivery:
    """What a thread awaiting a finished ``future`` receives."""
    if future.cancelled():
        return Delivery(error=ContextError(deadline=False))
    error = future.exception()
    return Delivery(error=error) if error is not None else Delivery(value=future.result())
