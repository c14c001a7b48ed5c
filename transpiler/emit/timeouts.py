"""The step deadlines a script cannot keep (the ``step-timeout`` class).

THV-0051 gives each backend call of a script a fixed 5-minute limit and the
whole tool its ``timeout`` (which ``migrate`` keeps); a step's deadline has no
counterpart. vMCP gives every step one: its ``timeout``, else 5 minutes, shared
by its attempts, retry waits and forEach iterations. A step that sets a
``timeout`` keeps a deadline no script keeps; so does one under the default
whose attempts or iterations share it (it retries, or loops), where the script
cuts each call at 5 minutes instead. Both styles declare the class for such
steps, naming them; ``check`` reports each as a finding and its scenarios
answer past the deadline and past the script's call limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.config.model import (
    DEFAULT_STEP_TIMEOUT_NS,
    CompositeToolConfig,
    WorkflowStepConfig,
)
from transpiler.deviations import Deviation
from transpiler.golang.duration import format_duration

#: The domain note every script makes of the timeouts a check leaves out.
WITHIN_TIMEOUTS = (
    "elicitations are answered within their timeouts; a step with no `timeout` of its own "
    "that neither retries nor loops ends within vMCP's default 5 minutes; backend calls may "
    f"run past any other step's deadline (`{Deviation.STEP_TIMEOUT}`); the workflow's timeout, the "
    "scripted tool's `timeout`, ends a slow run on both sides"
)


@dataclass(frozen=True)
class StepDeadline:
    """A step whose deadline a script cannot keep: its id, the deadline, whether it is the
    step's own ``timeout`` (else vMCP's default)."""

    step: str
    timeout_ns: int
    written: bool

    def text(self) -> str:
        """``30s``, or ``vMCP's default 5m0s``."""
        duration = format_duration(self.timeout_ns)
        return duration if self.written else f"vMCP's default {duration}"


def step_deadlines(tool: CompositeToolConfig) -> tuple[StepDeadline, ...]:
    """Each step calling tools with a deadline no script keeps (see the module)."""
    found = []
    for step in tool.steps:
        row = step.kind_row
        if row is None or not row.calls_tools:
            continue
        if step.timeout > 0:
            found.append(StepDeadline(step.id, step.timeout, True))
        elif row.loops or _retries(step):
            found.append(StepDeadline(step.id, DEFAULT_STEP_TIMEOUT_NS, False))
    return tuple(found)


def _retries(step: WorkflowStepConfig) -> bool:
    return step.on_error is not None and step.on_error.action == "retry"


def timeouts_text(tool: CompositeToolConfig) -> str | None:
    """The header's line for ``step-timeout``, naming the steps, or None when no step has a
    deadline a script cannot keep."""
    deadlines = step_deadlines(tool)
    if not deadlines:
        return None
    named = ", ".join(f"{deadline.step}: {deadline.text()}" for deadline in deadlines)
    which = "steps" if len(deadlines) > 1 else "step"
    return f"{Deviation.STEP_TIMEOUT.about.summary} ({which} {named})"
