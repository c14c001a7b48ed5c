"""vMCP's ``templates.ExtractReferences`` (``pkg/templates/references.go``), used by S23.

Field chains that start at dot, as written, wherever they appear: actions,
pipelines, ``if``/``range``/``with`` branches, variable declarations and
chained access (``(pipeline).a.b`` reports ``.a.b``). Chains through ``$``,
variables or ``index`` are not references. Every tree (``define``/``block``)
is walked. vMCP returns a set in Go map order; we return each chain once, in
the order first met (a chain's fields before its term), main tree first.
"""

from __future__ import annotations

from transpiler.gotemplate import ast
from transpiler.gotemplate.parser import Template


def _children(node: ast.Node) -> list[ast.Node]:
    if isinstance(node, ast.ListNode):
        return list(node.nodes)
    if isinstance(node, ast.ActionNode):
        return [node.pipe]
    if isinstance(node, ast.PipeNode):
        return [*node.cmds, *node.decl]
    if isinstance(node, ast.CommandNode):
        return list(node.args)
    if isinstance(node, ast.ChainNode):
        return [node.node]
    if isinstance(node, ast.BranchNode):
        branches: list[ast.Node] = [node.pipe, node.list]
        return branches if node.else_list is None else [*branches, node.else_list]
    if isinstance(node, ast.TemplateNode):
        return [] if node.pipe is None else [node.pipe]
    return []


def extract_references(template: Template) -> list[tuple[str, ...]]:
    """Field chains from dot, e.g. ``("steps", "fetch", "output", "items")``."""
    found: dict[tuple[str, ...], None] = {}
    trees = [template.root] + [t for n, t in template.trees.items() if n != template.name]
    for tree in trees:
        pending: list[ast.Node] = [tree]
        while pending:
            node = pending.pop()
            if isinstance(node, ast.FieldNode):
                found.setdefault(node.ident)
            elif isinstance(node, ast.ChainNode):
                found.setdefault(node.field)
            pending.extend(reversed(_children(node)))
    return list(found)
