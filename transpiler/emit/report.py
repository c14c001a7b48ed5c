"""What an emitted script claims: its domain, the quirks it keeps, where it differs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from transpiler.diagnostics import SourceLocation


@dataclass(frozen=True)
class Note:
    """One statement about a script, tied to the step it concerns.

    ``kind`` is ``domain`` (an assumption equivalence depends on), ``quirk`` (a
    vMCP behaviour reproduced on purpose), ``deviation`` (a difference from
    vMCP: ``requested`` when the user asked for it with ``--fix``) or
    ``warning``.
    """

    kind: str
    name: str
    text: str
    step: str | None = None
    location: SourceLocation | None = None
    requested: bool = False

    def render(self) -> str:
        """One line for a header comment or a report."""
        where = f" (step {self.step})" if self.step is not None else ""
        return f"{self.text}{where}"

    def to_json(self) -> dict[str, object]:
        """The note as JSON."""
        return {
            "kind": self.kind,
            "name": self.name,
            "text": self.text,
            "step": self.step,
            "location": None if self.location is None else str(self.location),
            "requested": self.requested,
        }


@dataclass(frozen=True)
class SourceMapEntry:
    """Lines of the script that implement one part of the workflow."""

    first_line: int
    last_line: int
    part: str
    step: str | None
    location: SourceLocation | None

    def to_json(self) -> dict[str, object]:
        """The entry as JSON."""
        return {
            "lines": [self.first_line, self.last_line],
            "part": self.part,
            "step": self.step,
            "location": None if self.location is None else str(self.location),
        }


@dataclass(frozen=True)
class EmitResult:
    """A migrated script and everything said about it.

    ``modules`` are the Starlark modules the script loads (name -> source):
    whoever runs it passes them to ``run_starlark(..., modules=...)`` or puts
    them on vMCP's library path. Empty for a self-contained script.
    """

    tool: str
    script: str
    source_map: tuple[SourceMapEntry, ...]
    notes: tuple[Note, ...]
    style: str = "exact"
    modules: Mapping[str, str] = field(default_factory=dict, hash=False)

    def to_json(self) -> dict[str, object]:
        """The result as JSON: script, the modules it loads (names), source map and notes."""
        return {
            "tool": self.tool,
            "style": self.style,
            "script": self.script,
            "modules": sorted(self.modules),
            "source_map": [entry.to_json() for entry in self.source_map],
            "notes": [note.to_json() for note in self.notes],
        }

    def of_kind(self, kind: str) -> tuple[Note, ...]:
        """The notes of one kind, in emission order."""
        return tuple(note for note in self.notes if note.kind == kind)

    @property
    def domain(self) -> tuple[Note, ...]:
        """Assumptions under which the script behaves exactly like the workflow."""
        return self.of_kind("domain")

    @property
    def quirks(self) -> tuple[Note, ...]:
        """vMCP behaviours the script reproduces on purpose."""
        return self.of_kind("quirk")

    @property
    def deviations(self) -> tuple[Note, ...]:
        """Where the script behaves differently from vMCP."""
        return self.of_kind("deviation")

    @property
    def declared(self) -> frozenset[str]:
        """The deviation classes (``transpiler.deviations``) the script may exhibit."""
        return frozenset(note.name for note in self.deviations)

    @property
    def warnings(self) -> tuple[Note, ...]:
        """Things a reviewer should look at."""
        return self.of_kind("warning")
