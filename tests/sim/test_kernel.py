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
