"""libcst statements for emitted scripts, with their comments and layout.

Statements are libcst nodes; expressions come from :mod:`transpiler.emit.exact.layout`
(parsed by libcst, so a malformed expression can never reach a script).
Builders take the block depth the statement will sit at, to fit the line width.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst

from transpiler.emit.exact.layout import INDENT, Expr, render
from transpiler.emit.limits import check_nesting
from transpiler.inert import comment_lines as inert_lines

Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
Body = list[Statement]


def comment_lines(text: str | None) -> list[cst.EmptyLine]:
    """``# text`` lines (one per line of ``text``, made inert) to put before a statement."""
    if not text:
        return []
    return [cst.EmptyLine(comment=cst.Comment(f"# {line}".rstrip())) for line in inert_lines(text)]


def with_leading(statement: Statement, lines: Sequence[cst.EmptyLine]) -> Statement:
    """The statement with these blank and comment lines before it."""
    return statement.with_changes(leading_lines=list(lines))


def introduce(statement: Statement, comment: str | None, blank: bool) -> Statement:
    """Put an optional blank line and comment before a statement, keeping its own comment."""
    leading = ([cst.EmptyLine(indent=False)] if blank else []) + comment_lines(comment)
    own = [line for line in statement.leading_lines if line.comment is not None]
    if not leading:
        return statement
    return with_leading(statement, [*leading, *own])


def simple(source: str, comment: str | None = None, blank: bool = False) -> Statement:
    """One simple statement from its (already laid out) source."""
    check_nesting(source)
    return introduce(_statement(source), comment, blank)


def _statement(source: str) -> Statement:
    """The statement ``source`` is: kept verbatim when Python's parser reads it as one
    simple statement (a tenth of libcst's parse), else parsed by libcst."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except SyntaxError:
        tree = None
    if (
        tree is not None
        and len(tree.body) == 1
        and isinstance(tree.body[0], _SIMPLE)
        and '"""' not in source
        and "'''" not in source
    ):
        return cst.SimpleStatementLine(body=[_Verbatim(source)])
    return cst.parse_statement(source + "\n")


_SIMPLE = (ast.Assign, ast.AugAssign, ast.Return, ast.Expr, ast.Pass, ast.Break, ast.Continue)


@dataclass(frozen=True)
class _Verbatim(cst.BaseSmallStatement):
    """A simple statement as its source text, generated as libcst generates its parse: each
    continuation line indented to the block the statement sits in."""

    source: str
    semicolon: cst.Semicolon | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT

    def _visit_and_replace_children(self, visitor: Any) -> _Verbatim:
        return self

    def _codegen_impl(self, state: Any, default_semicolon: bool = False) -> None:
        state.add_token(self.source.replace("\n", "\n" + "".join(state.indent_tokens)))


def _width(depth: int) -> int:
    return depth * len(INDENT)


def assign(
    target: str, value: Expr, depth: int, comment: str | None = None, blank: bool = False
) -> Statement:
    """``target = value``."""
    return simple(f"{target} = {render(value, _width(depth), len(target) + 3)}", comment, blank)


def return_(value: Expr, depth: int, comment: str | None = None, blank: bool = False) -> Statement:
    """``return value``."""
    return simple(f"return {render(value, _width(depth), 7)}", comment, blank)


def expression(value: Expr, depth: int, comment: str | None = None) -> Statement:
    """An expression used as a statement (a call for its effect)."""
    return simple(render(value, _width(depth)), comment)


def if_(
    test: Expr,
    body: Body,
    depth: int,
    orelse: Body | None = None,
    comment: str | None = None,
    blank: bool = False,
) -> Statement:
    """``if test: body [else: orelse]``; an ``else`` holding one ``if`` becomes ``elif``."""
    condition_source = render(test, _width(depth), 4)
    check_nesting(condition_source)
    condition = cst.parse_expression(condition_source)
    otherwise: cst.If | cst.Else | None = None
    lone = orelse[0] if orelse and len(orelse) == 1 else None
    if isinstance(lone, cst.If) and not lone.leading_lines:
        otherwise = lone
    if otherwise is None and orelse:
        otherwise = cst.Else(body=cst.IndentedBlock(body=orelse))
    node = cst.If(test=condition, body=cst.IndentedBlock(body=body), orelse=otherwise)
    return introduce(node, comment, blank)


def def_(
    name: str, parameters: Sequence[str], body: Body, comment: str | None = None, blank: bool = True
) -> Statement:
    """``def name(parameters): body`` (the body starts without blank lines)."""
    params = cst.Parameters(params=[cst.Param(cst.Name(p)) for p in parameters])
    if body:
        first = body[0]
        kept = list(first.leading_lines)
        while kept and kept[0].comment is None:
            kept.pop(0)
        body = [with_leading(first, kept), *body[1:]]
    node = cst.FunctionDef(name=cst.Name(name), params=params, body=cst.IndentedBlock(body=body))
    return introduce(node, comment, blank)
