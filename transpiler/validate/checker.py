"""The diagnostic factory P2's checks share: one tool, one path prefix."""

from __future__ import annotations

from typing import Final

from transpiler.config.model import CompositeToolConfig
from transpiler.diagnostics import Diagnostic, Severity, SourceLocation

PHASE: Final = "P2"


class Checker:
    """Builds P2 diagnostics for one tool under a prefix such as ``compositeTools[0]``."""

    def __init__(self, tool: CompositeToolConfig, prefix: str) -> None:
        self.tool = tool
        self.prefix = prefix
        self.steps_prefix = f"{prefix}.steps"

    def error(
        self, rule: str, message: str, where: SourceLocation, step: str | None = None
    ) -> Diagnostic:
        """An error attributed to this tool (and ``step``) at ``where``."""
        return Diagnostic(rule, message, where, Severity.ERROR, self.tool.name or None, step, PHASE)
