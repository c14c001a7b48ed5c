"""Go's ``Node.String()``: the source form of a node.

Execution errors quote it (``executing "expand" at <index .a 1>``), and
printing a whole tree gives back an equivalent template (the basis of the
print/parse round-trip property). No recursion: a work list drives it.
"""

from __future__ import annotations

from transpiler.golang.strconv import quote
from transpiler.gotemplate import ast

_Piece = str | ast.Node


def _expand(node: ast.Node) -> list[_Piece]:
    """The pieces of one node: text, or child nodes still to print."""
    if isinstance(node, ast.ListNode):
        return list(node.nodes)
    if isinstance(node, ast.TextNode):
        return [node.text]
    if isinstance(node, ast.CommentNode):
        return ["{{" + node.text + "}}"]
    if isinstance(node, ast.ActionNode):
        return ["{{", node.pipe, "}}"]
    if isinstance(node, ast.PipeNode):
        return _pipe_pieces(node)
    if isinstance(node, ast.CommandNode):
        return _command_pieces(node)
    if isinstance(node, ast.ChainNode):
        inner: list[_Piece] = (
            ["(", node.node, ")"] if isinstance(node.node, ast.PipeNode) else [node.node]
        )
        return [*inner, "".join("." + f for f in node.field)]
    if isinstance(node, ast.BranchNode):
        return _branch_pieces(node)
    if isinstance(node, ast.TemplateNode):
        pieces: list[_Piece] = ["{{template " + quote(node.name)]
        if node.pipe is not None:
            pieces += [" ", node.pipe]
        return [*pieces, "}}"]
    return [_leaf_text(node)]


def _leaf_text(node: ast.Node) -> str:
    if isinstance(node, ast.IdentifierNode):
        return node.ident
    if isinstance(node, ast.VariableNode):
        return ".".join(node.ident)
    if isinstance(node, ast.FieldNode):
        return "".join("." + ident for ident in node.ident)
    if isinstance(node, ast.BoolNode):
        return "true" if node.value else "false"
    if isinstance(node, ast.NumberNode):
        return node.text
    if isinstance(node, ast.StringNode):
        return node.quoted
    if isinstance(node, ast.NilNode):
        return "nil"
    if isinstance(node, ast.DotNode):
        return "."
    if isinstance(node, ast.BreakNode):
        return "{{break}}"
    if isinstance(node, ast.ContinueNode):
        return "{{continue}}"
    raise TypeError(f"unknown node {type(node).__name__}")


def _pipe_pieces(node: ast.PipeNode) -> list[_Piece]:
    pieces: list[_Piece] = []
    if node.decl:
        for i, variable in enumerate(node.decl):
            if i:
                pieces.append(", ")
            pieces.append(variable)
        pieces.append(" := ")
    for i, command in enumerate(node.cmds):
        if i:
            pieces.append(" | ")
        pieces.append(command)
    return pieces


def _command_pieces(node: ast.CommandNode) -> list[_Piece]:
    pieces: list[_Piece] = []
    for i, arg in enumerate(node.args):
        if i:
            pieces.append(" ")
        if isinstance(arg, ast.PipeNode):
            pieces += ["(", arg, ")"]
        else:
            pieces.append(arg)
    return pieces


def _branch_pieces(node: ast.BranchNode) -> list[_Piece]:
    keyword = {ast.IfNode: "if", ast.RangeNode: "range", ast.WithNode: "with"}[type(node)]
    pieces: list[_Piece] = ["{{" + keyword + " ", node.pipe, "}}", node.list]
    if node.else_list is not None:
        pieces += ["{{else}}", node.else_list]
    return [*pieces, "{{end}}"]


def node_text(node: ast.Node) -> str:
    """Go's ``String()`` of ``node``."""
    out: list[str] = []
    pending: list[_Piece] = [node]
    while pending:
        piece = pending.pop()
        if isinstance(piece, str):
            out.append(piece)
        else:
            pending.extend(reversed(_expand(piece)))
    return "".join(out)
