"""Go's ``json.Unmarshal`` into ``any``, as vMCP's ``fromJson`` uses it.

Numbers become float64, objects ``map[string]any``, arrays ``[]any``. Syntax
errors carry Go's text (``invalid character 'x' looking for beginning of
value``, ``unexpected end of JSON input``); nesting deeper than 10000 fails as
in Go; a number beyond float64 fails with ``json: cannot unmarshal number …``.
Invalid UTF-8 and unpaired surrogate escapes decode to U+FFFD.
"""

from __future__ import annotations

import json
import math
from typing import Any

from transpiler.golang.runes import from_go_bytes, go_bytes, is_valid_utf8, sanitize, to_valid_utf8
from transpiler.golang.strconv import quote

MAX_NESTING_DEPTH = 10000
_SPACE = b" \t\r\n"
_HEX = b"0123456789abcdefABCDEF"


class JSONDecodeError(ValueError):
    """``json.Unmarshal`` failed; the message is Go's."""


def unmarshal(text: str) -> Any:
    """Decode a Go string holding JSON; raises :class:`JSONDecodeError`."""
    fast = _decode_with_python(text)
    if fast is not None:
        return fast[0]
    data = go_bytes(text)
    _check_valid(data)
    return _Decoder(data).value()


# --- fast path -----------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _decode_with_python(text: str) -> tuple[Any] | None:
    """Python's decoder for the common case; None when Go's exact path is needed."""
    overflow: list[str] = []

    def number(literal: str) -> float:
        value = float(literal)
        if math.isinf(value) and not overflow:
            overflow.append(literal)
        return value

    try:
        value = json.loads(
            text, parse_float=number, parse_int=number, parse_constant=_reject_constant
        )
    except (ValueError, RecursionError):
        return None
    if overflow:
        raise JSONDecodeError(_overflow_message(overflow[0]))
    if not is_valid_utf8(text) or "\\u" in text:
        value = _clean_strings(value)
    return (value,)


def _overflow_message(literal: str) -> str:
    return f"json: cannot unmarshal number {literal} into Go value of type float64"


def _clean(text: str) -> str:
    return to_valid_utf8(sanitize(text))


