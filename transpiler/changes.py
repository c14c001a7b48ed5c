"""Reviewed changes: what a change does to what each script is held to, as every report shows it.

Under ``check --baseline-git REV`` (and in the pre-commit hook, against ``HEAD``) the gate
compares what each tool is held to at REV with what the change leaves: its record (the
composite tool its script is certified against), its script and the classes the script's
header declares, and the policy. Each difference is one reviewed change, in the spirit of
``terraform plan`` and snapshot tests: a line on the console, an annotation in
``--format github``, a section of the Markdown report and an entry of the JSON report.
:mod:`transpiler.gate.review` computes them; this module is their vocabulary (the kinds, what
the policy's ``changes:`` may make of each) and their rendering.

A reviewed change passes by default (``allow``: a notice); the policy may make a kind a
warning (``warn``) or a failure (``deny``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from transpiler.inert import markdown_block, markdown_code, markdown_text, one_line


class ChangeKind(StrEnum):
    """What a change did to what a tool is held to."""

    RECORD = "record"
    RENAME = "rename"
    RETIRE = "retire"
    ADD = "add"
    MIGRATE = "migrate"
    WIDEN = "widen"
    NARROW = "narrow"
    POLICY = "policy"

    @property
    def meaning(self) -> str:
        """What the kind means, in a few words."""
        return _MEANINGS[self]


_MEANINGS = {
    ChangeKind.RECORD: "a tool's record (the composite tool its script is certified against) "
    "edited, or a composite tool put beside a recorded script",
    ChangeKind.RENAME: "a tool renamed: its record and its script moved together",
    ChangeKind.RETIRE: "a tool retired: its script and its record removed together, or a "
    "composite tool removed",
    ChangeKind.ADD: "a tool added",
    ChangeKind.MIGRATE: "a composite tool replaced by a scripted tool, or back",
    ChangeKind.WIDEN: "a script's header declares more deviation classes",
    ChangeKind.NARROW: "a script's header declares fewer deviation classes",
    ChangeKind.POLICY: "the policy file changed",
}


class Level(StrEnum):
    """What the gate makes of a kind of change (the policy's ``changes:``)."""

    ALLOW = "allow"
    WARN = "warn"
    DENY = "deny"

    @property
    def command(self) -> str:
        """The GitHub workflow command that shows a change of this level."""
        return {Level.ALLOW: "notice", Level.WARN: "warning", Level.DENY: "error"}[self]

    @property
    def word(self) -> str:
        """How the console's line for a change of this level starts."""
        return {Level.ALLOW: "CHANGE", Level.WARN: "WARN", Level.DENY: "FAIL"}[self]


_ORDER = (Level.ALLOW, Level.WARN, Level.DENY)


def strictest(levels: Sequence[Level]) -> Level:
    """The strictest of ``levels`` (``allow`` when there are none)."""
    return max(levels, key=_ORDER.index, default=Level.ALLOW)


@dataclass(frozen=True)
class Change:
    """One reviewed change: its kind, the tools it names, one line saying it (the names in it),
    where a reviewer looks (a file and, when known, a line of the work tree), what shows it
    (an entry's YAML diff, the old record's verdict...), its level, and data for the JSON
    report."""

    kind: ChangeKind
    tools: tuple[str, ...]
    summary: str
    file: str
    line: int | None = None
    details: tuple[str, ...] = ()
    level: Level = Level.ALLOW
    data: Mapping[str, Any] = field(default_factory=dict)

    def console(self) -> str:
        """The change's line on the console."""
        return f"{self.level.word}  {self.kind:>7}  {one_line(self.summary)}"

    @property
    def title(self) -> str:
        """A short title naming the tools and the kind (an annotation's)."""
        names = " -> ".join(self.tools) if self.kind is ChangeKind.RENAME else ", ".join(self.tools)
        return f"{names or self.file}: {self.kind}"

    def to_json(self) -> dict[str, Any]:
        """The change as the JSON report holds it."""
        return {
            "kind": str(self.kind),
            "level": str(self.level),
            "tools": list(self.tools),
            "summary": self.summary,
            "file": self.file,
            "line": self.line,
            "details": list(self.details),
            **self.data,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Change:
        """The change a JSON report holds (:meth:`to_json`'s inverse); ValueError, KeyError or
        TypeError when the entry is not one."""
        named = {"kind", "level", "tools", "summary", "file", "line", "details"}
        line = entry["line"]
        if line is not None and not isinstance(line, int):
            raise TypeError("line")
        return cls(
            ChangeKind(entry["kind"]),
            tuple(str(tool) for tool in entry["tools"]),
            str(entry["summary"]),
            str(entry["file"]),
            line,
            tuple(str(detail) for detail in entry["details"]),
            Level(entry["level"]),
            {key: value for key, value in entry.items() if key not in named},
        )


def failing(changes: Sequence[Change]) -> list[Change]:
    """The changes the policy denies."""
    return [change for change in changes if change.level is Level.DENY]


def markdown_section(changes: Sequence[Change], revision: str) -> str:
    """The Markdown report's section of reviewed changes (empty when there are none); every text
    from the input made inert."""
    if not changes:
        return ""
    lines = [f"## Changes since {markdown_code(revision)}", ""]
    for change in changes:
        lines.append(
            f"- **{change.level.word}** {markdown_code(change.kind)}: "
            f"{markdown_text(change.summary)}"
        )
        if change.details:
            block = markdown_block("\n".join(one_line(line) for line in change.details))
            lines += ["", "  " + block.replace("\n", "\n  ")]
    return "\n".join(lines) + "\n"
