"""Argument coercion by a backend tool's ``inputSchema`` (``pkg/vmcp/schema``, S81-S83).

Only strings are converted, and only at positions whose schema ``type`` is
``integer`` (Go ``ParseInt`` base 10, giving int64), ``number`` (``ParseFloat``)
or ``boolean`` (``ParseBool``). A failed parse keeps the string silently.
``object`` schemas recurse into the properties whose schema is a map (a new
map is built; other keys are copied), ``array`` schemas into ``items`` when it
is a map. A nil or empty schema, or any other ``type`` (missing, a list,
unknown), passes the value through. ``$ref``, combinators, ``enum`` and
``default`` are ignored; a string is never parsed as JSON.
"""

from __future__ import annotations

from typing import Any

from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int
from transpiler.golang.values import NIL_MAP, GoValue, Int64, NilMap


def coerce_value(schema: Any, value: GoValue) -> GoValue:
    """``MakeSchema(schema).TryCoerce(value)``."""
    if not isinstance(schema, dict) or not schema:
        return value
    kind = schema.get("type")
    if kind == "object":
        return _coerce_object(schema, value)
    if kind == "array":
        return _coerce_array(schema, value)
    if kind in ("integer", "number", "boolean") and isinstance(value, str):
        return _coerce_string(kind, value)
    return value


def coerce_arguments(
    schema: Any, arguments: dict[str, GoValue] | None
) -> dict[str, GoValue] | None:
    """What a tool step sends: the coerced map when coercion yields one (S81 step 4).

    Absent arguments are a typed nil map in Go, which an ``object`` schema
    turns into ``{}``.
    """
    coerced = coerce_value(schema, NIL_MAP if arguments is None else arguments)
    return coerced if isinstance(coerced, dict) else arguments


def _coerce_object(schema: dict[str, Any], value: GoValue) -> GoValue:
    if not isinstance(value, dict | NilMap):
        return value
    properties = schema.get("properties")
    known = (
        {name: sub for name, sub in properties.items() if isinstance(sub, dict)}
        if isinstance(properties, dict)
        else {}
    )
    if isinstance(value, NilMap):
        return {}
    return {
        key: coerce_value(known[key], item) if key in known else item for key, item in value.items()
    }


def _coerce_array(schema: dict[str, Any], value: GoValue) -> GoValue:
    if not isinstance(value, list):
        return value
    items = schema.get("items")
    return [coerce_value(items, item) for item in value]


def _coerce_string(kind: str, text: str) -> GoValue:
    try:
        if kind == "integer":
            return Int64(parse_int(text, 10, 64))
        if kind == "number":
            return parse_float(text)
        return parse_bool(text)
    except NumError:
        return text
