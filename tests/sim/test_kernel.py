"""The discrete-event kernel: virtual time, ordering, contexts, slots, choices."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transpiler.sim.kernel import (
    Acquire,
    Context,
    ContextError,
    Join,
    Kernel,
    KernelError,
    Semaphore,
    Sleep,
    ThreadBody,
)
from transpiler.sim.schedule import Exploration, RandomChooser, explore, parse_schedule

SECOND = 1_000_000_000


def sleeper(
    kernel: Kernel, log: list[Any], name: str, delays: list[int], context: Context | None = None
) -> ThreadBody:
    for delay in delays:
        log.append((kernel.now, name, "start"))
        yield Sleep(delay, context)
    log.append((kernel.now, name, "done"))


def test_threads_interleave_by_virtual_time() -> None:
    kernel = Kernel()
    log: list[Any] = []
    kernel.spawn(sleeper(kernel, log, "a", [5 * SECOND]), (0,), "a")
    kernel.spawn(sleeper(kernel, log, "b", [1 * SECOND, 1 * SECOND]), (1,), "b")
    kernel.run()
    assert log == [
        (0, "a", "start"),
        (0, "b", "start"),
        (SECOND, "b", "start"),
        (2 * SECOND, "b", "done"),
        (5 * SECOND, "a", "done"),
    ]
    assert kernel.now == 5 * SECOND


def test_zero_sleeps_do_not_preempt_so_ties_run_in_key_order() -> None:
    kernel = Kernel()
    log: list[Any] = []
    kernel.spawn(sleeper(kernel, log, "late", [0, 0]), (1,), "late")
    kernel.spawn(sleeper(kernel, log, "early", [0, 0]), (0,), "early")
    kernel.run()
    assert [entry[1] for entry in log] == ["early"] * 3 + ["late"] * 3


def test_deadline_interrupts_sleep_and_wins_a_tie() -> None:
    kernel = Kernel()
    context = kernel.context(deadline_ns=2 * SECOND)
    outcomes: list[Any] = []

    def body(delay: int) -> ThreadBody:
        try:
            yield Sleep(delay, context)
            outcomes.append((delay, "ok", kernel.now))
        except ContextError as error:
            outcomes.append((delay, str(error), kernel.now))

    kernel.spawn(body(1 * SECOND), (0,), "short")
    kernel.spawn(body(2 * SECOND), (1,), "exact")
    kernel.spawn(body(9 * SECOND), (2,), "long")
    kernel.run()
    assert outcomes == [
        (SECOND, "ok", SECOND),
        (2 * SECOND, "context deadline exceeded", 2 * SECOND),
        (9 * SECOND, "context deadline exceeded", 2 * SECOND),
    ]


def test_cancel_wakes_waiters_and_children_inherit() -> None:
    kernel = Kernel()
    parent = kernel.context()
    child = parent.child(deadline_ns=100 * SECOND)
    seen: list[str] = []

    def waiter() -> ThreadBody:
        try:
            yield Sleep(50 * SECOND, child)
        except ContextError as error:
            seen.append(f"{kernel.now}:{error}")

    def canceller() -> ThreadBody:
        yield Sleep(3 * SECOND)
        parent.cancel()

    kernel.spawn(waiter(), (0,), "waiter")
    kernel.spawn(canceller(), (1,), "canceller")
    kernel.run()
    assert seen == [f"{3 * SECOND}:context canceled"]
    assert child.done and not child.error.deadline  # type: ignore[union-attr]


def test_semaphore_caps_concurrency() -> None:
    kernel = Kernel()
    slots = kernel.semaphore(2)
    active: list[int] = []
    peak: list[int] = [0]

    def worker(pool: Semaphore) -> ThreadBody:
        yield Acquire(pool)
        active.append(1)
        peak[0] = max(peak[0], len(active))
        yield Sleep(SECOND)
        active.pop()
        pool.release()

    for index in range(5):
        kernel.spawn(worker(slots), (index,), f"w{index}")
    kernel.run()
    assert peak[0] == 2
    assert kernel.now == 3 * SECOND


def test_join_waits_for_children_and_sees_results() -> None:
    kernel = Kernel()
    results: list[Any] = []

    def child(value: int) -> ThreadBody:
        yield Sleep(value * SECOND)
        if value == 2:
            raise ValueError("two")
        return value

    def parent() -> ThreadBody:
        children = tuple(kernel.spawn(child(v), (0, v), f"c{v}") for v in (3, 1, 2))
        yield Join(children)
        results.extend((t.value, str(t.error) if t.error else None) for t in children)
        results.append(kernel.now)

    kernel.spawn(parent(), (0,), "parent")
    kernel.run()
    assert results == [(3, None), (1, None), (None, "two"), 3 * SECOND]


def test_deadlock_is_reported() -> None:
    kernel = Kernel()
    slots = kernel.semaphore(0)

    def stuck() -> ThreadBody:
        yield Acquire(slots)

    kernel.spawn(stuck(), (0,), "stuck")
    with pytest.raises(KernelError, match="stuck"):
        kernel.run()


def run_race(chooser: Any) -> tuple[str, ...]:
    kernel = Kernel(chooser)
    order: list[str] = []

    def body(name: str) -> ThreadBody:
        order.append(name)
        yield Sleep(0)

    for index, name in enumerate("abc"):
        kernel.spawn(body(name), (index,), name)
    kernel.run()
    return tuple(order)


def test_explore_enumerates_every_start_order() -> None:
    results = list(explore(run_race, limit=100))
    summary = results[-1]
    assert summary == Exploration(schedules=6, exhaustive=True)
    orders = {r for r in results[:-1]}
    assert len(orders) == 6


def test_explore_respects_its_limit() -> None:
    results = list(explore(run_race, limit=4))
    assert results[-1] == Exploration(schedules=4, exhaustive=False)


@given(st.integers(min_value=0, max_value=2**32))
def test_random_schedules_are_reproducible(seed: int) -> None:
    assert run_race(RandomChooser(seed)) == run_race(RandomChooser(seed))


def test_parse_schedule() -> None:
    assert parse_schedule("canonical") == ("canonical", 0)
    assert parse_schedule("random:7") == ("random", 7)
    assert parse_schedule("all") == ("all", 0)
    with pytest.raises(ValueError):
        parse_schedule("sometimes")


def _windowed(kernel: Kernel, seen: dict[str, tuple[int, int, int]], name: str) -> None:
    seen[name] = (kernel.now, *kernel.window())


def test_a_random_wait_widens_the_window_of_what_follows_it() -> None:
    """A wait's spread moves every later instant of its thread; a thread that waits for it
    (joined) or for its slot takes the later bounds; one that does not keeps its own."""
    kernel = Kernel()
    seen: dict[str, tuple[int, int, int]] = {}
    slot = kernel.semaphore(1)

    def jittered() -> ThreadBody:
        yield Acquire(slot)
        yield Sleep(2 * SECOND, spread=(SECOND, SECOND))
        _windowed(kernel, seen, "after the wait")
        slot.release()

    def waiting_for_the_slot() -> ThreadBody:
        yield Acquire(slot)
        _windowed(kernel, seen, "slot taken")
        slot.release()

    def unrelated() -> ThreadBody:
        yield Sleep(3 * SECOND)
        _windowed(kernel, seen, "unrelated")

    def main() -> ThreadBody:
        threads = (
            kernel.spawn(jittered(), (1,), "jittered"),
            kernel.spawn(waiting_for_the_slot(), (2,), "slot"),
            kernel.spawn(unrelated(), (3,), "unrelated"),
        )
        yield Join(threads)
        _windowed(kernel, seen, "joined")
        yield Sleep(SECOND)
        _windowed(kernel, seen, "a second later")

    kernel.spawn(main(), (0,), "main")
    kernel.run()
    assert seen == {
        "after the wait": (2 * SECOND, SECOND, 3 * SECOND),
        "slot taken": (2 * SECOND, SECOND, 3 * SECOND),
        "unrelated": (3 * SECOND, 3 * SECOND, 3 * SECOND),
        "joined": (3 * SECOND, 3 * SECOND, 3 * SECOND),
        "a second later": (4 * SECOND, 4 * SECOND, 4 * SECOND),
    }


def test_a_thread_joined_after_it_ended_still_bounds_the_joiner() -> None:
    """A thread that ended before the join was asked for might have ended later: the joiner
    takes its latest bound all the same; a thread spawned starts in its spawner's window."""
    kernel = Kernel()
    seen: dict[str, tuple[int, int, int]] = {}

    def short() -> ThreadBody:
        yield Sleep(SECOND, spread=(0, 4 * SECOND))

    def main() -> ThreadBody:
        done = kernel.spawn(short(), (1,), "short")
        yield Sleep(2 * SECOND)
        yield Join((done,))
        _windowed(kernel, seen, "joined")
        child = kernel.spawn(short(), (2,), "child")
        assert (child.earliest, child.latest) == kernel.window()

    kernel.spawn(main(), (0,), "main")
    kernel.run()
    assert seen == {"joined": (2 * SECOND, 2 * SECOND, 5 * SECOND)}


