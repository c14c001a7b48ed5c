"""Values from the YAML as Starlark source literals that no input can break out of.

Strings are made inert by :mod:`transpiler.inert`; floats use the
shortest digits that round-trip.
"""

from __future__ import annotations

import math
from typing import Any

from transpiler.golang.values import NilList, NilMap
from transpiler.inert import UnrepresentableValue, string_literal

__all__ = ["UnrepresentableValue", "float_literal", "literal", "string_literal"]


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
