"""An output property's ``default`` converted to its type, as vMCP's coerceDefaultValue does.

The default is a constant of the YAML, so the emitter converts it once and
writes the result (or the error vMCP would report) into the script (S153):

| type | default -> value |
|---|---|
| string | a string as is; anything else in Go's ``%v`` form |
| integer | an int; a float truncated (NaN or beyond int64: MinInt64); a string by ParseInt |
| number | an int or float as a float; a string by ParseFloat |
| boolean | a bool; true/True/TRUE/1 or false/False/FALSE/0 as text; an int is ``== 1`` |
| object, array | a map or list as is; a string decoded as JSON (``null``: Go's typed nil) |

Anything else is vMCP's ``cannot coerce default value <v> (type <T>) to <type>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from transpiler.golang.fmt import format_value
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.strconv import NumError, parse_float, parse_int, quote
from transpiler.golang.types import type_name

MIN_INT64 = -(2**63)
_TRUE = ("true", "True", "TRUE", "1")
_FALSE = ("false", "False", "FALSE", "0")
_CONTAINERS = {"object": (dict, "map[string]interface {}"), "array": (list, "[]interface {}")}


@dataclass(frozen=True)
class Coerced:
    """The converted default (``None`` for Go's typed nil), or vMCP's error text."""

    value: Any = None
    error: str | None = None


def coerce_default(default: Any, kind: str) -> Coerced:
    """``default`` (a YAML value, not null) converted to the property type ``kind``."""
    if kind == "string":
        return Coerced(default if isinstance(default, str) else format_value(default))
    if kind == "integer":
        return _integer(default)
    if kind == "number":
        return _number(default)
    if kind == "boolean":
        return _boolean(default)
    if kind in _CONTAINERS:
        return _container(default, kind)
    return Coerced(error=f"unsupported target type: {kind}")


def _integer(default: Any) -> Coerced:
    if isinstance(default, bool):
        return _cannot(default, "integer")
    if isinstance(default, int):
        return Coerced(default)
    if isinstance(default, float):
        in_range = not math.isnan(default) and MIN_INT64 <= default < 2.0**63
        return Coerced(math.trunc(default) if in_range else MIN_INT64)
    if isinstance(default, str):
        try:
            return Coerced(parse_int(default, 10, 64))
        except NumError as error:
            return Coerced(error=str(error))
    return _cannot(default, "integer")


def _number(default: Any) -> Coerced:
    if isinstance(default, bool):
        return _cannot(default, "number")
    if isinstance(default, int | float):
        return Coerced(float(default))
    if isinstance(default, str):
        try:
            return Coerced(parse_float(default))
        except NumError as error:
            return Coerced(error=str(error))
    return _cannot(default, "number")


def _boolean(default: Any) -> Coerced:
    if isinstance(default, bool):
        return Coerced(default)
    if isinstance(default, str):
        if default in _TRUE or default in _FALSE:
            return Coerced(default in _TRUE)
        return Coerced(error=f"cannot coerce string {quote(default)} to boolean")
    if isinstance(default, int):
        return Coerced(default == 1)
    return _cannot(default, "boolean")


def _container(default: Any, kind: str) -> Coerced:
    python_type, go_type = _CONTAINERS[kind]
    if isinstance(default, python_type):
        return Coerced(default)
    if not isinstance(default, str):
        return _cannot(default, kind)
    problem = _json_problem(default, python_type, go_type)
    if problem is not None:
        return Coerced(error=f"cannot parse default value as JSON {kind}: {problem}")
    return Coerced(unmarshal(default))


def _json_problem(text: str, python_type: type, go_type: str) -> str | None:
    """What ``json.Unmarshal(text, &target)`` reports for a map or slice target, or None.

    A syntax error comes first; then a top-level value of the wrong kind; then
    a number too large for a float64 anywhere inside (Go decodes on and
    reports it at the end).
    """
    try:
        value = unmarshal(text)
    except JSONDecodeError as error:
        if not str(error).startswith("json: cannot unmarshal number"):
            return str(error)
        top = text.lstrip(" \t\r\n")[:1]
        kind = {"{": "object", "[": "array"}.get(top, "number")
        wanted = "object" if python_type is dict else "array"
        return str(error) if kind == wanted else _mismatch(kind, go_type)
    if value is None or isinstance(value, python_type):
        return None
    return _mismatch(_json_kind(value), go_type)


def _mismatch(kind: str, go_type: str) -> str:
    return f"json: cannot unmarshal {kind} into Go value of type {go_type}"


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    return "object" if isinstance(value, dict) else "array"


def _cannot(default: Any, kind: str) -> Coerced:
    return Coerced(
        error=f"cannot coerce default value {format_value(default)} "
        f"(type {type_name(default)}) to {kind}"
    )
