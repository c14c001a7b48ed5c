"""Source locations, diagnostics and the error types every layer raises."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

#: What each phase a diagnostic names is: where vMCP (or Kubernetes, or our reader)
#: decides it.
PHASES: Final = MappingProxyType(
    {
        "load": "reading the file, before vMCP sees it",
        "admission": "Kubernetes admission, kubectl apply",
        "operator": "the operator's reconcile",
        "P1": "config load",
        "P2": "config validation",
        "P3": "conversion to engine types, at vmcp serve",
        "P4": "engine validation, at vmcp serve",
        "P5": "the advertise/call gate, per request",
        "P6": "execution, per call",
    }
)


def phase_text(phase: str) -> str:
    """A phase with what it is: ``P2 (config validation)``."""
    meaning = PHASES.get(phase)
    return f"{phase} ({meaning})" if meaning is not None else phase


@dataclass(frozen=True, order=True)
class SourceLocation:
    """A position in a user's file: 1-based line and column."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


UNKNOWN_LOCATION = SourceLocation("<unknown>")


class Severity(StrEnum):
    """How bad a diagnostic is."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about the input, with a stable rule id and where it was found.

    ``phase`` names the vMCP processing phase that decides it (:data:`PHASES`), so a
    user can tell "`thv vmcp validate` rejects" from "`serve` rejects at start-up".
    """

    rule: str
    message: str
    location: SourceLocation = UNKNOWN_LOCATION
    severity: Severity = Severity.ERROR
    tool: str | None = None
    step: str | None = None
    phase: str | None = None

    def render(self) -> str:
        """One line a person reads: ``file:line:col: severity[rule] (tool/step): message``."""
        where = []
        if self.tool is not None:
            where.append(f"tool {self.tool}")
        if self.step is not None:
            where.append(f"step {self.step}")
        if self.phase is not None:
            where.append(self.phase)
        context = f" ({', '.join(where)})" if where else ""
        return f"{self.location}: {self.severity.value}[{self.rule}]{context}: {self.message}"

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict with every field."""
        return {
            "rule": self.rule,
            "message": self.message,
            "severity": self.severity.value,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "tool": self.tool,
            "step": self.step,
            "phase": self.phase,
        }


class TranspilerError(Exception):
    """Base of every error the project raises on purpose (never a traceback for users)."""


class InputError(TranspilerError):
    """Input that cannot be read or parsed at all (CLI exit code 2)."""

    def __init__(self, message: str, location: SourceLocation = UNKNOWN_LOCATION) -> None:
        super().__init__(f"{location}: {message}" if location != UNKNOWN_LOCATION else message)
        self.location = location
        self.reason = message
