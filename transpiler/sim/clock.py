"""Real time for the kernel (``serve``): its instants, and the work other threads hand it.

A :class:`~transpiler.sim.kernel.Kernel` given a clock waits for real instead of
jumping its virtual clock: between steps it sleeps until the next timer falls
due or work done elsewhere (a backend call on the event loop) is posted back,
whichever comes first. Every kernel state change happens on the kernel's own
thread: other threads only :meth:`RealClock.post` actions for it to run.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable


class RealClock:
    """Nanoseconds since the clock was made, and a queue of actions for the kernel's thread."""

    def __init__(self) -> None:
        self._start = time.monotonic_ns()
        self._posted: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def now(self) -> int:
        """Nanoseconds since the clock started."""
        return time.monotonic_ns() - self._start

    def post(self, action: Callable[[], None]) -> None:
        """Have the kernel's thread run ``action`` at its next wait (any thread may call it)."""
        self._posted.put(action)

    def wait(self, until_ns: int | None) -> None:
        """Block until instant ``until_ns`` (None: until something is posted), running what is
        posted meanwhile; return as soon as anything ran."""
        timeout = None if until_ns is None else max(until_ns - self.now(), 0) / 1e9
        try:
            action = self._posted.get(timeout=timeout)
        except queue.Empty:
            return
        action()
        self.run_posted()

    def run_posted(self) -> bool:
        """Run what has been posted, without waiting; whether anything ran."""
        ran = False
        while True:
            try:
                action = self._posted.get_nowait()
            except queue.Empty:
                return ran
            action()
            ran = True
