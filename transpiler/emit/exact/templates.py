"""Go templates compiled to Starlark: the API the workflow emitter calls.

A vMCP template (``{{.params.x}}``, a condition, an output value) becomes a
Starlark *expression* that evaluates to the text Go's ``text/template``
renders, or to an error value carrying Go's error text (see ``vmcp_compat.star``).
The template's data comes from a :class:`TemplateEnv`: Starlark expressions
for ``.params``, each step's parts, ``.workflow`` and ``.forEach``.

Simple templates compile to one expression over library helpers. Templates
that need statements (``range``, ``with``, variables, ``template``) compile
to a call of a closed function listed in ``definitions``: it takes the env
values it reads as arguments, so the emitter may place it anywhere before
use (e.g. at module level); identical templates give identical definitions.
"""

from __future__ import annotations

from collections.abc import Iterable

from transpiler.emit import ir
from transpiler.emit.exact.template_compiler import compile_source, lone_value_expr
from transpiler.emit.exact.template_env import (
    CompiledTemplate,
    ForEachEnv,
    TemplateEnv,
    UnsupportedTemplate,
)
from transpiler.emit.library import Library, helper_library


def compile_template(source: str, env: TemplateEnv) -> CompiledTemplate:
    """Compile one template; raises :class:`UnsupportedTemplate` for what it cannot translate."""
    return compile_source(source, env)


def lone_value(source: str, env: TemplateEnv) -> ir.Expr | None:
    """For ``{{X}}`` or ``{{json X}}`` alone, the expression of X's value, else None.

    None also when X could be an error value: then use :func:`compile_template`.
    The value is Go's: ``None`` for a JSON null, ``GO_MISSING`` for a missing key.
    """
    return lone_value_expr(source, env)


def library() -> Library:
    """The helper library (``vmcp_compat.star``)."""
    return helper_library()


def helper_source(names: Iterable[str]) -> str:
    """The source of the named helpers and everything they use, in library order."""
    return library().source(names)


__all__ = [
    "CompiledTemplate",
    "ForEachEnv",
    "TemplateEnv",
    "UnsupportedTemplate",
    "compile_template",
    "helper_source",
    "library",
    "lone_value",
]
