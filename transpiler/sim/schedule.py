"""Schedules: how the kernel resolves choices that Go leaves to chance.

Where vMCP is nondeterministic (which ready goroutine runs first, Go's
``select`` between a free slot and a cancelled context, ties in "last
completed step"), the model asks a :class:`Chooser`. The canonical chooser
always takes the first option (options come in declaration order); a random
chooser samples; an exploring chooser enumerates every combination of choices
depth-first, so a harness can tell a real divergence from a race vMCP has.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Chooser(Protocol):
    """Resolves one nondeterministic choice."""

    def choose(self, label: str, options: Sequence[T]) -> T:
        """Pick one of ``options`` (never empty) for the choice named ``label``."""


class CanonicalChooser:
    """Always the first option: the declaration-order schedule."""

    def choose(self, label: str, options: Sequence[T]) -> T:
        """The first option."""
        return options[0]


CANONICAL = CanonicalChooser()


class RandomChooser:
    """Seeded random choices: one reproducible sample of vMCP's schedules."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def choose(self, label: str, options: Sequence[T]) -> T:
        """A uniformly random option."""
        return options[self._random.randrange(len(options))]


class ScriptedChooser:
    """Follows a prefix of choice indices, then takes the first option; records the trail.

    With no prefix it chooses as the canonical chooser does, and ``branched`` tells
    whether the run met a real choice (else it is the only schedule there is).
    """

    def __init__(self, prefix: Sequence[int] = ()) -> None:
        self._prefix = prefix
        self.trail: list[tuple[int, int]] = []

    @property
    def branched(self) -> bool:
        """Whether some choice had more than one option."""
        return any(count > 1 for count, _ in self.trail)

    def choose(self, label: str, options: Sequence[T]) -> T:
        position = len(self.trail)
        index = self._prefix[position] if position < len(self._prefix) else 0
        index = min(index, len(options) - 1)
        self.trail.append((len(options), index))
        return options[index]


@dataclass(frozen=True)
class Exploration:
    """How many schedules an exhaustive exploration ran, and whether it finished."""

    schedules: int
    exhaustive: bool


def explore(
    run: Callable[[Chooser], R], limit: int, first: tuple[R, ScriptedChooser] | None = None
) -> Iterator[R | Exploration]:
    """Run ``run`` once per distinct sequence of choices, depth-first, up to ``limit`` runs.

    Yields each run's result, then one :class:`Exploration` summary. ``first``
    is a run already made with ``ScriptedChooser()`` (the canonical choices),
    and its chooser: it stands for the first run instead of making it again.
    """
    prefix: list[int] = []
    count = 0
    while count < limit:
        if first is not None and count == 0:
            result, chooser = first
        else:
            chooser = ScriptedChooser(prefix)
            result = run(chooser)
        yield result
        count += 1
        trail = chooser.trail
        position = len(trail) - 1
        while position >= 0 and trail[position][1] + 1 >= trail[position][0]:
            position -= 1
        if position < 0:
            yield Exploration(count, exhaustive=True)
            return
        prefix = [index for _, index in trail[:position]] + [trail[position][1] + 1]
    yield Exploration(count, exhaustive=False)


def parse_schedule(text: str) -> tuple[str, int]:
    """Parse ``canonical``, ``random:SEED`` or ``all`` into (kind, seed)."""
    if text in ("canonical", "all"):
        return text, 0
    kind, _, seed = text.partition(":")
    if kind == "random" and seed.lstrip("-").isdigit():
        return "random", int(seed)
    raise ValueError(f"unknown schedule {text!r}: use canonical, random:SEED or all")
