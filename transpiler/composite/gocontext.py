"""Go contexts with cancellation causes, and ``errgroup.Group``, on the kernel.

vMCP runs each DAG level and each forEach loop in an ``errgroup`` made by
``errgroup.WithContext``, which cancels its context *with the first error as
the cause*. The retry library returns ``context.Cause(ctx)`` when it stops for
a done context, so a retrying sibling of a failed step reports the failed
step's error, not ``context canceled``. The kernel's contexts have no causes,
so this module keeps them on top.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from transpiler.composite.errors import CANCELED, DEADLINE_EXCEEDED, GoError
from transpiler.sim.kernel import Context, Join, Kernel, Operation, Thread


class GoContext:
    """A ``context.Context`` whose explicit cancellations carry a cause."""

    def __init__(self, kernel_context: Context, parent: GoContext | None = None) -> None:
        self.kernel_context = kernel_context
        self.parent = parent
        self._cause: GoError | None = None

    @property
    def kernel(self) -> Kernel:
        """The kernel the context lives on."""
        return self.kernel_context.kernel

    @property
    def done(self) -> bool:
        """Whether ``ctx.Done()`` is closed."""
        return self.kernel_context.done

    def err(self) -> GoError | None:
        """``ctx.Err()``: nil, ``context canceled`` or ``context deadline exceeded``."""
        error = self.kernel_context.error
        if error is None:
            return None
        return DEADLINE_EXCEEDED if error.deadline else CANCELED

    def cause(self) -> GoError | None:
        """``context.Cause(ctx)``: the cause of the cancellation that reached this context."""
        error = self.err()
        if error is None or error.deadline:
            return error
        node: GoContext | None = self
        while node is not None:
            if node._cause is not None:
                return node._cause
            node = node.parent
        return CANCELED

    def child(self, deadline_ns: int | None = None) -> GoContext:
        """``context.WithCancel`` / ``WithTimeout`` of this context."""
        return GoContext(self.kernel_context.child(deadline_ns), self)

    def cancel(self, cause: GoError | None = None) -> None:
        """``cancel(cause)`` of ``WithCancelCause``; a nil cause means ``context canceled``."""
        if self.done:
            return
        self._cause = cause if cause is not None else CANCELED
        self.kernel_context.cancel()


StepBody = Generator[Operation, Any, GoError | None]


class ErrGroup:
    """``errgroup.WithContext``: the first error cancels the group's context, with that cause."""

    def __init__(self, parent: GoContext) -> None:
        self.context = parent.child()
        self.first_error: GoError | None = None
        self._threads: list[Thread] = []

    def go(self, body: StepBody, key: tuple[int, ...], name: str) -> None:
        """``g.Go(f)``: run ``body`` as a new goroutine."""
        self._threads.append(self.context.kernel.spawn(self._run(body), key, name))

    def _run(self, body: StepBody) -> Generator[Operation, Any, None]:
        error = yield from body
        if error is not None and self.first_error is None:
            self.first_error = error
            self.context.cancel(error)

    def wait(self) -> Generator[Operation, Any, GoError | None]:
        """``g.Wait()``: join every goroutine, cancel the context, return the first error.

        A goroutine that raised (a model bug or a simulation limit) re-raises here.
        """
        yield Join(tuple(self._threads))
        for thread in self._threads:
            if thread.error is not None:
                raise thread.error
        self.context.cancel(self.first_error)
        return self.first_error
