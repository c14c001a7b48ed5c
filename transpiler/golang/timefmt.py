"""Go's ``time.Time`` text forms for a :class:`GoTime`.

A naive ``datetime`` is UTC (yaml.v3 gives UTC to a timestamp without a
zone). A zero offset prints as the ``UTC`` zone; another offset prints as Go
prints a fixed zone without a name (``+0200 +0200``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from transpiler.golang.values import GoTime


def _offset_seconds(moment: datetime) -> int:
    offset = moment.utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _fraction(moment: datetime) -> str:
    if moment.microsecond == 0:
        return ""
    return "." + f"{moment.microsecond:06d}".rstrip("0")


def _offset_text(seconds: int, colon: bool) -> str:
    sign = "-" if seconds < 0 else "+"
    minutes = abs(seconds) // 60
    separator = ":" if colon else ""
    return f"{sign}{minutes // 60:02d}{separator}{minutes % 60:02d}"


def _date_time(moment: datetime, separator: str) -> str:
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}{separator}"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{_fraction(moment)}"
    )


def time_string(value: GoTime) -> str:
    """``time.Time.String()``: ``2006-01-02 15:04:05.999999999 -0700 MST``."""
    moment = value.value
    offset = _offset_seconds(moment)
    zone = "UTC" if offset == 0 else _offset_text(offset, colon=False)
    return f"{_date_time(moment, ' ')} {_offset_text(offset, colon=False)} {zone}"


def time_rfc3339_nano(value: GoTime) -> str:
    """``time.Time.MarshalJSON`` text without quotes (RFC 3339 with nanoseconds)."""
    moment = value.value
    offset = _offset_seconds(moment)
    zone = "Z" if offset == 0 else _offset_text(offset, colon=True)
    return f"{_date_time(moment, 'T')}{zone}"


_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_UNIX_TO_INTERNAL = 62135596800


def time_go_string(value: GoTime) -> str:
    """``time.Time.GoString()`` (what ``%#v`` prints)."""
    moment = value.value
    zone = "time.UTC" if _offset_seconds(moment) == 0 else 'time.Location("")'
    return (
        f"time.Date({moment.year}, time.{_MONTHS[moment.month - 1]}, {moment.day}, "
        f"{moment.hour}, {moment.minute}, {moment.second}, {moment.microsecond * 1000}, {zone})"
    )


def time_fields(value: GoTime) -> tuple[int, int, bool]:
    """The struct fields Go prints for a parsed time: ``wall``, ``ext``, and
    whether ``loc`` is nil (UTC)."""
    moment = value.value
    seconds = int((_naive_utc(moment) - datetime(1970, 1, 1)).total_seconds())
    return moment.microsecond * 1000, seconds + _UNIX_TO_INTERNAL, _offset_seconds(moment) == 0


def utc_equal(left: GoTime, right: GoTime) -> bool:
    """Go ``==`` on two times: same instant, same zone offset."""
    a, b = left.value, right.value
    return _offset_seconds(a) == _offset_seconds(b) and _naive_utc(a) == _naive_utc(b)


def _naive_utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None) - timedelta(seconds=_offset_seconds(moment))
