"""Go's ``strconv``: quoting, unquoting and the strict number parsers (S79, S82).

Error texts are Go's, e.g. ``strconv.ParseInt: parsing "x": invalid syntax``.
Strings are Go strings held as surrogate-escaped ``str`` (see ``runes``).
"""

from __future__ import annotations

import math
import struct

from transpiler.golang.runes import (
    RUNE_ERROR,
    escaped_byte,
    from_go_bytes,
    is_print,
    rune_to_str,
    runes,
    valid_rune,
)

INVALID_SYNTAX = "invalid syntax"
OUT_OF_RANGE = "value out of range"
_LOWER_HEX = "0123456789abcdef"
_SHORT_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
_MAX_UINT64 = (1 << 64) - 1


class NumError(ValueError):
    """Go's ``*strconv.NumError``: which parser failed, on what, and why."""

    def __init__(self, func: str, num: str, reason: str) -> None:
        super().__init__(f"strconv.{func}: parsing {quote(num)}: {reason}")
        self.func = func
        self.num = num
        self.reason = reason


class UnquoteError(ValueError):
    """Go's ``strconv.ErrSyntax`` from ``Unquote``/``UnquoteChar``."""

    def __init__(self) -> None:
        super().__init__(INVALID_SYNTAX)


# --- quoting -------------------------------------------------------------------


def _escape_rune(rune: int, quote_char: int, ascii_only: bool) -> str:
    if rune in (quote_char, 0x5C):
        return "\\" + chr(rune)
    if ascii_only:
        if rune < 0x80 and is_print(rune):
            return chr(rune)
    elif is_print(rune):
        return chr(rune)
    short = _SHORT_ESCAPES.get(rune)
    if short is not None:
        return short
    if rune < 0x20 or rune == 0x7F:
        return f"\\x{rune:02x}"
    if not valid_rune(rune):
        rune = RUNE_ERROR
    if rune < 0x10000:
        return f"\\u{rune:04x}"
    return f"\\U{rune:08x}"


def _quote_with(text: str, quote_char: int, ascii_only: bool) -> str:
    parts = [chr(quote_char)]
    for char in text:
        raw = escaped_byte(char)
        if raw is not None:
            parts.append(f"\\x{raw:02x}")
        else:
            parts.append(_escape_rune(ord(char), quote_char, ascii_only))
    parts.append(chr(quote_char))
    return "".join(parts)


def quote(text: str) -> str:
    """``strconv.Quote``: what vMCP's ``quote`` and ``%q`` produce (S79)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return _quote_with(text, 0x22, ascii_only=False)


def quote_to_ascii(text: str) -> str:
    """``strconv.QuoteToASCII`` (``%+q``)."""
    return _quote_with(text, 0x22, ascii_only=True)


def quote_rune(rune: int, ascii_only: bool = False) -> str:
    """``strconv.QuoteRune`` / ``QuoteRuneToASCII`` (``%q`` of an integer)."""
    if not valid_rune(rune):
        rune = RUNE_ERROR
    return "'" + _escape_rune(rune, 0x27, ascii_only) + "'"


def can_backquote(text: str) -> bool:
    """``strconv.CanBackquote`` (decides ``%#q``)."""
    for rune, width in runes(text):
        if width > 1:
            if rune == 0xFEFF:
                return False
            continue
        if rune == RUNE_ERROR:
            return False
        if (rune < 0x20 and rune != 0x09) or rune in (0x60, 0x7F):
            return False
    return True


# --- unquoting -----------------------------------------------------------------


def _unhex(text: str) -> int | None:
    if len(text) == 0 or any(c not in "0123456789abcdefABCDEF" for c in text):
        return None
    return int(text, 16)


def unquote_char(text: str, quote_char: str) -> tuple[int, bool, str]:
    """``strconv.UnquoteChar``: (value, multibyte, tail); raises :class:`UnquoteError`.

    ``text`` must hold only valid characters; a byte value (``\\xff``) comes
    back with ``multibyte`` False.
    """
    if not text:
        raise UnquoteError
    first = text[0]
    if first == quote_char and quote_char in "'\"":
        raise UnquoteError
    if ord(first) >= 0x80:
        rune = RUNE_ERROR if escaped_byte(first) is not None else ord(first)
        return rune, True, text[1:]
    if first != "\\":
        return ord(first), False, text[1:]
    if len(text) <= 1:
        raise UnquoteError
    kind, rest = text[1], text[2:]
    simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 0x5C}
    if kind in simple:
        return simple[kind], False, rest
    if kind in "xuU":
        size = {"x": 2, "u": 4, "U": 8}[kind]
        value = _unhex(rest[:size]) if len(rest) >= size else None
        if value is None:
            raise UnquoteError
        if kind == "x":
            return value, False, rest[size:]
        if not valid_rune(value):
            raise UnquoteError
        return value, True, rest[size:]
    if kind in "01234567":
        digits = kind + rest[:2]
        if len(digits) < 3 or any(c not in "01234567" for c in digits):
            raise UnquoteError
        value = int(digits, 8)
        if value > 255:
            raise UnquoteError
        return value, False, rest[2:]
    if kind in "'\"":
        if kind != quote_char:
            raise UnquoteError
        return ord(kind), False, rest
    raise UnquoteError


