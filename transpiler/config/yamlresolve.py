"""yaml.v3's scalar resolution (``resolve.go``): which Go value a plain YAML scalar becomes.

PyYAML follows YAML 1.1 (``yes`` is a bool, ``1:30`` is 90); vMCP's yaml.v3
does not. This module reproduces yaml.v3 v3.0.1 rule by rule (S8).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Final

from transpiler.golang.values import GoTime

NULL_TAG: Final = "!!null"
BOOL_TAG: Final = "!!bool"
STR_TAG: Final = "!!str"
INT_TAG: Final = "!!int"
FLOAT_TAG: Final = "!!float"
TIMESTAMP_TAG: Final = "!!timestamp"
SEQ_TAG: Final = "!!seq"
MAP_TAG: Final = "!!map"
BINARY_TAG: Final = "!!binary"
MERGE_TAG: Final = "!!merge"

_LONG_PREFIX: Final = "tag:yaml.org,2002:"
_RESOLVABLE: Final = frozenset(("", STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG))
_DIGITS: Final = {base: frozenset("0123456789abcdef"[:base]) for base in (2, 8, 10, 16)}
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1
_UINT64_MAX: Final = (1 << 64) - 1

_LOOKUP: Final[dict[str, tuple[str, object]]] = {
    **{word: (BOOL_TAG, True) for word in ("true", "True", "TRUE")},
    **{word: (BOOL_TAG, False) for word in ("false", "False", "FALSE")},
    **{word: (NULL_TAG, None) for word in ("", "~", "null", "Null", "NULL")},
    **{word: (FLOAT_TAG, math.nan) for word in (".nan", ".NaN", ".NAN")},
    **{word: (FLOAT_TAG, math.inf) for word in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{word: (FLOAT_TAG, -math.inf) for word in ("-.inf", "-.Inf", "-.INF")},
    "<<": (MERGE_TAG, "<<"),
}
#: YAML 1.1 booleans that Kubernetes' YAML reader (go-yaml v2) also accepts.
YAML11_BOOLS: Final[dict[str, bool]] = {
    **{word: True for word in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON")},
    **{word: False for word in ("n", "N", "no", "No", "NO", "off", "Off", "OFF")},
}

_YAML_STYLE_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT: Final = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_DATE: Final = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_CLOCK: Final = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,]([0-9]+))?"
_TIMESTAMP_FORMATS: Final = (
    re.compile(_DATE + "[Tt]" + _CLOCK + r"(Z|[-+][0-9]{2}:[0-9]{2})"),
    re.compile(_DATE + " " + _CLOCK),
    re.compile(_DATE),
)


class ResolveError(ValueError):
    """An explicit tag that does not fit the text (``cannot decode !!str `x` as a !!int``)."""


def short_tag(tag: str) -> str:
    """yaml.v3 ``shortTag``: ``tag:yaml.org,2002:int`` becomes ``!!int``."""
    if tag.startswith(_LONG_PREFIX):
        return "!!" + tag[len(_LONG_PREFIX) :]
    return tag


def _go_parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` then ``ParseUint``: base prefixes, legacy octal."""
    body = text
    sign = 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    base = 10
    lowered = body[:2].lower()
    if lowered in ("0x", "0o", "0b"):
        base = {"0x": 16, "0o": 8, "0b": 2}[lowered]
        body = body[2:]
    elif len(body) > 1 and body[0] == "0":
        base = 8
        body = body[1:]
    if not body or not set(body.lower()) <= _DIGITS[base]:
        return None
    value = sign * int(body, base)
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if sign > 0 and text[:1] != "+" and value <= _UINT64_MAX:
        return value
    return None


def _go_parse_float(text: str) -> float | None:
    """``strconv.ParseFloat`` for the decimal forms yaml.v3 hands it; ``None`` on range error."""
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isinf(value):
        return None
    return value


