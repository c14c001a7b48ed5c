"""Deep recursion without Python's recursion limit.

Recursive algorithms here (the parser, the executor, tree walks) are written as
generators: a nested call is ``result = yield sub_generator(...)``. :func:`run`
drives them with an explicit stack on the heap, so a template nested
thousands of levels deep needs memory, not Python stack frames. Exceptions
propagate from callee to caller as in plain recursion.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeAlias, TypeVar

T = TypeVar("T")
Call: TypeAlias = Generator[Any, Any, T]


def run(root: Call[T]) -> T:
    """Run a generator-based recursive computation to completion."""
    stack: list[Call[Any]] = [root]
    sent: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            if error is None:
                child = top.send(sent)
            else:
                pending, error = error, None
                child = top.throw(pending)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value  # type: ignore[no-any-return]
            sent = stop.value
            continue
        except BaseException as raised:
            stack.pop()
            if not stack:
                raise
            error = raised
            continue
        stack.append(child)
        sent = None
