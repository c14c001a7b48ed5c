"""Go type names and kinds of the values templates handle.

Besides the shared value kinds (``values``), template execution produces a
few more Go values: ``uint8`` (indexing a string), ``complex128`` (imaginary
literals) and Python ``complex`` holds the latter.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from transpiler.golang.values import AnyKeyMap, GoTime, Int64, NilList, NilMap

MAP_TYPE = "map[string]interface {}"
LIST_TYPE = "[]interface {}"
ANY_KEY_MAP_TYPE = "map[interface {}]interface {}"
INTERFACE_TYPE = "interface {}"


class Uint8(int):
    """A Go ``uint8``: what ``index`` returns for a string."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Uint8({int(self)})"


class Uint64(int):
    """A Go ``uint64`` (only seen inside a ``time.Time`` printed as a struct)."""

    __slots__ = ()


class Kind(Enum):
    """The ``reflect.Kind`` families templates distinguish."""

    BOOL = "bool"
    INT = "int"
    UINT = "uint"
    FLOAT = "float"
    COMPLEX = "complex"
    STRING = "string"
    MAP = "map"
    SLICE = "slice"
    STRUCT = "struct"


def kind_of(value: Any) -> Kind:
    """The kind of a non-nil Go value."""
    if isinstance(value, bool):
        return Kind.BOOL
    if isinstance(value, Uint8 | Uint64):
        return Kind.UINT
    if isinstance(value, int):
        return Kind.INT
    if isinstance(value, float):
        return Kind.FLOAT
    if isinstance(value, complex):
        return Kind.COMPLEX
    if isinstance(value, str):
        return Kind.STRING
    if isinstance(value, dict | NilMap | AnyKeyMap):
        return Kind.MAP
    if isinstance(value, list | NilList):
        return Kind.SLICE
    if isinstance(value, GoTime):
        return Kind.STRUCT
    raise TypeError(f"not a Go value: {type(value).__name__}")


def type_name(value: Any) -> str:
    """Go's ``reflect.Type.String()`` of a non-nil value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Uint8):
        return "uint8"
    if isinstance(value, Uint64):
        return "uint64"
    if isinstance(value, Int64):
        return "int64"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict | NilMap):
        return MAP_TYPE
    if isinstance(value, list | NilList):
        return LIST_TYPE
    if isinstance(value, AnyKeyMap):
        return ANY_KEY_MAP_TYPE
    if isinstance(value, GoTime):
        return "time.Time"
    raise TypeError(f"not a Go value: {type(value).__name__}")
