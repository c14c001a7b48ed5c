"""The tool's result in a readable script: the output block as a dict, or the final step.

vMCP renders each output property as text and parses it by the property's
type (S152); a readable script returns the value itself. A property read
from one field with a ``default`` becomes ``x.get("field", default)``, the
default converted by the property's type as vMCP converts it (S153); a
property whose value is fixed when the script is written (a field no step
has) is the constant vMCP produces.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from transpiler.config.model import OutputConfig, OutputProperty
from transpiler.deviations import Deviation
from transpiler.emit.ir import (
    Attribute,
    Cond,
    Expr,
    Paren,
    Precedence,
    Str,
    call,
    dict_of,
    json_literal,
    precedence,
)
from transpiler.emit.readable.state import State
from transpiler.emit.readable.templates import NotReadable
from transpiler.emit.readable.values import MISSING, Kind, Val, go_text, plain
from transpiler.golang.fmt import format_value
from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int

NO_VALUE = "<no value>"
_EXPECTED = {
    "integer": Kind.NUM,
    "number": Kind.NUM,
    "boolean": Kind.BOOL,
    "string": Kind.STR,
    "object": Kind.MAP,
    "array": Kind.LIST,
}


def output_dict(state: State, config: OutputConfig) -> Expr:
    """The output block as a dict literal."""
    state.in_output = True
    try:
        return _properties(state, config.properties)
    finally:
        state.in_output = False


def _properties(state: State, properties: Mapping[str, OutputProperty]) -> Expr:
    items: list[tuple[str, Expr]] = []
    for key, definition in properties.items():
        if definition.value:
            items.append((key, _property(state, definition)))
        elif definition.properties:
            items.append((key, _properties(state, definition.properties)))
        else:
            raise NotReadable(f"output property {key} has neither value nor properties")
    return dict_of(items)


def _has_default(default: Any) -> bool:
    return not (default is None or (isinstance(default, dict | list) and not default))


def _property(state: State, definition: OutputProperty) -> Expr:
    kind = definition.type
    compiler = state.compiler()
    value = compiler.value(definition.value)
    has_default = _has_default(definition.default)
    if value.constant:
        return json_literal(plain(_constant(definition, value.const, has_default)))
    if value.kind is not _EXPECTED.get(kind):
        state.declare(Deviation.OUTPUT_RENDERING)
    if kind in ("object", "array"):
        if value.encodes is not None:
            value = value.encodes
        elif value.kind in (Kind.STR, Kind.ANY):
            value = Val(call("json.decode", value.code()), Kind.ANY)
    elif value.encodes is not None:  # the property is `json.encode`'s text, as in an argument
        state.declare(Deviation.JSON_TEXT, Deviation.RUST_ENGINE)
    if kind == "string" and value.kind is Kind.BOOL:
        test = value.code()
        if precedence(test) < Precedence.ATOM:
            test = Paren(test)
        return Cond(Str("true"), test, Str("false"))
    if has_default and value.base is not None and value.key is not None:
        fallback = json_literal(plain(_default(definition.default, kind)))
        return call(Attribute(value.base.code(), "get"), Str(value.key), fallback)
    return value.code()


def _constant(definition: OutputProperty, held: Any, has_default: bool) -> Any:
    """What vMCP builds for a property whose template always gives the same value."""
    text = go_text(held)
    if text == NO_VALUE and has_default:
        return _default(definition.default, definition.type)
    parsed = _parse(text, definition.type)
    if parsed is _FAILED:
        if has_default:
            return _default(definition.default, definition.type)
        raise NotReadable(f"output property of type {definition.type} always fails to build")
    return parsed


_FAILED = object()


def _parse(text: str, kind: str) -> Any:
    try:
        if kind == "string":
            return text
        if kind == "integer":
            return parse_int(text, 10, 64)
        if kind == "number":
            return parse_float(text)
        if kind == "boolean":
            return parse_bool(text)
        decoded = json.loads(text)
    except (NumError, ValueError):
        return _FAILED
    if decoded is None:
        return None
    expected = dict if kind == "object" else list
    return decoded if isinstance(decoded, expected) else _FAILED


def _default(default: Any, kind: str) -> Any:
    """vMCP's conversion of a default to the property type (S153)."""
    if kind == "string":
        return default if isinstance(default, str) else format_value(default)
    if kind == "integer" and isinstance(default, int | float) and not isinstance(default, bool):
        return int(default) if not isinstance(default, float) or math.isfinite(default) else None
    if kind == "number" and isinstance(default, int | float) and not isinstance(default, bool):
        return float(default)
    if kind == "boolean" and isinstance(default, bool):
        return default
    if kind in ("object", "array") and isinstance(default, dict | list):
        return default
    if isinstance(default, str):
        parsed = _parse(default, kind) if kind != "boolean" else _bool_default(default)
        if parsed is not _FAILED:
            return parsed
    raise NotReadable(f"a default of type {type(default).__name__} for a {kind} property")


def _bool_default(text: str) -> Any:
    if text in ("true", "True", "TRUE", "1"):
        return True
    if text in ("false", "False", "FALSE", "0"):
        return False
    return _FAILED


__all__ = ["MISSING", "output_dict"]
