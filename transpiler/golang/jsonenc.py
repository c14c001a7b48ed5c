"""Go's ``encoding/json.Marshal`` of template values (S78), as vMCP's ``json`` uses it.

No whitespace, map keys sorted by bytes, HTML-escaped strings with Go 1.22+
escapes (``\\b``, ``\\f``), floats in ES6 style, nil containers as ``null``.
NaN, infinities, ``map[any]any`` and complex numbers are errors with Go's text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from transpiler.golang.runes import RAW_BYTE_ESCAPES, sorted_strings
from transpiler.golang.strconv import format_float
from transpiler.golang.timefmt import time_rfc3339_nano
from transpiler.golang.types import type_name
from transpiler.golang.values import AnyKeyMap, GoTime, NilList, NilMap

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


#: Every character :func:`encode_string` does not copy as it is: the escapes above, the other
#: control characters, and the surrogate escapes of raw bytes (see ``runes.escaped_byte``).
_NEEDS_ESCAPE = re.compile(
    "[" + re.escape("".join(_ESCAPES)) + "\x00-\x1f" + RAW_BYTE_ESCAPES + "]"
)


class JSONEncodeError(ValueError):
    """``json.Marshal`` failed; the message is Go's."""


def encode_string(text: str) -> str:
    """A Go string as a JSON string literal (HTML-safe, invalid bytes as ``\\ufffd``)."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    escape = _ESCAPES.get(char)
    if escape is not None:
        return escape
    if char < " ":
        return f"\\u00{ord(char):02x}"
    return "\\ufffd"  # a raw byte that is not UTF-8 (a surrogate escape)


def encode_float(value: float) -> str:
    """A float64 as Go's JSON encoder writes it."""
    if math.isnan(value) or math.isinf(value):
        raise JSONEncodeError(f"json: unsupported value: {format_float(value, 'g', -1)}")
    magnitude = abs(value)
    style = "e" if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21) else "f"
    text = format_float(value, style, -1)
    if style == "e" and len(text) >= 4 and text[-4] == "e" and text[-3:-1] == "-0":
        text = text[:-2] + text[-1]
    return text


def _scalar(value: Any) -> str | None:
    """The JSON of a value that has no children, or None for a container."""
    if value is None or isinstance(value, NilMap | NilList):
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return encode_float(value)
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, GoTime):
        return '"' + time_rfc3339_nano(value) + '"'
    if isinstance(value, AnyKeyMap | complex):
        raise JSONEncodeError(f"json: unsupported type: {type_name(value)}")
    if isinstance(value, dict | list):
        return None
    raise JSONEncodeError(f"json: unsupported type: {type(value).__name__}")


def marshal(value: Any) -> str:
    """``json.Marshal(value)`` as text; raises :class:`JSONEncodeError`."""
    plain = _plain_marshal(value)
    return plain if plain is not None else _walked(value)


#: How deep :func:`_plain_marshal` goes (Python's encoder recurses; the walk below does not).
_PLAIN_DEPTH = 64
#: What Python's encoder leaves as it is in ASCII text and Go escapes.
_HTML_UNSAFE = re.compile("[<>&]")


def _plain_marshal(value: Any) -> str | None:
    """Python's encoder's text of ``value`` where it is Go's: maps and lists of ASCII text,
    integers, booleans and nulls, no deeper than :data:`_PLAIN_DEPTH` (floats, non-ASCII
    text and Go's own types are left to :func:`_walked`); else None."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii():
                return None
        elif kind is dict:
            if depth >= _PLAIN_DEPTH:
                return None
            for key, child in item.items():
                if type(key) is not str or not key.isascii():
                    return None
                pending.append((child, depth + 1))
        elif kind is list:
            if depth >= _PLAIN_DEPTH:
                return None
            pending.extend((child, depth + 1) for child in item)
        elif item is not None and kind is not int and kind is not bool:
            return None
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return _HTML_UNSAFE.sub(lambda match: _ESCAPES[match.group()], text)


def _walked(value: Any) -> str:
    """:func:`marshal` of any value, Go's encoder step by step."""
    out: list[str] = []
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, _Literal):
            out.append(item.text)
            continue
        scalar = _scalar(item)
        if scalar is not None:
            out.append(scalar)
        elif isinstance(item, dict):
            _push_object(item, pending)
        else:
            _push_array(item, pending)
    return "".join(out)


def check_marshal(value: Any) -> None:
    """Raise the :class:`JSONEncodeError` :func:`marshal` would raise on ``value`` (the first
    failing value in the same order), without writing the text."""
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, NilMap | NilList | bool | int | str):
            continue
        if isinstance(item, float):
            if math.isnan(item) or math.isinf(item):
                encode_float(item)
        elif isinstance(item, dict):
            pending.extend(item[key] for key in reversed(sorted_strings(item)))
        elif isinstance(item, list):
            pending.extend(reversed(item))
        else:
            _scalar(item)


class _Literal:
    """Punctuation queued between values."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_OPEN_OBJECT, _CLOSE_OBJECT = _Literal("{"), _Literal("}")
_OPEN_ARRAY, _CLOSE_ARRAY = _Literal("["), _Literal("]")


def _push_object(item: dict[str, Any], pending: list[Any]) -> None:
    parts: list[Any] = [_OPEN_OBJECT]
    for i, key in enumerate(sorted_strings(item)):
        prefix = "," if i else ""
        parts.append(_Literal(prefix + encode_string(key) + ":"))
        parts.append(item[key])
    parts.append(_CLOSE_OBJECT)
    pending.extend(reversed(parts))


def _push_array(item: list[Any], pending: list[Any]) -> None:
    parts: list[Any] = [_OPEN_ARRAY]
    for i, element in enumerate(item):
        if i:
            parts.append(_Literal(","))
        parts.append(element)
    parts.append(_CLOSE_ARRAY)
    pending.extend(reversed(parts))
