"""Text from the input or from a script made inert wherever it is shown: one home for the rules.

Names, ids, paths, values and script messages come from files a user (or an
attacker) wrote. Wherever they appear (a script's comments and string
literals, the console, the Markdown, JUnit XML and JSON reports) they may
only ever be data, so every character that some reader could take for a line
break, an end of file or hidden layout is written as an escape instead of
itself:

* line breaks and ends of text: ``\\n`` and ``\\r`` (go.starlark.net ends a
  comment at either), NUL (go.starlark.net reads it as the end of the file),
  NEL, U+2028 and U+2029 (YAML's extra line breaks: ``migrate`` embeds
  scripts in YAML block scalars), ``\\x0b``, ``\\x0c`` and ``\\x1c``-``\\x1e``
  (Python's ``str.splitlines``, which libcst and editors use);
* every other control character (C0, DEL, C1: not printable in YAML, and
  terminal commands on a console), format characters (bidirectional
  overrides, zero-width characters, the byte order mark, tag characters: text
  that displays as something else), surrogates and the Unicode
  noncharacters. This also covers every character XML 1.0 forbids.

Text is shown as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN`` in a comment, a
console line or a report. A string literal writes ASCII controls as ``\\xNN``
and the others as ``chr(N)`` pieces joined with ``+``: go.starlark.net (2021)
rejects ``\\u`` escapes and starlark-rust reads ``\\xNN`` above 0x7F as a code
point, so ``chr`` is the one spelling both engines agree on. A lone surrogate
has no Starlark string value at all and is refused.

Reports copy at most :data:`REPORT_TEXT_CHARS` of any one text, and Markdown
shows it inert: code blocks fenced with more backticks than any run inside,
code spans likewise, table cells with ``|`` escaped, prose (never at the start
of a line) with every character that starts markup escaped: no link, image,
HTML, heading or cell can form.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from functools import lru_cache
from typing import Any

from transpiler.diagnostics import TranspilerError

_UNSAFE_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class UnrepresentableValue(TranspilerError):
    """A value with no Starlark equivalent (a lone surrogate, a map with non-string keys)."""


@lru_cache(maxsize=4096)
def unsafe(char: str) -> bool:
    """Whether ``char`` must not appear as itself in a script."""
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return False
    noncharacter = 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE
    return noncharacter or unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def comment_text(text: str) -> str:
    """``text`` for the inside of one comment line: every unsafe character escaped."""
    if not any(unsafe(char) for char in text):
        return text
    return "".join(_escape(char) if unsafe(char) else char for char in text)


def comment_lines(text: str) -> list[str]:
    """``text`` as the bodies of comment lines: split at ``\\n`` only, each line made inert."""
    return [comment_text(line) for line in text.split("\n")]


def string_literal(text: str) -> str:
    """A Starlark expression for the string ``text``: a literal, or literals joined with chr()."""
    if text.isascii() and text.isprintable():  # only the backslash and the quote need escapes
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    pieces: list[str] = []
    current = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            current.append(_SHORT_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            current.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise UnrepresentableValue(f"string contains an unpaired surrogate U+{code:04X}")
        elif unsafe(char):
            if len(current) > 1:
                pieces.append("".join(current) + '"')
            current = ['"']
            pieces.append(f"chr({code})")
        else:
            current.append(char)
    if len(current) > 1 or not pieces:
        pieces.append("".join(current) + '"')
    if len(pieces) == 1:
        return pieces[0]
    return "(" + " + ".join(pieces) + ")"


def has_unsafe_text(value: object) -> bool:
    """Whether any string in ``value`` (dataclasses, dicts, lists, tuples) holds an unsafe char."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any(unsafe(char) for char in item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | frozenset | set):
            pending.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            pending.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return False


# -- what people read: the console and the reports -------------------------------------------

#: The most characters of one text (a message, a value, a reason) a report or the console copies.
REPORT_TEXT_CHARS = 4096
#: What starts markup inside a Markdown line (emphasis, code, links, images, HTML, entities,
#: strike-through, table cells); what starts it at a line's beginning cannot come first.
_MARKUP = frozenset("\\`*_[]<>&~|!#")


def clipped(text: str, limit: int = REPORT_TEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}[... {len(text) - limit} more characters]"


def clipped_data(value: Any) -> Any:
    """JSON data with every string (keys too) clipped: what a JSON report copies."""
    if isinstance(value, str):
        return clipped(value)
    if isinstance(value, dict):
        return {clipped(str(key)): clipped_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clipped_data(item) for item in value]
    return value


def one_line(text: str) -> str:
    """``text`` clipped and on one line: line breaks and every other unsafe character escaped."""
    return comment_text(clipped(text))


def shown_lines(text: str) -> str:
    """``text`` with its lines kept apart at ``\\n``, each clipped and made inert."""
    return "\n".join(one_line(line) for line in text.split("\n"))


def _longest_run(text: str, char: str) -> int:
    longest = current = 0
    for found in text:
        current = current + 1 if found == char else 0
        longest = max(longest, current)
    return longest


def markdown_block(text: str) -> str:
    """A fenced Markdown code block showing ``text`` (made inert as by :func:`shown_lines`); its
    fence is longer than any run of backticks inside, so nothing in it can close it."""
    body = shown_lines(text)
    fence = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{fence}\n{body}\n{fence}"


def markdown_code(text: str, *, cell: bool = False) -> str:
    """An inline Markdown code span showing ``text`` on one line; in a table ``cell``, ``|`` is
    escaped too (GitHub splits cells at it even inside code)."""
    body = one_line(text)
    if cell:
        body = body.replace("|", "\\|")
    ticks = "`" * (_longest_run(body, "`") + 1)
    pad = " " if body.startswith(("`", " ")) or body.endswith(("`", " ")) or not body else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def markdown_text(text: str) -> str:
    """``text`` as Markdown prose inside a line: every character that starts markup escaped."""
    return "".join("\\" + char if char in _MARKUP else char for char in one_line(text))
