"""A step's ``arguments`` as a Starlark dict: templates compiled, other values literal.

vMCP expands string values as templates at every depth (S80) and passes other
values through with their YAML types. The result says whether some template
can fail, so the caller knows whether to check the arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.diagnostics import TranspilerError
from transpiler.emit.layout import Code, DictOf, Expr, ListOf, string
from transpiler.emit.literals import literal
from transpiler.emit.scope import EmitState
from transpiler.emit.templates import TemplateEnv

MAX_DEPTH = 100


class TooDeep(TranspilerError):
    """Arguments nested deeper than vMCP expands (S80)."""


@dataclass(frozen=True)
class Arguments:
    """The arguments expression and whether a template in it can yield an error."""

    expr: Expr
    fallible: bool


def arguments(state: EmitState, values: dict[str, Any] | None, env: TemplateEnv) -> Arguments:
    """The Starlark expression for a step's arguments (``{}`` when it has none)."""
    if not values:
        return Arguments(Code("{}"), False)
    fallible: list[bool] = []
    expr = _value(state, values, env, 0, fallible)
    return Arguments(expr, any(fallible))


def _value(state: EmitState, value: Any, env: TemplateEnv, depth: int, fallible: list[bool]) -> Expr:
    if depth > MAX_DEPTH:
        raise TooDeep(f"arguments nest deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        compiled = state.template(value, env)
        fallible.append(compiled.can_fail)
        return Code(compiled.code)
    if isinstance(value, dict):
        return DictOf(
            tuple(
                (string(str(key)), _value(state, item, env, depth + 1, fallible))
                for key, item in value.items()
            )
        )
    if isinstance(value, list):
        return ListOf(tuple(_value(state, item, env, depth + 1, fallible) for item in value))
    return Code(literal(value))
