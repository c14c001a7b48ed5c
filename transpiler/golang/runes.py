"""Go strings and runes in Python.

A Go string is a sequence of bytes, usually but not always UTF-8. We hold it
as a Python ``str`` decoded with ``surrogateescape``: each byte that is not
part of valid UTF-8 becomes one code point U+DC80..U+DCFF. The mapping is
exact both ways, and iterating the ``str`` visits what Go's ``for range``
visits: a valid character, or one invalid byte (which Go reads as
``utf8.RuneError`` of width 1).

Unicode classes (``unicode.IsPrint``, ``IsLetter``, ``IsDigit``) come from
``unicodedata2`` pinned at Unicode 15.0.0, the version of Go 1.21 and later
(vMCP's Go 1.26); Python 3.11's own ``unicodedata`` has 14.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

import unicodedata2

RUNE_ERROR = 0xFFFD
MAX_RUNE = 0x10FFFF
_ESCAPE_LOW = 0xDC80
_ESCAPE_HIGH = 0xDCFF
#: The same range as a regular expression character range.
RAW_BYTE_ESCAPES = f"{chr(_ESCAPE_LOW)}-{chr(_ESCAPE_HIGH)}"


def go_bytes(text: str) -> bytes:
    """The bytes of a Go string held as ``text``."""
    if text.isascii():
        return text.encode("ascii")
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return sanitize(text).encode("utf-8", "surrogateescape")


def from_go_bytes(data: bytes) -> str:
    """The ``str`` that holds the Go string made of ``data``."""
    return data.decode("utf-8", "surrogateescape")


def byte_length(text: str) -> int:
    """Go's ``len`` of a string: its length in bytes."""
    if text.isascii():
        return len(text)
    return len(go_bytes(text))


def escaped_byte(char: str) -> int | None:
    """The raw byte a surrogate-escaped code point stands for, else None."""
    code = ord(char)
    if _ESCAPE_LOW <= code <= _ESCAPE_HIGH:
        return code - 0xDC00
    return None


def is_valid_utf8(text: str) -> bool:
    """Go's ``utf8.ValidString``."""
    if text.isascii():
        return True
    return not any(_ESCAPE_LOW <= ord(c) <= _ESCAPE_HIGH for c in text)


def sanitize(text: str) -> str:
    """Replace code points no Go string can hold (lone surrogates) with U+FFFD.

    Go's JSON decoder does the same with an unpaired ``\\ud800`` escape.
    Surrogate escapes of raw bytes are kept.
    """
    if text.isascii():
        return text
    return "".join(
        "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF and escaped_byte(c) is None else c for c in text
    )


def to_valid_utf8(text: str) -> str:
    """Replace each invalid byte with U+FFFD, as Go's JSON encoder does."""
    if is_valid_utf8(text):
        return text
    return "".join("\ufffd" if escaped_byte(c) is not None else c for c in text)


def runes(text: str) -> Iterator[tuple[int, int]]:
    """Go's ``for _, r := range s``: yields (rune, width in bytes)."""
    for char in text:
        code = ord(char)
        if code < 0x80:
            yield code, 1
        elif _ESCAPE_LOW <= code <= _ESCAPE_HIGH:
            yield RUNE_ERROR, 1
        else:
            yield code, len(char.encode("utf-8", "surrogatepass"))


def rune_to_str(rune: int) -> str:
    """Go's ``string(r)``: invalid runes become U+FFFD."""
    if 0 <= rune <= MAX_RUNE and not 0xD800 <= rune <= 0xDFFF:
        return chr(rune)
    return "\ufffd"


def valid_rune(rune: int) -> bool:
    """Go's ``utf8.ValidRune``."""
    return 0 <= rune <= MAX_RUNE and not 0xD800 <= rune <= 0xDFFF


@lru_cache(maxsize=4096)
def _category(rune: int) -> str:
    return str(unicodedata2.category(chr(rune)))


def is_print(rune: int) -> bool:
    """Go's ``unicode.IsPrint`` / ``strconv.IsPrint``: L, M, N, P, S and ASCII space."""
    if 0x20 <= rune <= 0x7E:
        return True
    if rune < 0xA0 or not valid_rune(rune):
        return False
    return _category(rune)[0] in "LMNPS"


def is_letter(rune: int) -> bool:
    """Go's ``unicode.IsLetter``."""
    if rune < 0x80:
        return 0x41 <= rune <= 0x5A or 0x61 <= rune <= 0x7A
    return valid_rune(rune) and _category(rune)[0] == "L"


def is_digit(rune: int) -> bool:
    """Go's ``unicode.IsDigit`` (category Nd)."""
    if rune < 0x80:
        return 0x30 <= rune <= 0x39
    return valid_rune(rune) and _category(rune) == "Nd"


def sorted_strings(keys: Iterable[str]) -> list[str]:
    """Keys ordered by their bytes, as Go sorts strings."""
    items = list(keys)
    if all(k.isascii() for k in items):
        return sorted(items)
    return sorted(items, key=go_bytes)
