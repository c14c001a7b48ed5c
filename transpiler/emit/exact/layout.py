"""Expressions of emitted scripts, laid out the way a person would format them.

An expression is kept on one line when it fits the width left at its
indentation; otherwise its arguments or items go one per line with a trailing
comma. The text is relative to the statement's indentation (libcst indents
continuation lines with the enclosing block).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from transpiler.emit.literals import string_literal

LINE_WIDTH = 99
INDENT = "    "


@dataclass(frozen=True)
class Code:
    """Source that is already an expression (a name, a literal, a compiled template)."""

    text: str


@dataclass(frozen=True)
class Call:
    """``func(arg, ..., name=value)``."""

    func: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True)
class DictOf:
    """A dict literal."""

    items: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True)
class ListOf:
    """A list literal."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Lambda:
    """``lambda: body``."""

    body: Expr


Expr = Code | Call | DictOf | ListOf | Lambda


def string(text: str) -> Code:
    """A string literal expression."""
    return Code(string_literal(text))


def call(func: str, *args: Expr, **kwargs: Expr) -> Call:
    """A call expression (keyword arguments in the order given)."""
    return Call(func, tuple(args), tuple(kwargs.items()))


def dict_of(items: Sequence[tuple[Expr, Expr]]) -> DictOf:
    """A dict literal expression."""
    return DictOf(tuple(items))


def render(expr: Expr, indent: int = 0, prefix_width: int = 0) -> str:
    """The expression's source, broken over lines when it does not fit.

    ``indent`` is the statement's indentation in columns and ``prefix_width``
    what precedes the expression on its first line (``name = `` and the like).
    """
    flat = _flat(expr)
    if "\n" not in flat and indent + prefix_width + len(flat) <= LINE_WIDTH:
        return flat
    return _broken(expr, indent)


def _flat(expr: Expr) -> str:
    if isinstance(expr, Code):
        return expr.text
    if isinstance(expr, Call):
        parts = [_flat(a) for a in expr.args] + [f"{k}={_flat(v)}" for k, v in expr.kwargs]
        return f"{expr.func}({', '.join(parts)})"
    if isinstance(expr, DictOf):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in expr.items) + "}"
    if isinstance(expr, ListOf):
        return "[" + ", ".join(_flat(i) for i in expr.items) + "]"
    return f"lambda: {_flat(expr.body)}"


def _broken(expr: Expr, indent: int) -> str:
    inner = indent + len(INDENT)
    if isinstance(expr, Code):
        return expr.text
    if isinstance(expr, Lambda):
        return "lambda: " + _broken(expr.body, indent)
    if isinstance(expr, Call):
        lines = [render(a, inner) for a in expr.args]
        lines += [f"{k}={render(v, inner, len(k) + 1)}" for k, v in expr.kwargs]
        return _block(f"{expr.func}(", lines, ")")
    if isinstance(expr, DictOf):
        lines = []
        for key, value in expr.items:
            key_text = _flat(key)
            lines.append(f"{key_text}: {render(value, inner, len(key_text) + 2)}")
        return _block("{", lines, "}")
    return _block("[", [render(i, inner) for i in expr.items], "]")


def _block(opening: str, lines: list[str], closing: str) -> str:
    if not lines:
        return opening + closing
    body = "".join(f"\n{INDENT}" + line.replace("\n", "\n" + INDENT) + "," for line in lines)
    return f"{opening}{body}\n{closing}"
