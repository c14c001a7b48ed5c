"""Which ``printf`` formats the exact style's ``go_sprintf`` reproduces.

Everything else the exact emitter knows about template functions (Go's
parameter types, result kinds, the helper computing each) is in the shared
table, :data:`transpiler.gotemplate.functions.FUNCTIONS`; what it knows of
each verb is in :data:`transpiler.gotemplate.verbs.VERBS`.
"""

from __future__ import annotations

import re

from transpiler.emit.exact.template_env import UnsupportedTemplate
from transpiler.gotemplate import ast
from transpiler.gotemplate.verbs import VERBS, Support

_EXACT_VERBS = "".join(name for name, verb in VERBS.items() if verb.support is Support.EXACT)
_DIRECTIVE = re.compile(rf"%[-+ 0]*[0-9]*(?:(?:\.[0-9]*)?(?P<verb>[{re.escape(_EXACT_VERBS)}])|$)")


def check_format(node: ast.Node | None) -> None:
    """Accept printf formats go_sprintf reproduces exactly: a literal format whose
    directives use the verbs it reproduces for every operand, flags - + space 0 (+ only
    with a verb it honours it with), a width and a precision (no ``*`` or ``[n]``, no
    ``#``)."""
    if not isinstance(node, ast.StringNode):
        raise UnsupportedTemplate("printf with a format that is not a string literal")
    text, position = node.text, 0
    while (start := text.find("%", position)) >= 0:
        match = _DIRECTIVE.match(text, start)
        if match is None or ("+" in match.group() and not _honours_plus(match["verb"])):
            raise UnsupportedTemplate(f"printf directive not translated in {node.quoted}")
        position = match.end()


def _honours_plus(verb: str | None) -> bool:
    return verb is None or VERBS[verb].plus
