"""A step's ``onError: retry`` as THV-0051's ``retry(fn, max_attempts, delay)`` takes it (either
style): vMCP's attempts (its retries, capped, plus the first try) and its first backoff wait as
a Go duration string."""

from __future__ import annotations

from transpiler.config.model import WorkflowStepConfig
from transpiler.golang.duration import format_duration


def retry_policy(step: WorkflowStepConfig) -> tuple[int, str] | None:
    """``max_attempts`` and ``delay`` for an ``onError: retry`` step (None when it does not
    retry)."""
    if step.on_error is None or step.on_error.action != "retry":
        return None
    return step.on_error.retries + 1, format_duration(step.on_error.first_delay_ns)
