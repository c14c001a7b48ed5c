"""The step timeouts a script cannot keep (the ``step-timeout`` class).

THV-0051 gives each backend call of a script a fixed 5-minute limit and the
whole tool its ``timeout`` (which ``migrate`` keeps); a step's own ``timeout`` has no
counterpart. Both styles declare the class for a workflow whose tool or
forEach steps set one, naming them, and ``check`` reports each as a finding.
"""

from __future__ import annotations

from transpiler.config.model import STEP_FOR_EACH, STEP_TOOL, CompositeToolConfig
from transpiler.deviations import CLASSES, STEP_TIMEOUT_CLASS
from transpiler.golang.duration import format_duration

#: The domain note every script makes of the timeouts a check leaves out.
WITHIN_TIMEOUTS = (
    "elicitations are answered within their timeouts; a step with no `timeout` of its own "
    "ends, every attempt included, within vMCP's default 5 minutes; backend calls may run "
    "past a step's own `timeout` (`step-timeout`); the workflow's timeout, the scripted "
    "tool's `timeout`, ends a slow run on both sides"
)


def step_timeouts(tool: CompositeToolConfig) -> tuple[tuple[str, str], ...]:
    """Each tool or forEach step that sets a ``timeout``: its id and the duration."""
    return tuple(
        (step.id, format_duration(step.timeout))
        for step in tool.steps
        if step.timeout > 0 and step.effective_type in (STEP_TOOL, STEP_FOR_EACH)
    )


def timeouts_text(tool: CompositeToolConfig) -> str | None:
    """The header's line for ``step-timeout``, naming the steps, or None when no step sets a
    timeout."""
    steps = step_timeouts(tool)
    if not steps:
        return None
    named = ", ".join(f"{step}: {duration}" for step, duration in steps)
    which = "steps" if len(steps) > 1 else "step"
    return f"{CLASSES[STEP_TIMEOUT_CLASS].summary} ({which} {named})"