def unquote(text: str) -> str:
    """``strconv.Unquote`` of a Go string or character literal; raises :class:`UnquoteError`."""
    if len(text) < 2:
        raise UnquoteError
    quote_char = text[0]
    end = text.find(quote_char, 1)
    if end < 0:
        raise UnquoteError
    if quote_char == "`":
        if end != len(text) - 1:
            raise UnquoteError
        return text[1:end].replace("\r", "")
    if quote_char not in "'\"":
        raise UnquoteError
    body = text[1:end]
    if "\\" not in body and "\n" not in body:
        if (
            quote_char == '"'
            and end == len(text) - 1
            and all(escaped_byte(c) is None for c in body)
        ):
            return body
        single = quote_char == "'" and end == len(text) - 1 and len(body) == 1
        if single and escaped_byte(body) is None:
            return body
    return _unquote_slow(text, quote_char)


def _unquote_slow(text: str, quote_char: str) -> str:
    out = bytearray()
    rest = text[1:]
    while rest and rest[0] != quote_char:
        if rest[0] == "\n":
            raise UnquoteError
        value, multibyte, rest = unquote_char(rest, quote_char)
        if value < 0x80 or not multibyte:
            out.append(value)
        else:
            out += rune_to_str(value).encode("utf-8")
        if quote_char == "'":
            break
    if not rest or rest[0] != quote_char or len(rest) != 1:
        raise UnquoteError
    return from_go_bytes(bytes(out))


# --- integers ------------------------------------------------------------------


def _underscore_ok(text: str) -> bool:
    saw = "^"
    i = 0
    if text[:1] in ("-", "+"):
        text = text[1:]
    hexadecimal = False
    if len(text) >= 2 and text[0] == "0" and text[1].lower() in "box":
        i = 2
        saw = "0"
        hexadecimal = text[1].lower() == "x"
    while i < len(text):
        char = text[i]
        if char.isascii() and (char.isdigit() or (hexadecimal and char.lower() in "abcdef")):
            saw = "0"
        elif char == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
        i += 1
    return saw != "_"


def parse_uint(text: str, base: int = 10, bit_size: int = 64, func: str = "ParseUint") -> int:
    """``strconv.ParseUint`` (bases 0 and 2..36)."""
    if text == "":
        raise NumError(func, text, INVALID_SYNTAX)
    base0 = base == 0
    digits = text
    if base0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower()
            if len(text) >= 3 and prefix in ("b", "o", "x"):
                base = {"b": 2, "o": 8, "x": 16}[prefix]
                digits = text[2:]
            else:
                base = 8
                digits = text[1:]
    max_value = (1 << bit_size) - 1
    value = 0
    underscores = False
    for char in digits:
        if char == "_" and base0:
            underscores = True
            continue
        if "0" <= char <= "9":
            digit = ord(char) - 0x30
        elif char.isascii() and "a" <= char.lower() <= "z":
            digit = ord(char.lower()) - 0x61 + 10
        else:
            raise NumError(func, text, INVALID_SYNTAX)
        if digit >= base:
            raise NumError(func, text, INVALID_SYNTAX)
        value = value * base + digit
        if value > max_value:
            raise NumError(func, text, OUT_OF_RANGE)
    if underscores and not _underscore_ok(text):
        raise NumError(func, text, INVALID_SYNTAX)
    return value


def parse_int(text: str, base: int = 10, bit_size: int = 64) -> int:
    """``strconv.ParseInt`` (S82 uses base 10, bit size 64)."""
    if text == "":
        raise NumError("ParseInt", text, INVALID_SYNTAX)
    negative = text[0] == "-"
    unsigned_text = text[1:] if text[0] in "+-" else text
    try:
        magnitude = parse_uint(unsigned_text, base, bit_size, func="ParseInt")
    except NumError as error:
        if error.reason != OUT_OF_RANGE:
            raise NumError("ParseInt", text, error.reason) from None
        raise NumError("ParseInt", text, OUT_OF_RANGE) from None
    cutoff = 1 << (bit_size - 1)
    if (not negative and magnitude >= cutoff) or (negative and magnitude > cutoff):
        raise NumError("ParseInt", text, OUT_OF_RANGE)
    return -magnitude if negative else magnitude


