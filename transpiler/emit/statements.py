"""libcst statements for emitted scripts, with their comments and layout.

Statements are libcst nodes; expressions come from :mod:`transpiler.emit.layout`
(parsed by libcst, so a malformed expression can never reach a script).
Each builder takes the block depth it will sit at, to fit the line width.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from transpiler.emit.layout import INDENT, Expr, render

Body = list[cst.BaseStatement]


def comment_lines(text: str | None) -> list[cst.EmptyLine]:
    """``# text`` lines (one per line of ``text``) to put before a statement."""
    if not text:
        return []
    return [
        cst.EmptyLine(comment=cst.Comment(f"# {line}".rstrip())) for line in text.splitlines()
    ]


def _with_comment(statement: cst.BaseStatement, comment: str | None, blank: bool) -> cst.BaseStatement:
    leading = ([cst.EmptyLine(indent=False)] if blank else []) + comment_lines(comment)
    if not leading:
        return statement
    return statement.with_changes(leading_lines=leading)  # type: ignore[attr-defined]


def simple(source: str, depth: int, comment: str | None = None, blank: bool = False) -> cst.BaseStatement:
    """One simple statement from its (already laid out) source."""
    statement = cst.parse_statement(source + "\n")
    del depth
    return _with_comment(statement, comment, blank)


def assign(
    target: str, value: Expr, depth: int, comment: str | None = None, blank: bool = False
) -> cst.BaseStatement:
    """``target = value``."""
    text = render(value, depth * len(INDENT), len(target) + 3)
    return simple(f"{target} = {text}", depth, comment, blank)


def return_(value: Expr, depth: int, comment: str | None = None, blank: bool = False) -> cst.BaseStatement:
    """``return value``."""
    return simple(f"return {render(value, depth * len(INDENT), 7)}", depth, comment, blank)


def expression(value: Expr, depth: int, comment: str | None = None) -> cst.BaseStatement:
    """An expression used as a statement (a call for its effect)."""
    return simple(render(value, depth * len(INDENT)), depth, comment)


def if_(
    test: Expr,
    body: Body,
    depth: int,
    orelse: Body | None = None,
    comment: str | None = None,
    blank: bool = False,
) -> cst.BaseStatement:
    """``if test: body [else: orelse]``."""
    condition = cst.parse_expression(render(test, depth * len(INDENT), 4))
    otherwise = None
    if orelse:
        otherwise = cst.Else(body=cst.IndentedBlock(body=orelse))
    node = cst.If(test=condition, body=cst.IndentedBlock(body=body), orelse=otherwise)
    return _with_comment(node, comment, blank)


def for_(target: str, iterable: Expr, body: Body, depth: int, comment: str | None = None) -> cst.BaseStatement:
    """``for target in iterable: body``."""
    loop = cst.parse_statement(f"for {target} in {render(iterable, depth * len(INDENT), len(target) + 9)}:\n    pass\n")
    assert isinstance(loop, cst.For)
    return _with_comment(loop.with_changes(body=cst.IndentedBlock(body=body)), comment, False)


def _without_leading_blanks(statement: cst.BaseStatement) -> list[cst.EmptyLine]:
    lines = list(getattr(statement, "leading_lines", []))
    while lines and lines[0].comment is None:
        lines.pop(0)
    return lines


def def_(
    name: str, parameters: Sequence[str], body: Body, comment: str | None = None, blank: bool = True
) -> cst.BaseStatement:
    """``def name(parameters): body``."""
    params = cst.Parameters(params=[cst.Param(cst.Name(p)) for p in parameters])
    if body:
        body = [body[0].with_changes(leading_lines=_without_leading_blanks(body[0])), *body[1:]]  # type: ignore[attr-defined]
    node = cst.FunctionDef(name=cst.Name(name), params=params, body=cst.IndentedBlock(body=body))
    return _with_comment(node, comment, blank)