def _dot_float(text: str) -> float | None:
    """ParseFloat of a scalar starting with ``.`` (underscores only between digits)."""
    if "_" in text:
        if re.search(r"(^|[^0-9])_|_($|[^0-9])", text):
            return None
        text = text.replace("_", "")
    if not _DOT_FLOAT.fullmatch(text):
        return None
    return _go_parse_float(text)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def parse_timestamp(text: str) -> GoTime | None:
    """yaml.v3 ``parseTimestamp``: the four ``time.Parse`` layouts it tries.

    Sub-microsecond digits are truncated (Python ``datetime``); year 0 and
    offsets of 24h or more, which Go accepts, are not representable and stay
    strings.
    """
    if len(text) < 5 or not text[:4].isascii() or not text[:4].isdigit() or text[4] != "-":
        return None
    for pattern in _TIMESTAMP_FORMATS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        groups = match.groups()
        year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
        if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month) or year == 0:
            return None
        hour = minute = second = micro = 0
        zone = UTC
        if len(groups) > 3:
            hour, minute, second = int(groups[3]), int(groups[4]), int(groups[5])
            if hour > 23 or minute > 59 or second > 59:
                return None
            micro = int((groups[6] or "0")[:6].ljust(6, "0"))
        if len(groups) > 7 and groups[7] != "Z":
            offset = timedelta(hours=int(groups[7][1:3]), minutes=int(groups[7][4:6]))
            if offset >= timedelta(hours=24):
                return None
            zone = timezone(-offset if groups[7][0] == "-" else offset)
        return GoTime(datetime(year, month, day, hour, minute, second, micro, tzinfo=zone))
    return None


def resolve(tag: str, text: str, *, yaml11_bools: bool = False) -> tuple[str, object]:
    """yaml.v3 ``resolve(tag, in)``: the resolved short tag and Go value.

    ``yaml11_bools`` adds the YAML 1.1 words (``yes``, ``on``...) that
    Kubernetes' reader turns into booleans. Raises :class:`ResolveError` when
    an explicit tag does not fit (``!!int abc``).
    """
    tag = short_tag(tag)
    if tag not in _RESOLVABLE:
        return tag, text
    rtag, value = _resolve_untagged(tag, text, yaml11_bools)
    if tag in ("", rtag, STR_TAG, BINARY_TAG):
        return rtag, value
    if tag == FLOAT_TAG and rtag == INT_TAG and isinstance(value, int):
        return FLOAT_TAG, float(value)
    raise ResolveError(f"cannot decode {rtag} `{text}` as a {tag}")


def _resolve_untagged(tag: str, text: str, yaml11_bools: bool) -> tuple[str, object]:
    hint = _hint(text)
    if hint is None or tag in (STR_TAG, BINARY_TAG):
        return STR_TAG, text
    if text in _LOOKUP:
        return _LOOKUP[text]
    if yaml11_bools and text in YAML11_BOOLS:
        return BOOL_TAG, YAML11_BOOLS[text]
    if hint == ".":
        dotted = _dot_float(text)
        if dotted is not None:
            return FLOAT_TAG, dotted
    elif hint == "D":
        if tag in ("", TIMESTAMP_TAG):
            stamp = parse_timestamp(text)
            if stamp is not None:
                return TIMESTAMP_TAG, stamp
        plain = text.replace("_", "")
        integer = _go_parse_int(plain)
        if integer is not None:
            return INT_TAG, integer
        if _YAML_STYLE_FLOAT.fullmatch(plain):
            number = _go_parse_float(plain)
            if number is not None:
                return FLOAT_TAG, number
    return STR_TAG, text


def _hint(text: str) -> str | None:
    """The resolve table's first-character hint: ``D`` digit/sign, ``.``, ``M`` map word."""
    if not text:
        return "M"
    first = text[0]
    if first in "+-0123456789":
        return "D"
    if first == ".":
        return "."
    if first in "yYnNtTfFoO~":
        return "M"
    return None


def decode_binary(text: str) -> str | None:
    """``!!binary``: standard base64 with line breaks allowed; ``None`` when invalid."""
    try:
        raw = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "surrogateescape")


def go_format_float(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 64)`` as yaml.v3 writes a float64 (``.inf`` etc.)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    mantissa, _, exponent_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent_text or "0")
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