def parse_bool(text: str) -> bool:
    """``strconv.ParseBool``."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise NumError("ParseBool", text, INVALID_SYNTAX)


# --- floats --------------------------------------------------------------------


def _special_float(text: str) -> tuple[float, int] | None:
    """Go's ``special``: inf/infinity/nan prefixes; returns (value, length)."""
    if not text:
        return None
    sign, skip, rest = 1.0, 0, text
    if text[0] in "+-":
        sign, skip, rest = (-1.0 if text[0] == "-" else 1.0), 1, text[1:]
        return _infinity_prefix(rest, sign, skip)
    if text[0] in "iI":
        return _infinity_prefix(rest, sign, skip)
    if text[0] in "nN" and text[:3].lower() == "nan":
        return math.nan, 3
    return None


def _infinity_prefix(text: str, sign: float, skip: int) -> tuple[float, int] | None:
    word = "infinity"
    n = 0
    while n < len(word) and n < len(text) and text[n].lower() == word[n]:
        n += 1
    if 3 < n < 8:
        n = 3
    if n in (3, 8):
        return sign * math.inf, skip + n
    return None


def _read_float(text: str) -> tuple[str, bool, int] | None:
    """Go's ``readFloat`` syntax check: (cleaned literal, is_hex, consumed) or None."""
    i, n = 0, len(text)
    if i < n and text[i] in "+-":
        i += 1
    hexadecimal = False
    if i + 2 < n and text[i] == "0" and text[i + 1] in "xX":
        hexadecimal = True
        i += 2
    saw_dot = saw_digits = underscores = False
    while i < n:
        char = text[i]
        if char == "_":
            underscores = True
        elif char == ".":
            if saw_dot:
                break
            saw_dot = True
        elif "0" <= char <= "9" or (hexadecimal and char in "abcdefABCDEF"):
            saw_digits = True
        else:
            break
        i += 1
    if not saw_digits:
        return None
    exp_chars = "pP" if hexadecimal else "eE"
    if i < n and text[i] in exp_chars:
        i += 1
        if i < n and text[i] in "+-":
            i += 1
        if i >= n or not "0" <= text[i] <= "9":
            return None
        while i < n and ("0" <= text[i] <= "9" or text[i] == "_"):
            underscores = underscores or text[i] == "_"
            i += 1
    elif hexadecimal:
        return None
    literal = text[:i]
    if underscores and not _underscore_ok(literal):
        return None
    return literal.replace("_", ""), hexadecimal, i


def _literal_value(literal: str, hexadecimal: bool) -> float:
    if not hexadecimal:
        return float(literal)
    try:
        return float.fromhex(literal)
    except OverflowError:
        return -math.inf if literal.startswith("-") else math.inf


def parse_float(text: str, func: str = "ParseFloat") -> float:
    """``strconv.ParseFloat(s, 64)``: Go literal syntax, overflow is an error (S82)."""
    special = _special_float(text)
    if special is not None:
        value, length = special
        if length != len(text):
            raise NumError(func, text, INVALID_SYNTAX)
        return value
    read = _read_float(text)
    if read is None or read[2] != len(text):
        raise NumError(func, text, INVALID_SYNTAX)
    value = _literal_value(read[0], read[1])
    if math.isinf(value):
        raise NumError(func, text, OUT_OF_RANGE)
    return value


# --- float formatting ----------------------------------------------------------


def _strip(digits: str, point: int) -> tuple[str, int]:
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    stripped = stripped.rstrip("0")
    if not stripped:
        return "", 0
    return stripped, point


