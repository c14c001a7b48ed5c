"""The exact style's pieces of IR: its layouts, literals, checked statements, comments.

Scripts are :mod:`transpiler.emit.ir` nodes the printer lays out. The exact
style does not hug brackets; the functions compiled from templates are
written one statement a line, ``else: if`` kept apart. Literals of input
text are refused when built if they have no Starlark form, and each
statement is checked against the nesting limit (:func:`check_nesting`) as
it is built, so a refusal names the step that caused it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from transpiler.emit import ir
from transpiler.emit.limits import check_nesting
from transpiler.emit.literals import literal

#: How run() and the rest of an exact script are laid out.
LAYOUT = ir.Layout(hug=False, colon_fits=True)
#: How a function compiled from a template is laid out (its expressions are one line each).
TEMPLATE_LAYOUT = ir.Layout(hug=False, colon_fits=True, elif_chains=False)

Body = list[ir.Statement]


def string(text: str) -> ir.Str:
    """A string literal of ``text``, refused now if it has none (a lone surrogate)."""
    literal(text)
    return ir.Str(text)


def constant(value: Any) -> ir.Literal:
    """A YAML value as a one-line literal, refused now if it has none."""
    literal(value)
    return ir.Literal(value)


def checked(statement: ir.Statement) -> ir.Statement:
    """The statement, refused if its brackets nest past the emitter's limit."""
    if isinstance(statement, ir.Assign | ir.Return | ir.ExprStmt):
        value = statement.expr if isinstance(statement, ir.ExprStmt) else statement.value
        if value is not None:
            check_nesting(ir.flat(value))
    elif isinstance(statement, ir.If):
        check_nesting(ir.flat(statement.test))
    return statement


def assign(target: str, value: ir.Expr) -> ir.Statement:
    """``target = value``."""
    return checked(ir.assign(target, value))


def return_(value: ir.Expr) -> ir.Statement:
    """``return value``."""
    return checked(ir.Return(value))


def expression(value: ir.Expr) -> ir.Statement:
    """An expression used as a statement (a call for its effect)."""
    return checked(ir.ExprStmt(value))


def if_(test: ir.Expr, body: Sequence[ir.Statement], orelse: Sequence[ir.Statement] = ()) -> ir.If:
    """``if test: body [else: orelse]`` (an ``else`` of one ``if`` prints as ``elif``)."""
    statement = ir.If(test, tuple(body), tuple(orelse))
    checked(statement)
    return statement


def introduce(body: Sequence[ir.Statement], comment: str | None, blank: bool) -> Body:
    """``body`` after an optional blank line and comment (its own blank lines before its first
    statement give way to them; its own comment stays, after the new one)."""
    leading: Body = [ir.Blank()] if blank else []
    if comment:
        leading.append(ir.Comment(comment))
    statements = list(body)
    if not leading:
        return statements
    while statements and isinstance(statements[0], ir.Blank):
        statements.pop(0)
    return [*leading, *statements]


def rewrite(expr: ir.Expr, change: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """``expr`` with ``change`` applied to each expression inside it, innermost first."""

    def visit(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(visit(item) for item in value)
        if isinstance(value, ir.Literal) or not dataclasses.is_dataclass(value):
            return value
        assert not isinstance(value, type)
        fields = {f.name: visit(getattr(value, f.name)) for f in dataclasses.fields(value)}
        rebuilt = dataclasses.replace(value, **fields)
        return change(rebuilt) if isinstance(rebuilt, ir.Expr) else rebuilt

    result: ir.Expr = visit(expr)
    return result


def names_in(statements: Sequence[ir.Statement]) -> set[str]:
    """Every name the statements bind or read (variables, functions, parameters, targets)."""
    found: set[str] = set()
    exprs: list[ir.Expr] = []
    pending = list(statements)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ir.Assign):
            exprs += [*statement.targets, statement.value]
        elif isinstance(statement, ir.ExprStmt):
            exprs.append(statement.expr)
        elif isinstance(statement, ir.Return) and statement.value is not None:
            exprs.append(statement.value)
        elif isinstance(statement, ir.ReturnTuple):
            exprs += statement.values
        elif isinstance(statement, ir.If):
            exprs.append(statement.test)
            pending += [*statement.body, *statement.orelse]
        elif isinstance(statement, ir.For):
            found.update(statement.targets)
            exprs.append(statement.iterable)
            pending += statement.body
        elif isinstance(statement, ir.Def):
            found.add(statement.name)
            found.update(p.name for p in statement.params)
            exprs += [p.default for p in statement.params if p.default is not None]
            pending += statement.body
    for expr in exprs:
        for inner in ir.walk(expr):
            if isinstance(inner, ir.Name):
                found.add(inner.id)
            elif isinstance(inner, ir.Lambda):
                found.update(p.name for p in inner.params)
            elif isinstance(inner, ir.Comprehension):
                for clause in inner.clauses:
                    if isinstance(clause, ir.ForClause):
                        found.update(clause.targets)
    return found