def test_a_deadline_or_a_cancel_ends_a_wait_in_its_setters_window() -> None:
    kernel = Kernel()
    seen: dict[str, tuple[int, int, int]] = {}
    root = kernel.context()

    def canceller(context: Context) -> ThreadBody:
        yield Sleep(SECOND, spread=(SECOND // 2, SECOND // 2))
        context.cancel()

    def waiter(context: Context, name: str) -> ThreadBody:
        try:
            yield Sleep(10 * SECOND, context)
        except ContextError:
            _windowed(kernel, seen, name)

    def main() -> ThreadBody:
        yield Sleep(SECOND, spread=(0, SECOND))
        timed = root.child(kernel.now + SECOND)
        cancelled = root.child()
        yield Join(
            (
                kernel.spawn(waiter(timed, "deadline"), (1,), "deadline"),
                kernel.spawn(waiter(cancelled, "cancelled"), (2,), "cancelled"),
                kernel.spawn(canceller(cancelled), (3,), "canceller"),
            )
        )

    kernel.spawn(main(), (0,), "main")
    kernel.run()
    assert seen["deadline"] == (2 * SECOND, 2 * SECOND, 3 * SECOND)
    assert seen["cancelled"] == (2 * SECOND, 3 * SECOND // 2, 7 * SECOND // 2)