def shortest_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of ``|value|`` and the point position.

    ``"123", 1`` means 1.23; zero gives ``"", 0``.
    """
    return _scientific_digits(repr(abs(value)))


def _scientific_digits(text: str) -> tuple[str, int]:
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    return _strip(whole + fraction, len(whole) + (int(exponent) if exponent else 0))


def fixed_digits(value: float, count: int) -> tuple[str, int]:
    """``count`` significant digits of ``|value|``, correctly rounded, zeros trimmed."""
    return _scientific_digits(f"{abs(value):.{count - 1}e}")


def _format_e(negative: bool, digits: str, point: int, prec: int, letter: str) -> str:
    out = ["-" if negative else "", digits[:1] or "0"]
    if prec > 0:
        fraction = digits[1 : prec + 1]
        out.append("." + fraction + "0" * (prec - len(fraction)))
    exponent = point - 1 if digits else 0
    sign = "-" if exponent < 0 else "+"
    out.append(f"{letter}{sign}{abs(exponent):02d}")
    return "".join(out)


def _format_f(negative: bool, digits: str, point: int, prec: int) -> str:
    out = ["-" if negative else ""]
    if point > 0:
        whole = digits[:point]
        out.append(whole + "0" * (point - len(whole)))
    else:
        out.append("0")
    if prec > 0:
        fraction = "".join(
            digits[point + i] if 0 <= point + i < len(digits) else "0" for i in range(prec)
        )
        out.append("." + fraction)
    return "".join(out)


def _format_g(
    negative: bool, digits: str, point: int, prec: int, shortest: bool, letter: str
) -> str:
    eprec = prec
    if eprec > len(digits) >= point:
        eprec = len(digits)
    if shortest:
        eprec = 6
    exponent = point - 1
    if exponent < -4 or exponent >= eprec:
        prec = min(prec, len(digits))
        return _format_e(negative, digits, point, prec - 1, "e" if letter == "g" else "E")
    if prec > point:
        prec = len(digits)
    return _format_f(negative, digits, point, max(prec - point, 0))


def _float_bits(value: float) -> tuple[bool, int, int]:
    """Sign, unbiased binary exponent and 53-bit mantissa (Go's genericFtoa view)."""
    bits: int = struct.unpack("<Q", struct.pack("<d", value))[0]
    negative = bits >> 63 != 0
    exponent = (bits >> 52) & 0x7FF
    mantissa = bits & ((1 << 52) - 1)
    if exponent == 0:
        exponent += 1
    else:
        mantissa |= 1 << 52
    return negative, exponent - 1023, mantissa


def _format_b(value: float) -> str:
    negative, exponent, mantissa = _float_bits(value)
    exponent -= 52
    sign = "+" if exponent >= 0 else ""
    return f"{'-' if negative else ''}{mantissa}p{sign}{exponent}"


def _format_x(value: float, prec: int, letter: str) -> str:
    negative, exponent, mantissa = _float_bits(value)
    if mantissa == 0:
        exponent = 0
    mantissa <<= 60 - 52
    while mantissa != 0 and mantissa & (1 << 60) == 0:
        mantissa = (mantissa << 1) & _MAX_UINT64
        exponent -= 1
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mantissa << shift) & ((1 << 60) - 1)
        mantissa >>= 60 - shift
        if extra | (mantissa & 1) > 1 << 59:
            mantissa += 1
        mantissa <<= 60 - shift
        if mantissa & (1 << 61):
            mantissa >>= 1
            exponent += 1
    hex_digits = _LOWER_HEX if letter == "x" else _LOWER_HEX.upper()
    out = ["-" if negative else "", "0", letter, str((mantissa >> 60) & 1)]
    mantissa = (mantissa << 4) & _MAX_UINT64
    if prec < 0 and mantissa != 0:
        out.append(".")
        while mantissa != 0:
            out.append(hex_digits[(mantissa >> 60) & 15])
            mantissa = (mantissa << 4) & _MAX_UINT64
    elif prec > 0:
        out.append(".")
        for _ in range(prec):
            out.append(hex_digits[(mantissa >> 60) & 15])
            mantissa = (mantissa << 4) & _MAX_UINT64
    sign = "-" if exponent < 0 else "+"
    out.append(f"{'p' if letter == 'x' else 'P'}{sign}{abs(exponent):02d}")
    return "".join(out)


def format_float(value: float, fmt: str, prec: int) -> str:
    """``strconv.FormatFloat(value, fmt, prec, 64)`` for fmt in ``bxXeEfgG``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if fmt == "b":
        return _format_b(value)
    if fmt in "xX":
        return _format_x(value, prec, fmt)
    negative = math.copysign(1.0, value) < 0
    shortest = prec < 0
    if shortest:
        digits, point = shortest_digits(value)
        if fmt in "eE":
            prec = max(len(digits) - 1, 0)
        elif fmt == "f":
            prec = max(len(digits) - point, 0)
        else:
            prec = len(digits)
    elif fmt == "f":
        digits, point = _fixed_point_digits(value, prec)
    elif fmt in "eE":
        digits, point = fixed_digits(value, prec + 1)
    else:
        prec = max(prec, 1)
        digits, point = fixed_digits(value, prec)
    if fmt in "eE":
        return _format_e(negative, digits, point, prec, fmt)
    if fmt == "f":
        return _format_f(negative, digits, point, prec)
    return _format_g(negative, digits, point, prec, shortest, fmt)


def _fixed_point_digits(value: float, prec: int) -> tuple[str, int]:
    whole, _, fraction = f"{abs(value):.{prec}f}".partition(".")
    return _strip(whole + fraction, len(whole))
