"""The deviation classes a script declares: the ``Where it differs from vMCP`` block of its header.

Every script says for itself how it may differ from its workflow, whoever wrote it, and
``check`` holds it to exactly that. The syntax, which the emitter writes and people edit::

    # Where it differs from vMCP (see docs/deviations.md):
    #   - missing-value: anything after the colon is prose
    #     and may go on, indented deeper than the dash
    #   - error-text

The block stands in the script's leading comments (before its first line of code). Its
title is a comment starting ``Where it differs from vMCP`` (or ``Where it behaves
differently from vMCP``, as earlier exact scripts wrote it); each item is a comment
``- CLASS`` or ``- CLASS: text``; a line that is neither an item nor indented deeper than
the item's dash ends the block. No block, no classes. An item naming no known class is an
error, not a class quietly left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from transpiler.deviations import Deviation, named

#: The block's title as the emitter writes it.
TITLE: Final = "Where it differs from vMCP (see docs/deviations.md):"
_TITLES: Final = ("Where it differs from vMCP", "Where it behaves differently from vMCP")
_ITEM = re.compile(r"^#(?P<indent>\s*)-\s+(?P<id>[^\s:]+)\s*(?::.*)?$")
_CONTINUATION = re.compile(r"^#(?P<indent>\s*)\S")


@dataclass(frozen=True)
class Declaration:
    """What a script's header declares: each class with its 1-based line, and items that name no
    known class (line and text)."""

    lines: dict[Deviation, int]
    unknown: tuple[tuple[int, str], ...] = ()
    title_line: int | None = None

    @property
    def classes(self) -> frozenset[Deviation]:
        """The declared classes."""
        return frozenset(self.lines)

    def problem(self) -> str | None:
        """Why the declaration cannot be taken as it is, or None."""
        if not self.unknown:
            return None
        named = "; ".join(f"line {line}: {text!r}" for line, text in self.unknown)
        return (
            f"the script's header names no known deviation class ({named}); "
            f"known: {', '.join(Deviation)}"
        )


def declared_in(script: str) -> Declaration:
    """The declaration in ``script``'s leading comments (see the module docstring)."""
    lines: dict[Deviation, int] = {}
    unknown: list[tuple[int, str]] = []
    title_line: int | None = None
    item_indent: int | None = None
    for number, raw in enumerate(script.splitlines(), start=1):
        line = raw.rstrip()
        if line and not line.startswith("#"):
            break  # the first line of code ends the header
        if title_line is None:
            if line[1:].strip().startswith(_TITLES):
                title_line = number
            continue
        item = _ITEM.match(line)
        continuation = _CONTINUATION.match(line)
        if item is not None and item_indent in (None, len(item["indent"])):
            item_indent = len(item["indent"])
            deviation = named(item["id"])
            if deviation is not None:
                lines.setdefault(deviation, number)
            else:
                unknown.append((number, line[1:].strip()))
        elif not (
            item_indent is not None
            and continuation is not None
            and len(continuation["indent"]) > item_indent
        ):
            break  # anything else ends the block
    return Declaration(lines, tuple(unknown), title_line)


def header_item(deviation: Deviation) -> str:
    """The header line that declares ``deviation``, as a person would add it."""
    return f"#   - {deviation.render()}"
