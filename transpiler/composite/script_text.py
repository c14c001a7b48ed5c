"""What a script writes for a value it holds, on each engine.

The model's variants (:mod:`.variants`) print a value as a script does, and
the judgement of where ``rust-engine`` applies (:mod:`.quirks`) compares the
engines' texts: go.starlark.net's ``str`` and ``json.encode`` of a value
decoded from JSON, written here as Go writes them (held to go.starlark.net by
``tests/composite/test_variants.py``), and starlark-rust's, asked of the
interpreter itself (:mod:`transpiler.starlark_runtime.rust_text`).
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from transpiler.golang.jsonenc import encode_string
from transpiler.golang.strconv import format_float, quote
from transpiler.golang.values import AnyKeyMap, NilList, NilMap
from transpiler.gotemplate.runtime import MISSING
from transpiler.starlark_runtime.rust_text import rust_json, rust_str

_WHOLE_TEXT_LIMIT: Final = 2.0**53
#: go.starlark.net's json.encode writes DEL as ``\\x7f``, which is not JSON.
DEL: Final = "\x7f"


def held_by_script(value: Any) -> Any:
    """A Go value as the script holds it: whole JSON numbers are ints, typed nils are None."""
    if isinstance(value, NilMap | NilList) or value is MISSING:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if abs(value) < _WHOLE_TEXT_LIMIT else value
    if isinstance(value, dict):
        return {str(k): held_by_script(v) for k, v in value.items()}
    if isinstance(value, AnyKeyMap):
        return {str(k): held_by_script(v) for k, v in value.items}
    if isinstance(value, list):
        return [held_by_script(item) for item in value]
    return value


def starlark_text(value: Any) -> str:
    """``str(value)`` in Starlark, of a value decoded from JSON."""
    held = held_by_script(value)
    if isinstance(held, str):
        return held
    return _repr(held)


def _repr(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return quote(value)  # go.starlark.net's repr; starlark-rust's is the rust-engine class
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_repr(item) for item in value) + "]"
    return repr(value)


def json_text(value: Any) -> str:
    """go.starlark.net's ``json.encode(value)`` of a value decoded from JSON: keys sorted,
    text of bytes 0x20-0x7f quoted as Go's ``strconv.Quote``, other text as Go's
    ``encoding/json`` (starlark-rust keeps keys in order and escapes its own way: the
    rust-engine class)."""
    held = held_by_script(value)
    if isinstance(held, dict):
        items = sorted(held.items())
        return "{" + ",".join(f"{_json_string(k)}:{json_text(v)}" for k, v in items) + "}"
    if isinstance(held, list):
        return "[" + ",".join(json_text(item) for item in held) + "]"
    if isinstance(held, str):
        return _json_string(held)
    if isinstance(held, float):
        return format_float(held, "g", -1)
    return json.dumps(held)


def _json_string(text: str) -> str:
    """go.starlark.net's ``quote``: Go's ``strconv.Quote`` when every byte is in 0x20-0x7f
    (DEL included, written ``\\x7f``), else Go's ``encoding/json``."""
    if quoted_as_go_string(text):
        return quote(text)
    return encode_string(text)


def quoted_as_go_string(text: str) -> bool:
    """Whether go.starlark.net's ``json.encode`` writes ``text`` as Go's ``strconv.Quote``
    (every character in 0x20-0x7f, DEL included), not as Go's ``encoding/json``."""
    return all(" " <= char <= DEL for char in text)


def rust_writes_otherwise(value: Any) -> bool:
    """Whether starlark-rust's ``str`` or ``json.encode`` of ``value`` (a Go value, as the
    script holds it) is not go.starlark.net's: where ``rust-engine`` applies."""
    held = held_by_script(value)
    if isinstance(held, float):
        return rust_str(held) != format_float(held, "g", -1) or rust_json(held) != json_text(held)
    return rust_str(held) != starlark_text(value) or rust_json(held) != json_text(value)
