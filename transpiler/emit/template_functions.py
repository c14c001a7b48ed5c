"""The template functions as the compiler sees them: Go's parameter types and
the ``golib.star`` helper that computes each one.

Parameter types decide how Go checks an argument before the call
(``validateType``): a ``reflect.Value`` parameter takes anything (a missing
value arrives as the invalid value), ``any`` takes anything (missing becomes
nil), and ``string`` rejects non-strings with Go's own error text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from transpiler.emit.template_env import UnsupportedTemplate
from transpiler.gotemplate import ast


class Param(Enum):
    """A Go parameter type of a template function."""

    VALUE = "reflect.Value"
    ANY = "interface {}"
    STRING = "string"


@dataclass(frozen=True)
class Function:
    """A function's fixed parameters, variadic tail and helper.

    ``fails``: the helper may return Go's ``error calling <f>: …``; such
    helpers take the error prefix as ``at``.
    """

    params: tuple[Param, ...]
    variadic: Param | None
    helper: str
    fails: bool = False


_V, _A, _S = Param.VALUE, Param.ANY, Param.STRING

FUNCTIONS: dict[str, Function] = {
    "and": Function((_V,), _V, "go_and"),
    "or": Function((_V,), _V, "go_or"),
    "call": Function((_V,), _V, "go_call", fails=True),
    "html": Function((), _A, "go_html"),
    "js": Function((), _A, "go_js"),
    "urlquery": Function((), _A, "go_urlquery"),
    "index": Function((_V,), _V, "go_index", fails=True),
    "slice": Function((_V,), _V, "go_slice", fails=True),
    "len": Function((_V,), None, "go_len", fails=True),
    "not": Function((_V,), None, "go_not"),
    "print": Function((), _A, "go_sprint"),
    "printf": Function((_S,), _A, "go_sprintf"),
    "println": Function((), _A, "go_sprintln"),
    "eq": Function((_V,), _V, "go_eq", fails=True),
    "ne": Function((_V, _V), None, "go_ne", fails=True),
    "lt": Function((_V, _V), None, "go_lt", fails=True),
    "le": Function((_V, _V), None, "go_le", fails=True),
    "gt": Function((_V, _V), None, "go_gt", fails=True),
    "ge": Function((_V, _V), None, "go_ge", fails=True),
    "json": Function((_A,), None, "go_json", fails=True),
    "quote": Function((_S,), None, "go_quote"),
    "fromJson": Function((_S,), None, "go_from_json", fails=True),
}

BOOL_RESULTS = frozenset({"not", "eq", "ne", "lt", "le", "gt", "ge"})
STRING_RESULTS = frozenset(
    {"html", "js", "urlquery", "print", "printf", "println", "json", "quote"}
)
INTERFACE_RESULTS = frozenset({"index", "and", "or"})


def param_type(function: Function, position: int) -> Param:
    """The type Go checks the argument at ``position`` against."""
    if position < len(function.params):
        return function.params[position]
    assert function.variadic is not None
    return function.variadic


_DIRECTIVE = re.compile(r"%[-+ 0]*[0-9]*(?:(?:\.[0-9]*)?[vsdqtfFeEgG%]|$)")


def check_format(node: ast.Node | None) -> None:
    """Accept printf formats go_sprintf reproduces exactly: a literal format
    whose directives use verbs v s d q t f F e E g G, flags - + space 0, a
    width and a precision (no %x, no ``*`` or ``[n]``, no ``#``, no %+q)."""
    if not isinstance(node, ast.StringNode):
        raise UnsupportedTemplate("printf with a format that is not a string literal")
    text, position = node.text, 0
    while (start := text.find("%", position)) >= 0:
        match = _DIRECTIVE.match(text, start)
        if match is None or ("+" in match.group() and match.group().endswith("q")):
            raise UnsupportedTemplate(f"printf directive not translated in {node.quoted}")
        position = match.end()