def _clean_strings(value: Any) -> Any:
    """Replace invalid bytes and lone surrogates with U+FFFD, without recursion."""
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        container, key = stack.pop()
        item = container[key]
        if isinstance(item, str):
            container[key] = _clean(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            cleaned = {_clean(k): v for k, v in item.items()}
            container[key] = cleaned
            stack.extend((cleaned, k) for k in cleaned)
    return root[0]


# --- Go's scanner: exact syntax errors ----------------------------------------


def _quote_char(byte: int) -> str:
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    quoted = quote(chr(byte))
    return "'" + quoted[1:-1] + "'"


def _syntax_error(byte: int, context: str) -> JSONDecodeError:
    return JSONDecodeError(f"invalid character {_quote_char(byte)} {context}")


_LITERAL_STATES = {
    "t": ("rue", "true"),
    "f": ("alse", "false"),
    "n": ("ull", "null"),
}


class _Scanner:
    """A port of encoding/json's validity scanner (``checkValid``)."""

    def __init__(self) -> None:
        self.state = "begin_value"
        self.stack: list[str] = []
        self.end_top = False
        self.literal = ""
        self.literal_pos = 0

    def push(self, byte: int, kind: str, next_state: str) -> None:
        self.stack.append(kind)
        if len(self.stack) > MAX_NESTING_DEPTH:
            raise _syntax_error(byte, "exceeded max depth")
        self.state = next_state

    def pop(self) -> None:
        self.stack.pop()
        if not self.stack:
            self.state = "end_top"
            self.end_top = True
        else:
            self.state = "end_value"

    def step(self, byte: int) -> None:
        getattr(self, "_" + self.state)(byte)

    def eof(self) -> None:
        if self.end_top:
            return
        self.step(0x20)
        if not self.end_top:
            raise JSONDecodeError("unexpected end of JSON input")

    def _begin_value_or_empty(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == 0x5D:
            self._end_value(byte)
            return
        self._begin_value(byte)

    def _begin_value(self, byte: int) -> None:
        if byte in _SPACE:
            return
        char = chr(byte)
        if char == "{":
            self.push(byte, "object_key", "begin_string_or_empty")
        elif char == "[":
            self.push(byte, "array_value", "begin_value_or_empty")
        elif char == '"':
            self.state = "in_string"
        elif char == "-":
            self.state = "neg"
        elif char == "0":
            self.state = "zero"
        elif char in "tfn":
            self.literal, self.literal_pos = char, 0
            self.state = "literal"
        elif "1" <= char <= "9":
            self.state = "digits"
        else:
            raise _syntax_error(byte, "looking for beginning of value")

    def _begin_string_or_empty(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == 0x7D:
            self.stack[-1] = "object_value"
            self._end_value(byte)
            return
        self._begin_string(byte)

    def _begin_string(self, byte: int) -> None:
        if byte in _SPACE:
            return
        if byte == 0x22:
            self.state = "in_string"
            return
        raise _syntax_error(byte, "looking for beginning of object key string")

    def _end_value(self, byte: int) -> None:
        if not self.stack:
            self.state = "end_top"
            self.end_top = True
            self._end_top(byte)
            return
        if byte in _SPACE:
            self.state = "end_value"
            return
        kind = self.stack[-1]
        if kind == "object_key":
            if byte == 0x3A:
                self.stack[-1] = "object_value"
                self.state = "begin_value"
                return
            raise _syntax_error(byte, "after object key")
        if kind == "object_value":
            if byte == 0x2C:
                self.stack[-1] = "object_key"
                self.state = "begin_string"
                return
            if byte == 0x7D:
                self.pop()
                return
            raise _syntax_error(byte, "after object key:value pair")
        if byte == 0x2C:
            self.state = "begin_value"
            return
        if byte == 0x5D:
            self.pop()
            return
        raise _syntax_error(byte, "after array element")

    def _end_top(self, byte: int) -> None:
        if byte not in _SPACE:
            raise _syntax_error(byte, "after top-level value")

    def _in_string(self, byte: int) -> None:
        if byte == 0x22:
            self.state = "end_value"
        elif byte == 0x5C:
            self.state = "in_string_escape"
        elif byte < 0x20:
            raise _syntax_error(byte, "in string literal")

    def _in_string_escape(self, byte: int) -> None:
        if byte in b'bfnrt\\/"':
            self.state = "in_string"
        elif byte == 0x75:
            self.literal_pos = 0
            self.state = "in_string_hex"
        else:
            raise _syntax_error(byte, "in string escape code")

    def _in_string_hex(self, byte: int) -> None:
        if byte not in _HEX:
            raise _syntax_error(byte, "in \\u hexadecimal character escape")
        self.literal_pos += 1
        if self.literal_pos == 4:
            self.state = "in_string"

    def _neg(self, byte: int) -> None:
        if byte == 0x30:
            self.state = "zero"
        elif 0x31 <= byte <= 0x39:
            self.state = "digits"
        else:
            raise _syntax_error(byte, "in numeric literal")

    def _digits(self, byte: int) -> None:
        if 0x30 <= byte <= 0x39:
            return
        self._zero(byte)

    def _zero(self, byte: int) -> None:
        if byte == 0x2E:
            self.state = "dot"
        elif byte in b"eE":
            self.state = "exponent"
        else:
            self._end_value(byte)

    def _dot(self, byte: int) -> None:
        if 0x30 <= byte <= 0x39:
            self.state = "fraction"
            return
        raise _syntax_error(byte, "after decimal point in numeric literal")

    def _fraction(self, byte: int) -> None:
        if 0x30 <= byte <= 0x39:
            return
        if byte in b"eE":
            self.state = "exponent"
            return
        self._end_value(byte)

    def _exponent(self, byte: int) -> None:
        if byte in b"+-":
            self.state = "exponent_sign"
            return
        self._exponent_sign(byte)

    def _exponent_sign(self, byte: int) -> None:
        if 0x30 <= byte <= 0x39:
            self.state = "exponent_digits"
            return
        raise _syntax_error(byte, "in exponent of numeric literal")

    def _exponent_digits(self, byte: int) -> None:
        if 0x30 <= byte <= 0x39:
            return
        self._end_value(byte)

    def _literal(self, byte: int) -> None:
        rest, word = _LITERAL_STATES[self.literal]
        expected = rest[self.literal_pos]
        if byte != ord(expected):
            raise _syntax_error(byte, f"in literal {word} (expecting '{expected}')")
        self.literal_pos += 1
        if self.literal_pos == len(rest):
            self.state = "end_value"


def _check_valid(data: bytes) -> None:
    scanner = _Scanner()
    for byte in data:
        scanner.step(byte)
    scanner.eof()


# --- decoding valid input without recursion ------------------------------------


class _Decoder:
    """Decodes input already known to be valid JSON, with Go's string rules."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.overflow: str | None = None

    def skip_space(self) -> None:
        while self.pos < len(self.data) and self.data[self.pos] in _SPACE:
            self.pos += 1

    def value(self) -> Any:
        root: list[Any] = []
        containers: list[list[Any] | dict[str, Any]] = []
        keys: list[str | None] = []
        while True:
            self.skip_space()
            byte = self.data[self.pos]
            if byte in b"]}":
                self.pos += 1
                finished = containers.pop()
                keys.pop()
                self._store(finished, root, containers, keys)
            elif byte == 0x2C:
                self.pos += 1
                continue
            elif byte == 0x5B:
                self.pos += 1
                containers.append([])
                keys.append(None)
                continue
            elif byte == 0x7B:
                self.pos += 1
                containers.append({})
                keys.append(None)
                continue
            else:
                if containers and isinstance(containers[-1], dict) and keys[-1] is None:
                    keys[-1] = self.string()
                    self.skip_space()
                    self.pos += 1
                    continue
                self._store(self.scalar(), root, containers, keys)
            if not containers:
                break
        if self.overflow is not None:
            raise JSONDecodeError(_overflow_message(self.overflow))
        return root[0]

    def _store(
        self,
        item: Any,
        root: list[Any],
        containers: list[list[Any] | dict[str, Any]],
        keys: list[str | None],
    ) -> None:
        if not containers:
            root.append(item)
            return
        parent = containers[-1]
        if isinstance(parent, list):
            parent.append(item)
        else:
            key = keys[-1]
            assert key is not None
            parent[key] = item
            keys[-1] = None

    def scalar(self) -> Any:
        data = self.data
        byte = data[self.pos]
        if byte == 0x22:
            return self.string()
        for word, result in ((b"true", True), (b"false", False), (b"null", None)):
            if data.startswith(word, self.pos):
                self.pos += len(word)
                return result
        start = self.pos
        while self.pos < len(data) and data[self.pos] in b"+-.0123456789eE":
            self.pos += 1
        literal = data[start : self.pos].decode("ascii")
        value = float(literal)
        if math.isinf(value) and self.overflow is None:
            self.overflow = literal
        return value

    def string(self) -> str:
        data = self.data
        self.pos += 1
        out = bytearray()
        while True:
            byte = data[self.pos]
            if byte == 0x22:
                self.pos += 1
                return to_valid_utf8(from_go_bytes(bytes(out)))
            if byte != 0x5C:
                out.append(byte)
                self.pos += 1
                continue
            kind = chr(data[self.pos + 1])
            simple = {"b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "\\": 0x5C, "/": 0x2F, '"': 0x22}
            if kind in simple:
                out.append(simple[kind])
                self.pos += 2
                continue
            rune = int(data[self.pos + 2 : self.pos + 6], 16)
            self.pos += 6
            if 0xD800 <= rune < 0xE000:
                rune = self._surrogate_pair(rune)
            out += chr(rune).encode("utf-8")

    def _surrogate_pair(self, high: int) -> int:
        data = self.data
        if (
            high < 0xDC00
            and data.startswith(b"\\u", self.pos)
            and all(b in _HEX for b in data[self.pos + 2 : self.pos + 6])
        ):
            low = int(data[self.pos + 2 : self.pos + 6], 16)
            if 0xDC00 <= low < 0xE000:
                self.pos += 6
                return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        return 0xFFFD
