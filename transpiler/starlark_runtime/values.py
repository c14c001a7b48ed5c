"""Values crossing between the host (Go values) and a script (Starlark values).

The host follows vMCP's shipped Go-to-Starlark conversion
(pkg/script/internal/conversions): a whole float64 below 2**53 becomes a
Starlark ``int``, so JSON ``3`` and ``3.0`` both reach a script as ``3``;
other floats stay floats. Back from the script, an ``int`` becomes an int64
(or, beyond int64, its decimal text) and a dict key that is not a string is
printed with ``%v``.
"""

from __future__ import annotations

import math
from typing import Any

_SAFE_INTEGER = 2**53
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def to_script(value: Any) -> Any:
    """A Go value (JSON-shaped) as the script receives it."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value == math.trunc(value) and abs(value) < _SAFE_INTEGER:
            return int(value)
        return value
    if isinstance(value, dict):
        return {str(k): to_script(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_script(v) for v in value]
    return None


def from_script(value: Any) -> Any:
    """A value a script passed to a builtin or returned, as a Go value."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return value if _INT64_MIN <= value <= _INT64_MAX else str(value)
    if isinstance(value, dict):
        return {_key_text(k): from_script(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [from_script(v) for v in value]
    return str(value)


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "True" if key else "False"
    return str(key)
