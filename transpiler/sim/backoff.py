"""Exponential backoff as vMCP's retries compute it (cenkalti/backoff v5, S91).

Both forms use it: the composite engine's ``onError: retry`` and the Starlark
``retry()`` builtin (THV-0051 keeps the same library).

- The interval starts at ``initial``; after each wait it becomes
  ``trunc(interval * 1.5)``, capped at ``60 * initial``.
- Each wait is drawn from ``[0.5 * interval, 1.5 * interval + 1ns)``
  (randomization factor 0.5). The canonical jitter takes the centre,
  ``interval`` itself; a seeded jitter samples the range reproducibly, keyed by
  who is retrying and which attempt it is, so the draw does not depend on
  scheduling order.
- Retrying stops when ``elapsed + next wait > 15 minutes``; the last error
  stands.

Each wait also says the range its draw could have fallen in (:class:`Wait`), so
the kernel can tell when a later call could have started had vMCP drawn
otherwise.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Protocol

from transpiler.config.model import DEFAULT_RETRY_DELAY_NS

MULTIPLIER = 1.5
RANDOMIZATION_FACTOR = 0.5
MAX_INTERVAL_FACTOR = 60
MAX_ELAPSED_NS = 15 * 60 * 1_000_000_000


class Jitter(Protocol):
    """Draws one randomized wait from an interval."""

    def draw(self, interval_ns: int, who: str, attempt: int) -> int:
        """A wait in ``[interval - 0.5*interval, interval + 0.5*interval + 1ns)``."""


class CentreJitter:
    """The canonical draw: the centre of the range, i.e. the interval itself."""

    def draw(self, interval_ns: int, who: str, attempt: int) -> int:
        """Return ``interval_ns``."""
        return interval_ns


class SeededJitter:
    """A reproducible uniform draw keyed by (seed, who, attempt)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def draw(self, interval_ns: int, who: str, attempt: int) -> int:
        """Uniform in Go's range, from a hash of the key (independent of call order)."""
        digest = hashlib.sha256(f"{self._seed}/{who}/{attempt}".encode()).digest()
        fraction = int.from_bytes(digest[:8], "big") / 2**64
        delta = RANDOMIZATION_FACTOR * interval_ns
        low = interval_ns - delta
        high = interval_ns + delta
        return int(low + fraction * (high - low + 1))


CENTRE = CentreJitter()


@dataclass(frozen=True)
class Wait:
    """One wait before a retry: the one drawn, and how much shorter and longer a draw from the
    same interval could be (Go draws from ``[interval - delta, interval + delta + 1)``)."""

    ns: int
    spread: tuple[int, int]


def draw_range(interval_ns: int) -> tuple[int, int]:
    """The shortest and longest wait a draw from ``interval_ns`` can give (Go truncates the
    float it draws to whole nanoseconds)."""
    delta = RANDOMIZATION_FACTOR * interval_ns
    return int(interval_ns - delta), math.ceil(interval_ns + delta + 1) - 1


@dataclass
class Backoff:
    """The state of one retry loop's backoff."""

    initial_ns: int
    interval_ns: int = 0

    def __post_init__(self) -> None:
        if self.initial_ns <= 0:
            self.initial_ns = DEFAULT_RETRY_DELAY_NS
        self.interval_ns = self.initial_ns

    def next_wait(self, elapsed_ns: int, jitter: Jitter, who: str, attempt: int) -> Wait | None:
        """The wait before the next attempt, or None when the 15-minute budget is spent."""
        wait = jitter.draw(self.interval_ns, who, attempt)
        shortest, longest = draw_range(self.interval_ns)
        cap = MAX_INTERVAL_FACTOR * self.initial_ns
        if self.interval_ns >= cap / MULTIPLIER:
            self.interval_ns = cap
        else:
            self.interval_ns = int(self.interval_ns * MULTIPLIER)
        if elapsed_ns + wait > MAX_ELAPSED_NS:
            return None
        return Wait(wait, (wait - shortest, longest - wait))
