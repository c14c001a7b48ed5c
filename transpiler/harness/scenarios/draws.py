"""Value generators with two readings: a hypothesis strategy, and a cheap seeded draw.

``check`` draws its random scenarios in bulk from :meth:`Gen.draw` (a plain
:class:`random.Random`, about fifty times cheaper than hypothesis's engine),
and turns to :meth:`Gen.strategy` only to shrink a difference to a minimal
counterexample. One description of a scenario's shape serves both, so the two
readings cover the same values; the strategy is combinator for combinator the
hypothesis strategy ``check`` has always used.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis import strategies as st
    from hypothesis.strategies import SearchStrategy
else:

    class _Strategies:
        """hypothesis.strategies, imported when a strategy is first built (bulk draws never
        need it)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(importlib.import_module("hypothesis.strategies"), name)

    st = _Strategies()

# Characters a cheap text draws besides printable ASCII: markup, quoting,
# template and format syntax, controls, non-ASCII letters, wide and astral ones.
_SPECIAL = "\x00\t\n\r\x7f\\\"'<>&{}%$é漢字\u2028\u00a0😀"
_PRINTABLE = "".join(chr(code) for code in range(0x20, 0x7F))


class Gen:
    """A generator of values: ``strategy()`` for hypothesis, ``draw(rng)`` for bulk."""

    def strategy(self) -> SearchStrategy[Any]:
        """The hypothesis strategy over the same values."""
        raise NotImplementedError

    def draw(self, rng: Random) -> Any:
        """One value from ``rng``."""
        raise NotImplementedError

    def map(self, function: Callable[[Any], Any]) -> Gen:
        """Values passed through ``function``."""
        return _Map(self, function)


class _Map(Gen):
    def __init__(self, inner: Gen, function: Callable[[Any], Any]) -> None:
        self.inner, self.function = inner, function

    def strategy(self) -> SearchStrategy[Any]:
        return self.inner.strategy().map(self.function)

    def draw(self, rng: Random) -> Any:
        return self.function(self.inner.draw(rng))


def sampled_from(values: Sequence[Any]) -> Gen:
    """One of ``values``."""
    return _Sampled(values)


class _Sampled(Gen):
    def __init__(self, values: Sequence[Any]) -> None:
        self.values = list(values)

    def strategy(self) -> SearchStrategy[Any]:
        return st.sampled_from(self.values)

    def draw(self, rng: Random) -> Any:
        return self.values[rng.randrange(len(self.values))]


def just(value: Any) -> Gen:
    """Always ``value``."""
    return _Just(value)


class _Just(Gen):
    def __init__(self, value: Any) -> None:
        self.value = value

    def strategy(self) -> SearchStrategy[Any]:
        return st.just(self.value)

    def draw(self, rng: Random) -> Any:
        return self.value


def none() -> Gen:
    """Always None."""
    return _Just(None)


def text(min_size: int = 0, max_size: int = 8) -> Gen:
    """A string of ``min_size`` to ``max_size`` characters."""
    return _Text(min_size, max_size)


class _Text(Gen):
    def __init__(self, min_size: int = 0, max_size: int = 8) -> None:
        self.min_size, self.max_size = min_size, max_size

    def strategy(self) -> SearchStrategy[Any]:
        return st.text(min_size=self.min_size, max_size=self.max_size)

    def draw(self, rng: Random) -> Any:
        return "".join(_character(rng) for _ in range(rng.randint(self.min_size, self.max_size)))


def _character(rng: Random) -> str:
    choice = rng.random()
    if choice < 0.75:
        return _PRINTABLE[rng.randrange(len(_PRINTABLE))]
    if choice < 0.95:
        return _SPECIAL[rng.randrange(len(_SPECIAL))]
    code = rng.randrange(0x80, sys.maxunicode + 1)
    return chr(code) if not 0xD800 <= code <= 0xDFFF else "\ufffd"


def integers(low: int, high: int) -> Gen:
    """An integer in ``[low, high]``."""
    return _Integers(low, high)


class _Integers(Gen):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def strategy(self) -> SearchStrategy[Any]:
        return st.integers(self.low, self.high)

    def draw(self, rng: Random) -> Any:
        return rng.randint(self.low, self.high)


def floats(low: float, high: float) -> Gen:
    """A finite float in ``[low, high]``."""
    return _Floats(low, high)


class _Floats(Gen):
    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def strategy(self) -> SearchStrategy[Any]:
        return st.floats(self.low, self.high, allow_nan=False)

    def draw(self, rng: Random) -> Any:
        return self.low if rng.random() < 0.1 else rng.uniform(self.low, self.high)


def booleans() -> Gen:
    """True or False."""
    return _Booleans()


class _Booleans(Gen):
    def strategy(self) -> SearchStrategy[Any]:
        return st.booleans()

    def draw(self, rng: Random) -> Any:
        return rng.random() < 0.5


def one_of(*options: Gen) -> Gen:
    """A value of one of ``options``, each as likely."""
    return _OneOf(*options)


