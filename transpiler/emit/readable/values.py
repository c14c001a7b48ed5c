"""What the readable emitter knows about a value: its Starlark expression, kind or constant.

A template's parts compile to :class:`Val`: either a value known when the
script is written (a literal, a default, a field no step ever has, which Go
reads as ``<no value>``) or an expression computed at run time with what is
known of its kind (a string parameter, a comparison's boolean, a backend's
anything). Constants fold the way Go's template engine would evaluate them,
so a workflow's fixed behaviour is written as the constant it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from transpiler.emit.ir import Attribute, Binary, Call, Cond, Dict, Expr, Index, Str, json_literal
from transpiler.golang.fmt import format_value
from transpiler.golang.values import NilList, NilMap
from transpiler.gotemplate.functions import NO_VALUE


class Kind(StrEnum):
    """What a run-time value is known to be."""

    STR = "string"
    NUM = "number"
    BOOL = "boolean"
    MAP = "map"
    LIST = "list"
    ANY = "any"


class _NotConstant:
    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Final = _NotConstant()


class Missing:
    """Go's missing value: a field that is not there (prints ``<no value>``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing()


@dataclass(frozen=True)
class Val:
    """A template value: a constant (``const``) or an expression of a known kind.

    ``base``/``key``: this value is ``base[key]`` (so a default can become
    ``base.get(key, default)``); ``encodes``: this value is ``json.encode`` of
    that one (so an object output can take the value itself); ``shows``: this
    value is ``str()`` of that one (so ``%s`` can format it directly);
    ``go_int``: a number Go holds as an int (a count, an index, ``len``), which
    every side prints as its digits; ``unset``: the same read giving None where vMCP's
    value is missing (``params.get("p")`` of an optional string parameter the script
    otherwise reads as ``""``), for a function, where ``""`` is not what Go sees;
    ``may_be_absent``: a map vMCP's record may lack, with its fields, on a path the workflow
    declares (the content of an answer a ``continue`` handler passed): the script reads it
    as ``(x or {}).get("f")``, missing fields as None, and never stops there.
    """

    expr: Expr | None
    kind: Kind = Kind.ANY
    const: Any = NOT_CONSTANT
    base: Val | None = None
    key: str | None = None
    encodes: Val | None = None
    shows: Val | None = None
    completed_if: Expr | None = None
    otherwise: str = ""
    item_kind: Kind = Kind.ANY
    go_int: bool = False
    unset: Expr | None = None
    may_be_absent: bool = False

    @property
    def constant(self) -> bool:
        """Whether the value is known when the script is written."""
        return self.const is not NOT_CONSTANT

    def code(self) -> Expr:
        """The value as an expression (constants as literals; MISSING never reaches here)."""
        if self.expr is not None:
            return self.expr
        if self.const is MISSING:
            raise ValueError("a missing value has no expression")
        return json_literal(plain(self.const))


def constant(value: Any) -> Val:
    """A value known when the script is written."""
    return Val(None, kind_of(value), value)


def runtime(expr: Expr, kind: Kind = Kind.ANY, **extra: Any) -> Val:
    """A value computed by the script."""
    return Val(expr, kind, **extra)


def count(expr: Expr) -> Val:
    """A number Go holds as an int, computed by the script (a count, an index, ``len``)."""
    return Val(expr, Kind.NUM, go_int=True)


def status(completed_if: Expr, otherwise: str) -> Val:
    """A step's status: ``completed`` when ``completed_if`` holds, else ``otherwise``."""
    expr = Cond(Str("completed"), completed_if, Str(otherwise))
    return Val(expr, Kind.STR, completed_if=completed_if, otherwise=otherwise)


def status_under(test: Expr, ran: Val) -> Val:
    """A guarded step's status: ``ran`` (its status when it runs) if ``test`` holds, else
    ``skipped``; two-valued (see :func:`status`) when a run always completes."""
    if ran.constant and ran.const == "completed":
        return status(test, "skipped")
    return Val(Cond(ran.code(), test, Str("skipped")), Kind.STR)


def kind_of(value: Any) -> Kind:
    """The kind of a constant."""
    if isinstance(value, bool):
        return Kind.BOOL
    if isinstance(value, int | float):
        return Kind.NUM
    if isinstance(value, str):
        return Kind.STR
    if isinstance(value, dict | NilMap):
        return Kind.MAP
    if isinstance(value, list | NilList):
        return Kind.LIST
    return Kind.ANY


def plain(value: Any) -> Any:
    """A constant as the script holds it: typed nils as None, whole floats as ints."""
    if isinstance(value, NilMap | NilList) or value is MISSING:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2.0**53:
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def go_text(value: Any) -> str:
    """What Go's template engine prints for a constant (``<no value>`` for a missing one)."""
    if value is MISSING or value is None:
        return NO_VALUE
    return format_value(value)


def index(base: Val, key: str) -> Val:
    """``base[key]`` at run time (``(base or {}).get(key)`` where ``base`` may be absent)."""
    if base.may_be_absent:
        return absent_or_get(base, Str(key))
    return runtime(Index(base.code(), Str(key)), Kind.ANY, base=base, key=key)


def absent_or_get(base: Val, key: Expr) -> Val:
    """``(base or {}).get(key)``: a field of a map that may be absent, None when missing."""
    held = runtime(Binary(base.code(), "or", Dict(())), Kind.MAP)
    read = Call(Attribute(held.code(), "get"), (key,))
    named = key.text if isinstance(key, Str) else None
    return runtime(read, Kind.ANY, base=held, key=named, may_be_absent=True)
