"""Values during template execution, beyond the shared Go value kinds.

``MISSING`` is Go's invalid ``reflect.Value``: a missing map key, an unset
result. ``None`` is a nil ``interface {}`` (a JSON null held in a map or
list); the two differ in Go (``.a.b`` through a missing ``a`` is ``<no
value>``, through a null ``a`` an error), so they differ here.
"""

from __future__ import annotations

from typing import Any, Final

from transpiler.golang.runes import go_bytes
from transpiler.golang.types import kind_of
from transpiler.golang.values import AnyKeyMap, GoTime, NilList, NilMap


class Missing:
    """Go's zero ``reflect.Value``."""

    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing()


def is_nil(value: Any) -> bool:
    """MISSING, a nil interface, or a typed nil map or slice."""
    return value is MISSING or value is None or isinstance(value, NilMap | NilList)


def truth(value: Any) -> bool:
    """Go template truthiness (``isTrue``): false for zero values and empties (S74)."""
    if value is MISSING or value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | complex):
        return value != 0
    if isinstance(value, str | dict | list):
        return len(value) > 0
    if isinstance(value, AnyKeyMap):
        return len(value.items) > 0
    if isinstance(value, NilMap | NilList):
        return False
    return isinstance(value, GoTime)


def reflect_kind(value: Any) -> str:
    """The ``reflect.Kind`` family name used by ``eq``'s nil rules."""
    if value is MISSING or value is None:
        return "invalid"
    return kind_of(value).value


def string_bytes_less(left: str, right: str) -> bool:
    """Go's ``<`` on strings: byte order."""
    if left.isascii() and right.isascii():
        return left < right
    return go_bytes(left) < go_bytes(right)