class _OneOf(Gen):
    def __init__(self, *options: Gen) -> None:
        self.options = options

    def strategy(self) -> SearchStrategy[Any]:
        return st.one_of(*(option.strategy() for option in self.options))

    def draw(self, rng: Random) -> Any:
        return self.options[rng.randrange(len(self.options))].draw(rng)


def lists(element: Gen, min_size: int = 0, max_size: int = 3) -> Gen:
    """A list of ``min_size`` to ``max_size`` elements."""
    return _Lists(element, min_size, max_size)


class _Lists(Gen):
    def __init__(self, element: Gen, min_size: int = 0, max_size: int = 3) -> None:
        self.element, self.min_size, self.max_size = element, min_size, max_size

    def strategy(self) -> SearchStrategy[Any]:
        return st.lists(self.element.strategy(), min_size=self.min_size, max_size=self.max_size)

    def draw(self, rng: Random) -> Any:
        return [self.element.draw(rng) for _ in range(rng.randint(self.min_size, self.max_size))]


def dictionaries(keys: Gen, values: Gen, max_size: int = 3) -> Gen:
    """A dict of up to ``max_size`` entries."""
    return _Dictionaries(keys, values, max_size)


class _Dictionaries(Gen):
    def __init__(self, keys: Gen, values: Gen, max_size: int = 3) -> None:
        self.keys, self.values, self.max_size = keys, values, max_size

    def strategy(self) -> SearchStrategy[Any]:
        return st.dictionaries(self.keys.strategy(), self.values.strategy(), max_size=self.max_size)

    def draw(self, rng: Random) -> Any:
        return {
            self.keys.draw(rng): self.values.draw(rng) for _ in range(rng.randint(0, self.max_size))
        }


def fixed_dictionaries(
    required: Mapping[str, Gen], optional: Mapping[str, Gen] | None = None
) -> Gen:
    """A dict with every key of ``required`` and some of ``optional``."""
    return _Fixed(required, optional)


class _Fixed(Gen):
    def __init__(
        self, required: Mapping[str, Gen], optional: Mapping[str, Gen] | None = None
    ) -> None:
        self.required, self.optional = dict(required), dict(optional or {})

    def strategy(self) -> SearchStrategy[Any]:
        return st.fixed_dictionaries(
            {key: gen.strategy() for key, gen in self.required.items()},
            optional={key: gen.strategy() for key, gen in self.optional.items()},
        )

    def draw(self, rng: Random) -> Any:
        value = {key: gen.draw(rng) for key, gen in self.required.items()}
        for key, gen in self.optional.items():
            if rng.random() < 0.5:
                value[key] = gen.draw(rng)
        return value


def tuples(*parts: Gen) -> Gen:
    """A tuple with one value of each part."""
    return _Tuples(*parts)


class _Tuples(Gen):
    def __init__(self, *parts: Gen) -> None:
        self.parts = parts

    def strategy(self) -> SearchStrategy[Any]:
        return st.tuples(*(part.strategy() for part in self.parts))

    def draw(self, rng: Random) -> Any:
        return tuple(part.draw(rng) for part in self.parts)


def builds(function: Callable[..., Any], *parts: Gen) -> Gen:
    """``function`` applied to one value of each part."""
    return tuples(*parts).map(lambda values: function(*values))


def recursive(base: Gen, extend: Callable[[Gen], Gen], max_leaves: int) -> Gen:
    """``base`` values, or ``extend`` applied to this generator, with at most ``max_leaves``."""
    return _Recursive(base, extend, max_leaves)


class _Recursive(Gen):
    def __init__(self, base: Gen, extend: Callable[[Gen], Gen], max_leaves: int) -> None:
        self.base, self.extend, self.max_leaves = base, extend, max_leaves
        self._extended = extend(_Nested(self))
        self._leaves = 0
        self._depth = 0
        # hypothesis nests ``extend`` while 2 ** (levels - 1) <= max_leaves: never deeper
        self._max_depth = 1
        while 2**self._max_depth <= max_leaves:
            self._max_depth += 1

    def strategy(self) -> SearchStrategy[Any]:
        return st.recursive(
            self.base.strategy(),
            lambda inner: self.extend(_Given(inner)).strategy(),
            max_leaves=self.max_leaves,
        )

    def draw(self, rng: Random) -> Any:
        self._leaves = self.max_leaves
        return self.nested(rng)

    def nested(self, rng: Random) -> Any:
        """A value inside the one being drawn: a leaf once the leaves or the levels run out."""
        if self._leaves <= 1 or self._depth >= self._max_depth or rng.random() < 0.5:
            self._leaves -= 1
            return self.base.draw(rng)
        self._depth += 1
        try:
            return self._extended.draw(rng)
        finally:
            self._depth -= 1


class _Nested(Gen):
    def __init__(self, owner: _Recursive) -> None:
        self.owner = owner

    def draw(self, rng: Random) -> Any:
        return self.owner.nested(rng)


class _Given(Gen):
    """A hypothesis strategy standing as a generator (``recursive``'s inner values)."""

    def __init__(self, given: SearchStrategy[Any]) -> None:
        self.given = given

    def strategy(self) -> SearchStrategy[Any]:
        return self.given
