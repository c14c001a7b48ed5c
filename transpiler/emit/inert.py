"""Text from a workflow made inert before it reaches a script's comments.

A comment ends at a line break, and the two Starlark engines disagree on what
breaks a line (go.starlark.net also ends lines at ``\\r``; some readers treat
U+2028 and other separators as breaks; NUL ends a file for go.starlark.net).
So every character outside printable ASCII and ordinary letters is written as
a ``\\uXXXX`` escape: a comment line can never end early, whatever the input.
"""

from __future__ import annotations

import unicodedata

_SAFE_CATEGORIES = frozenset(
    {
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "Mn",
        "Mc",
        "Nd",
        "Nl",
        "No",
        "Pc",
        "Pd",
        "Ps",
        "Pe",
        "Pi",
        "Pf",
        "Po",
        "Sm",
        "Sc",
        "Sk",
        "So",
    }
)


def comment_text(text: str) -> str:
    """``text`` with every character that could end or hide a comment line escaped."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        printable = char == " " or 0x21 <= code <= 0x7E
        if printable or (code > 0x7F and unicodedata.category(char) in _SAFE_CATEGORIES):
            out.append(char)
        else:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "".join(out)
