"""Templates that only JSON-encode a value, read as that value.

vMCP renders a forEach collection or an object/array output property as
text and parses it back as JSON. When the template is exactly
``{{json X}}``, parsing the text gives X's value again (as JSON-typed data),
so the script can use X directly instead of encoding and decoding text.
"""

from __future__ import annotations

from transpiler.emit import ir
from transpiler.emit.exact.templates import TemplateEnv, lone_value
from transpiler.gotemplate import TemplateSyntaxError, ast, parse
from transpiler.gotemplate.functions import FUNCTIONS, Codec


def json_value(source: str, env: TemplateEnv) -> ir.Expr | None:
    """X's value expression when ``source`` is exactly ``{{json X}}``, else None."""
    try:
        template = parse(source)
    except TemplateSyntaxError:
        return None
    nodes = [n for n in template.root.nodes if not _blank(n)]
    if len(nodes) != 1 or not isinstance(nodes[0], ast.ActionNode):
        return None
    commands = nodes[0].pipe.cmds
    if nodes[0].pipe.decl or len(commands) != 1:
        return None
    first = commands[0].args[0] if commands[0].args else None
    if not (
        isinstance(first, ast.IdentifierNode) and FUNCTIONS[first.ident].codec is Codec.ENCODES
    ):
        return None
    return lone_value(source, env)


def _blank(node: ast.Node) -> bool:
    return isinstance(node, ast.TextNode) and not node.text.strip(" \t\r\n")
