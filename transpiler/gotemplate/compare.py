"""The comparison builtins ``eq ne lt le gt ge`` with Go 1.26's rules and errors (S75)."""

from __future__ import annotations

from typing import Any

from transpiler.golang.fmt import sprintf
from transpiler.golang.timefmt import utc_equal
from transpiler.golang.types import Kind, kind_of, type_name
from transpiler.golang.values import GoTime
from transpiler.gotemplate.runtime import MISSING, is_nil, reflect_kind, string_bytes_less

BAD_TYPE = "invalid type for comparison"
NO_COMPARISON = "missing argument for comparison"
_BASIC = {Kind.BOOL, Kind.INT, Kind.UINT, Kind.FLOAT, Kind.COMPLEX, Kind.STRING}


class ComparisonError(ValueError):
    """A comparison failed; the message is Go's."""


def _unbox(value: Any) -> Any:
    """``indirectInterface``: a nil interface becomes the invalid value."""
    return MISSING if value is None else value


def _basic_kind(value: Any) -> Kind | None:
    if value is MISSING:
        return None
    kind = kind_of(value)
    return kind if kind in _BASIC else None


def _incompatible(left: Any, right: Any) -> ComparisonError:
    return ComparisonError(
        f"incompatible types for comparison: {type_name(left)} and {type_name(right)}"
    )


def _equal_basic(kind: Kind, left: Any, right: Any) -> bool:
    if kind == Kind.STRING:
        return bool(left == right)
    if kind == Kind.BOOL:
        return bool(left) == bool(right)
    return bool(left == right)


def _equal_other(left: Any, right: Any) -> bool:
    """``eq`` of two values that are not basic kinds (maps, lists, times, nil)."""
    left_kind, right_kind = reflect_kind(left), reflect_kind(right)
    if left_kind != right_kind and "invalid" not in (left_kind, right_kind):
        raise ComparisonError(
            sprintf(
                "non-comparable types %s: %v, %s: %v",
                [left, type_name(left), type_name(right), right],
            )
        )
    if is_nil(left) or is_nil(right):
        return is_nil(left) == is_nil(right)
    if not isinstance(right, GoTime):
        raise ComparisonError(sprintf("non-comparable type %s: %v", [right, type_name(right)]))
    return isinstance(left, GoTime) and utc_equal(left, right)


def eq(first: Any, *others: Any) -> bool:
    """``eq a b c…``: a equals any of the others."""
    first = _unbox(first)
    if not others:
        raise ComparisonError(NO_COMPARISON)
    first_kind = _basic_kind(first)
    for other in others:
        other = _unbox(other)
        other_kind = _basic_kind(other)
        if first_kind != other_kind:
            if {first_kind, other_kind} == {Kind.INT, Kind.UINT}:
                if first == other:
                    return True
                continue
            if first is not MISSING and other is not MISSING:
                raise _incompatible(first, other)
            continue
        if first_kind is None:
            if _equal_other(first, other):
                return True
        elif _equal_basic(first_kind, first, other):
            return True
    return False


def ne(first: Any, second: Any) -> bool:
    """``ne a b``."""
    return not eq(first, second)


def lt(first: Any, second: Any) -> bool:
    """``lt a b``: numbers and strings only."""
    first, second = _unbox(first), _unbox(second)
    first_kind, second_kind = _basic_kind(first), _basic_kind(second)
    if first_kind is None or second_kind is None:
        raise ComparisonError(BAD_TYPE)
    if first_kind != second_kind:
        if {first_kind, second_kind} == {Kind.INT, Kind.UINT}:
            return bool(first < second)
        raise _incompatible(first, second)
    if first_kind in (Kind.BOOL, Kind.COMPLEX):
        raise ComparisonError(BAD_TYPE)
    if first_kind == Kind.STRING:
        return string_bytes_less(first, second)
    return bool(first < second)


def le(first: Any, second: Any) -> bool:
    """``le a b``: ``lt`` or ``eq``."""
    return lt(first, second) or eq(first, second)


def gt(first: Any, second: Any) -> bool:
    """``gt a b``: not ``le``."""
    return not le(first, second)


def ge(first: Any, second: Any) -> bool:
    """``ge a b``: not ``lt``."""
    return not lt(first, second)
