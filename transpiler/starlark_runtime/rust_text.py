"""What starlark-rust writes for a value: ``str()``, ``json.encode()`` and ``len()``, from the
interpreter itself.

starlark-rust writes some values otherwise than go.starlark.net (docs/engines.md, "Known
differences between rust and go"): a float with six decimals in exponent form from a
million and below 1e-5 (``1.234568e+06``, truncated, not rounded) and plain
below (``0.000025``); a string inside a printed list or map with every
character beyond ASCII that is not alphanumeric, and every one in U+0080-U+00FF,
escaped (``"\\xe9"``); JSON with object keys in the order they were added,
``<``, ``>``, ``&``, DEL and U+2028 raw and numbers as Rust's shortest form
(``1234567.8``, ``1e21``); ``len`` of a string in code points. These rules
hold tables (Unicode's alphanumeric characters, Rust's float formatting) that
only the interpreter has exactly, so the text is asked of starlark-rust
itself, in this process: the values are plain JSON values, small and
bounded, never a script.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import starlark as sl

_GLOBALS = sl.Globals.extended_by([sl.LibraryExtension.Json])
_TEXTS = sl.parse("<rust-text>", "texts = (str(value), json.encode(value))\n")


def rust_str(value: Any) -> str:
    """``str(value)`` on starlark-rust, of a value as a script holds it (plain JSON data:
    dicts, lists, strings, ints, floats, booleans, None)."""
    return _texts(_key(value))[0]


def rust_json(value: Any) -> str:
    """``json.encode(value)`` on starlark-rust, of a value as a script holds it."""
    return _texts(_key(value))[1]


def rust_len(value: Any) -> int:
    """``len(value)`` on starlark-rust: a string's code points, a list's items, a dict's keys."""
    return len(value)


def _key(value: Any) -> str:
    """The value as JSON text that keeps what starlark-rust's text depends on: key order, and
    an int apart from a float (``1`` and ``1.0``)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


@lru_cache(maxsize=4096)
def _texts(key: str) -> tuple[str, str]:
    module = sl.Module()
    module["value"] = json.loads(key)
    sl.eval(module, _TEXTS, _GLOBALS)
    texts = module["texts"]
    assert isinstance(texts, list | tuple) and len(texts) == 2
    return str(texts[0]), str(texts[1])
