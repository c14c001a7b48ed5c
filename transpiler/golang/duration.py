"""Go's ``time.ParseDuration``, exactly, and the CRD admission pattern for durations.

vMCP reads every ``timeout`` and ``retryDelay`` through ``time.ParseDuration``
(S6); Kubernetes admission first checks the stricter OpenAPI pattern.
"""

from __future__ import annotations

import re
from typing import Final

NANOSECOND: Final = 1
MICROSECOND: Final = 1000 * NANOSECOND
MILLISECOND: Final = 1000 * MICROSECOND
SECOND: Final = 1000 * MILLISECOND
MINUTE: Final = 60 * SECOND
HOUR: Final = 60 * MINUTE

_UNITS: Final[dict[bytes, int]] = {
    b"ns": NANOSECOND,
    b"us": MICROSECOND,
    "\u00b5s".encode(): MICROSECOND,
    "\u03bcs".encode(): MICROSECOND,
    b"ms": MILLISECOND,
    b"s": SECOND,
    b"m": MINUTE,
    b"h": HOUR,
}

_LIMIT: Final = 1 << 63
_CRD_PATTERN: Final = re.compile(r"([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+")
_HEX: Final = "0123456789abcdef"


class DurationError(ValueError):
    """A string ``time.ParseDuration`` rejects; ``str(error)`` is Go's message."""


def go_time_quote(text: bytes) -> str:
    """Quote like the ``time`` package's private ``quote``: non-ASCII bytes become ``\\xNN``."""
    out = ['"']
    for byte in text:
        if byte >= 0x80 or byte < 0x20:
            out.append("\\x" + _HEX[byte >> 4] + _HEX[byte & 0xF])
        else:
            char = chr(byte)
            if char in '"\\':
                out.append("\\")
            out.append(char)
    out.append('"')
    return "".join(out)


def _leading_int(text: bytes) -> tuple[int, bytes] | None:
    """Consume ``[0-9]*``; ``None`` on overflow past 1<<63."""
    value = 0
    index = 0
    while index < len(text) and 0x30 <= text[index] <= 0x39:
        if value > _LIMIT // 10:
            return None
        value = value * 10 + text[index] - 0x30
        if value > _LIMIT:
            return None
        index += 1
    return value, text[index:]


def _leading_fraction(text: bytes) -> tuple[int, float, bytes]:
    """Consume ``[0-9]*`` after a dot; stop gaining precision on overflow."""
    value = 0
    scale = 1.0
    overflow = False
    index = 0
    while index < len(text) and 0x30 <= text[index] <= 0x39:
        if not overflow:
            if value > (_LIMIT - 1) // 10:
                overflow = True
            else:
                candidate = value * 10 + text[index] - 0x30
                if candidate > _LIMIT:
                    overflow = True
                else:
                    value = candidate
                    scale *= 10
        index += 1
    return value, scale, text[index:]


def parse_duration(text: str) -> int:
    """Parse like Go's ``time.ParseDuration``; returns nanoseconds.

    Raises :class:`DurationError` carrying Go's exact message, e.g.
    ``time: missing unit in duration "30"``.
    """
    original = text.encode("utf-8", "surrogateescape")
    invalid = DurationError("time: invalid duration " + go_time_quote(original))
    rest = original
    negative = False
    if rest[:1] in (b"-", b"+"):
        negative = rest[:1] == b"-"
        rest = rest[1:]
    if rest == b"0":
        return 0
    if not rest:
        raise invalid
    total = 0
    while rest:
        if not (rest[0] == 0x2E or 0x30 <= rest[0] <= 0x39):
            raise invalid
        before = len(rest)
        consumed = _leading_int(rest)
        if consumed is None:
            raise invalid
        whole, rest = consumed
        has_whole = before != len(rest)
        fraction, scale, has_fraction = 0, 1.0, False
        if rest[:1] == b".":
            rest = rest[1:]
            before = len(rest)
            fraction, scale, rest = _leading_fraction(rest)
            has_fraction = before != len(rest)
        if not has_whole and not has_fraction:
            raise invalid
        unit_end = 0
        while unit_end < len(rest) and not (
            rest[unit_end] == 0x2E or 0x30 <= rest[unit_end] <= 0x39
        ):
            unit_end += 1
        if unit_end == 0:
            raise DurationError("time: missing unit in duration " + go_time_quote(original))
        unit_text, rest = rest[:unit_end], rest[unit_end:]
        unit = _UNITS.get(unit_text)
        if unit is None:
            unit_quoted, original_quoted = go_time_quote(unit_text), go_time_quote(original)
            raise DurationError(f"time: unknown unit {unit_quoted} in duration {original_quoted}")
        if whole > _LIMIT // unit:
            raise invalid
        whole *= unit
        if fraction > 0:
            whole += int(float(fraction) * (float(unit) / scale))
            if whole > _LIMIT:
                raise invalid
        total += whole
        if total > _LIMIT:
            raise invalid
    if negative:
        return -total
    if total > _LIMIT - 1:
        raise invalid
    return total


def matches_crd_pattern(text: str) -> bool:
    """Whether Kubernetes admission accepts the duration string (the CRD's pattern)."""
    return _CRD_PATTERN.fullmatch(text) is not None


def format_duration(nanoseconds: int) -> str:
    """Go's ``time.Duration.String`` (``1h2m3.5s``, ``1.5ms``, ``0s``)."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    magnitude = abs(nanoseconds)
    if magnitude < SECOND:
        for unit_name, unit in (("ns", NANOSECOND), ("µs", MICROSECOND), ("ms", MILLISECOND)):
            if magnitude < unit * 1000:
                return sign + _fixed(magnitude, unit) + unit_name
    hours, remainder = divmod(magnitude, HOUR)
    minutes, remainder = divmod(remainder, MINUTE)
    text = _fixed(remainder, SECOND) + "s"
    if hours or minutes:
        text = f"{minutes}m" + text
    if hours:
        text = f"{hours}h" + text
    return sign + text


def _fixed(value: int, unit: int) -> str:
    """``value/unit`` in decimal with trailing zeros of the fraction removed."""
    whole, fraction = divmod(value, unit)
    if not fraction:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}." + str(fraction).rjust(digits, "0").rstrip("0")
