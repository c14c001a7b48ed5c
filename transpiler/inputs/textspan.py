"""Line arithmetic over the text being rewritten, the regions YAML entries occupy, and splices.

A region is a run of whole lines: an entry of a block mapping runs from its
key to the end of the line holding its last content character (a trailing
comment on that line goes with it); blank and comment lines after it belong
to whatever follows.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from transpiler.inputs.yamlspan import SpanKind, SpanNode


class Unrewritable(Exception):
    """A layout the text splicer does not rewrite (the reason is the message)."""


@dataclass(frozen=True)
class Splice:
    """Replace ``text[start:end]`` by ``replacement`` (an insertion when ``start == end``)."""

    start: int
    end: int
    replacement: str


class Text:
    """A file's text with line lookups; ``newline`` is the file's line ending."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0, *(i + 1 for i, char in enumerate(text) if char == "\n")]
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def line_start(self, offset: int) -> int:
        """Offset of the start of the line holding ``offset``."""
        return self._starts[bisect.bisect_right(self._starts, offset) - 1]

    def line_end(self, offset: int) -> int:
        """Offset just past the line ending of the line holding ``offset`` (or the text's end)."""
        index = bisect.bisect_right(self._starts, offset)
        return self._starts[index] if index < len(self._starts) else len(self.text)

    def line_text(self, offset: int) -> str:
        """The line holding ``offset``, without its line ending."""
        return self.text[self.line_start(offset) : self.line_end(offset)].rstrip("\r\n")

    def previous_line(self, line_start: int) -> int | None:
        """Start of the line before the one starting at ``line_start``."""
        return None if line_start == 0 else self.line_start(line_start - 1)

    def content_end(self, node: SpanNode) -> int:
        """Offset just past the last character of ``node`` that is not trailing blank space."""
        if node.kind is SpanKind.SCALAR and node.style in ("|", ">"):
            return self._block_scalar_end(node)
        if node.kind in (SpanKind.MAPPING, SpanKind.SEQUENCE) and not node.flow:
            ends = [self.content_end(child) for child in node.children]
            return max(ends, default=node.start)
        return node.end

    def _block_scalar_end(self, node: SpanNode) -> int:
        body = self.text[node.start : node.end]
        return node.start + len(body.rstrip(" \t\r\n"))

    def entry_end(self, key: SpanNode, value: SpanNode) -> int:
        """End of the region of a block-mapping entry: past the line of its last content."""
        last = max(self.content_end(value), key.end)
        return self.line_end(max(last - 1, key.start))

    def adjust(self, text: str) -> str:
        """``text`` (written with ``\\n``) in the file's line ending."""
        return text if self.newline == "\n" else text.replace("\n", self.newline)

    def is_comment_line(self, line_start: int) -> bool:
        """Whether the line starting at ``line_start`` holds only a comment."""
        return self.line_text(line_start).lstrip().startswith("#")

    def comments_above(self, line_start: int, floor: int) -> int:
        """Start of the comment lines directly above ``line_start`` (no blank line between).

        Never goes above ``floor`` (the end of whatever precedes).
        """
        start = line_start
        while True:
            previous = self.previous_line(start)
            if previous is None or previous < floor or not self.is_comment_line(previous):
                return start
            start = previous


def dash_offset(text: Text, item: SpanNode) -> int:
    """Offset of the ``-`` that introduces a block-sequence item."""
    index = item.start - 1
    while index >= 0 and text.text[index] in " \t\r\n":
        index -= 1
    if index < 0 or text.text[index] != "-":
        raise Unrewritable("a list item without its '-' indicator where expected")
    return index


def indent_step(mapping: SpanNode, default: int = 2) -> int:
    """How far the file indents a nested block mapping under ``mapping``'s keys."""
    for node in mapping.walk():
        for key, value in node.pairs():
            if value.kind is SpanKind.MAPPING and not value.flow and value.line > key.line:
                return max(value.column - key.column, 1)
    return default


def apply_splices(text: str, splices: Iterable[Splice]) -> str:
    """``text`` with every splice applied; splices must not overlap."""
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    parts: list[str] = []
    position = 0
    for splice in ordered:
        if splice.start < position:
            raise Unrewritable("two edits overlap (a bug in the rewriter)")
        parts.append(text[position : splice.start])
        parts.append(splice.replacement)
        position = splice.end
    parts.append(text[position:])
    return "".join(parts)


def reindent(block: str, delta: int) -> str:
    """Shift every non-blank line of ``block`` by ``delta`` columns."""
    if delta == 0:
        return block
    lines = block.split("\n")
    shifted = []
    for line in lines:
        if not line.strip():
            shifted.append(line)
        elif delta > 0:
            shifted.append(" " * delta + line)
        else:
            cut = min(-delta, len(line) - len(line.lstrip(" ")))
            shifted.append(line[cut:])
    return "\n".join(shifted)
