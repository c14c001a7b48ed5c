"""Text from the input made inert before it reaches a script: comment lines and string literals.

Names, ids, paths and values come from files a user (or an attacker) wrote.
In a script they may only ever be data, so every character that some reader
of the script could take for a line break, an end of file or hidden layout is
written as an escape instead of itself:

* line breaks and ends of text: ``\\n`` and ``\\r`` (go.starlark.net ends a
  comment at either), NUL (go.starlark.net reads it as the end of the file),
  NEL, U+2028 and U+2029 (YAML's extra line breaks: ``migrate`` embeds
  scripts in YAML block scalars), ``\\x0b``, ``\\x0c`` and ``\\x1c``-``\\x1e``
  (Python's ``str.splitlines``, which libcst and editors use);
* every other control character (C0, DEL, C1: not printable in YAML),
  format characters (bidirectional overrides, zero-width characters, the
  byte order mark, tag characters: text that displays as something else),
  surrogates and the Unicode noncharacters.

A comment shows such a character as ``\\xNN``, ``\\uNNNN`` or
``\\UNNNNNNNN``. A string literal writes ASCII controls as ``\\xNN`` and the
others as ``chr(N)`` pieces joined with ``+``: go.starlark.net (2021) rejects
``\\u`` escapes and starlark-rust reads ``\\xNN`` above 0x7F as a code point,
so ``chr`` is the one spelling both engines agree on. A lone surrogate has no
Starlark string value at all and is refused.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from functools import lru_cache

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
