"""The emitter's own limits: past them a tool is not converted, with the reason, in bounded time.

vMCP has no such limits (Go's template parser stops at 10,000 nested
parentheses); these are the transpiler's, and each refusal names it. The
printer recurses once per level of nesting and Python's parser, which checks
every exact script against the subset, reads at most 200 nested brackets, so
one statement nests at most :data:`MAX_NESTING` brackets; a template nests at
most :data:`MAX_TEMPLATE_NESTING` control structures and parenthesised
pipelines and holds at most :data:`MAX_TEMPLATE_ACTIONS` actions (emitting
costs about 2 ms per action).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from transpiler.diagnostics import TranspilerError
from transpiler.gotemplate import ast

MAX_NESTING: Final = 128
MAX_TEMPLATE_NESTING: Final = 64
MAX_TEMPLATE_ACTIONS: Final = 1000
_OPENERS = frozenset("([{")
_CLOSERS = frozenset(")]}")


class EmitterLimit(TranspilerError):
    """The tool is past one of the emitter's limits (not a limit of vMCP)."""


def check_nesting(source: str) -> None:
    """Refuse a statement whose brackets (outside string literals) nest past the limit."""
    depth = deepest = 0
    quote: str | None = None
    escaped = False
    for char in source:
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSERS:
            depth -= 1
    if deepest > MAX_NESTING:
        raise EmitterLimit(
            f"the script would nest {deepest} levels deep in one statement; the emitter's "
            f"limit is {MAX_NESTING} (a transpiler limit, not vMCP's)"
        )


def template_nesting(root: ast.ListNode) -> tuple[int, int]:
    """A template's deepest nesting of control structures and parenthesised pipelines, and its
    number of actions (``{{...}}``, control structures included)."""
    deepest = actions = 0
    pending: list[tuple[object, int]] = [(root, 0)]
    while pending:
        node, level = pending.pop()
        if isinstance(node, ast.ActionNode | ast.BranchNode | ast.TemplateNode):
            actions += 1
        if isinstance(node, ast.BranchNode):
            level += 1
            deepest = max(deepest, level)
            pending.extend((child, level) for child in (node.pipe, node.list, node.else_list))
        elif isinstance(node, ast.ListNode):
            pending.extend((child, level) for child in node.nodes)
        elif isinstance(node, ast.ActionNode | ast.TemplateNode):
            pending.append((node.pipe, level))
        elif isinstance(node, ast.PipeNode):
            pending.extend((command, level) for command in node.cmds)
        elif isinstance(node, ast.CommandNode):
            for argument in node.args:
                inner = argument.node if isinstance(argument, ast.ChainNode) else argument
                if isinstance(inner, ast.PipeNode):
                    deepest = max(deepest, level + 1)
                    pending.append((inner, level + 1))
    return deepest, actions


def check_template(trees: Iterable[ast.ListNode]) -> None:
    """Refuse a template (its trees: the main one and every ``define``) past a limit."""
    measured = [template_nesting(tree) for tree in trees]
    nesting = max((n for n, _ in measured), default=0)
    actions = sum(a for _, a in measured)
    if nesting > MAX_TEMPLATE_NESTING:
        raise EmitterLimit(
            f"a template nests {nesting} levels deep; the emitter's limit is "
            f"{MAX_TEMPLATE_NESTING} (a transpiler limit, not vMCP's)"
        )
    if actions > MAX_TEMPLATE_ACTIONS:
        raise EmitterLimit(
            f"a template has {actions} actions; the emitter's limit is {MAX_TEMPLATE_ACTIONS} "
            "(a transpiler limit, not vMCP's)"
        )


MAX_DEPTH: Final = 100


class TooDeep(TranspilerError):
    """Arguments nested deeper than vMCP expands (S80): vMCP fails the step at run time."""


def too_deep() -> TooDeep:
    """The refusal of arguments nested past :data:`MAX_DEPTH` (either style)."""
    return TooDeep(
        f"arguments nest deeper than {MAX_DEPTH} levels: vMCP fails the step at run time "
        f"with `template expansion depth limit exceeded: {MAX_DEPTH}`, which the emitter "
        "does not reproduce"
    )
