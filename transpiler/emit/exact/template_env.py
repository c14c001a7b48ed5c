"""The data a compiled template reads, and what compiling gives back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from transpiler.diagnostics import TranspilerError
from transpiler.emit import ir


class UnsupportedTemplate(TranspilerError):
    """A template using a construct this compiler does not translate exactly."""


@dataclass(frozen=True)
class ForEachEnv:
    """``.forEach`` while expanding a forEach step's inner arguments."""

    item_var: str
    item: ir.Expr
    index: ir.Expr


@dataclass(frozen=True)
class TemplateEnv:
    """Where a template's data lives in the emitted script.

    Every field is a Starlark expression. ``params`` and ``workflow`` evaluate to
    dicts. ``step(id, part)`` gives the expression of ``.steps.<id>.<part>``
    for part ``output`` (a dict or ``GO_NIL_MAP``), ``status`` (a string),
    ``content`` (a dict) or ``error`` (a string); None means the step has not
    run here (so ``.steps.<id>`` is missing), or, for ``error`` alone, that
    the step has no error key. ``steps_map()`` is the whole ``.steps`` map in
    that shape, used only for dynamic access and printing. ``.vars`` is
    always an empty map.
    """

    params: ir.Expr
    step: Callable[[str, str], ir.Expr | None]
    steps_map: Callable[[], ir.Expr]
    workflow: ir.Expr
    for_each: ForEachEnv | None = None


@dataclass(frozen=True)
class CompiledTemplate:
    """A template as Starlark.

    ``expr`` evaluates to the rendered ``str`` or to an error value
    (``go_is_error``); it is written on one line. ``can_fail`` is False when
    it never is one. ``definitions`` are functions ``expr`` calls, to be
    placed before use.
    ``helpers`` are the library helpers used (see :func:`helper_source`).
    ``reads`` names the env parts read: ``params``, ``workflow``, ``steps``,
    ``forEach``, and ``step:<id>:<part>``. ``parse_error`` marks a template
    that does not parse: ``expr`` is then the constant error
    ``template: expand:<line>: <msg>`` (vMCP reports it as a parse failure).
    """

    expr: ir.Expr
    helpers: frozenset[str]
    can_fail: bool
    definitions: tuple[ir.Def, ...] = ()
    parse_error: bool = False
    reads: frozenset[str] = frozenset()
