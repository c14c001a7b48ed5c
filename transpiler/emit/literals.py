"""Values from the YAML as Starlark source literals that no input can break out of.

Strings are double-quoted with backslash escapes for quotes, backslashes and
ASCII control characters (``\\xNN``, which both interpreters read the same);
everything else is written as itself, because go.starlark.net (2021) rejects
``\\u`` escapes. Floats use the shortest digits that round-trip.
"""

from __future__ import annotations

import math
from typing import Any

from transpiler.diagnostics import TranspilerError
from transpiler.golang.values import NilList, NilMap

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class UnrepresentableValue(TranspilerError):
    """A YAML value with no Starlark equivalent (e.g. a map with non-string keys)."""


def string_literal(text: str) -> str:
    """A Starlark string literal for ``text``."""
    parts = ['"']
    for char in text:
        if char in _ESCAPES:
            parts.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            parts.append(f"\\x{ord(char):02x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            raise UnrepresentableValue(f"string contains an unpaired surrogate U+{ord(char):04X}")
        else:
            parts.append(char)
    parts.append('"')
    return "".join(parts)


def float_literal(value: float) -> str:
    """A Starlark float literal that reads back as exactly ``value``."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("+inf")' if value > 0 else 'float("-inf")'
    text = repr(value)
    return text if any(c in text for c in ".en") else text + ".0"


def literal(value: Any) -> str:
    """Starlark source for a JSON-like Go value (one line; layout is the caller's job)."""
    if value is None or isinstance(value, NilMap | NilList):
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return float_literal(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{string_literal(str(k))}: {literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise UnrepresentableValue(f"no Starlark literal for a {type(value).__name__} value")
