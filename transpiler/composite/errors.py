"""Go errors as the composite model passes them around: text plus one chain fact.

vMCP's client text depends on ``errors.Is(err, context.DeadlineExceeded)``
(S161), so an error remembers whether its ``%w`` chain still holds a deadline
error. Wrapping with ``%w`` keeps that fact; wrapping with ``%v`` drops it
(vMCP's template and condition errors use ``%v``).
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.sim.kernel import ContextError


@dataclass(frozen=True)
class GoError:
    """One Go ``error`` value: its ``Error()`` text and whether it wraps DeadlineExceeded."""

    text: str
    deadline: bool = False

    def wrap(self, prefix: str) -> GoError:
        """``fmt.Errorf("<prefix>: %w", err)``: the chain is kept."""
        return GoError(f"{prefix}: {self.text}", self.deadline)

    def wrap_text(self, prefix: str) -> GoError:
        """``fmt.Errorf("<prefix>: %v", err)``: the text only, the chain is cut."""
        return GoError(f"{prefix}: {self.text}")


CANCELED = GoError("context canceled")
DEADLINE_EXCEEDED = GoError("context deadline exceeded", deadline=True)


def from_context_error(error: ContextError) -> GoError:
    """The Go value of a kernel context error."""
    return DEADLINE_EXCEEDED if error.deadline else CANCELED
