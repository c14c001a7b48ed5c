"""Which ``printf`` formats the exact style's ``go_sprintf`` reproduces.

Everything else the exact emitter knows about template functions (Go's
parameter types, result kinds, the helper computing each) is in the shared
table, :data:`transpiler.gotemplate.functions.FUNCTIONS`.
"""

from __future__ import annotations

import re

from transpiler.emit.exact.template_env import UnsupportedTemplate
from transpiler.gotemplate import ast

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
