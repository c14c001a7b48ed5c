"""Translate a Go template into Starlark: the entry points behind templates.py.

A template first compiles as one expression; one that needs statements
(``range``, ``with``, variables, ``template``) compiles again as a closed
function named by its content (see :mod:`transpiler.emit.exact.templates`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from transpiler.emit import ir
from transpiler.emit.exact.nodes import TEMPLATE_LAYOUT, names_in
from transpiler.emit.exact.template_env import CompiledTemplate, TemplateEnv
from transpiler.emit.exact.template_operands import TEMPLATE_NAME, NeedStatements
from transpiler.emit.exact.template_root import root_operand, template_string
from transpiler.emit.exact.template_statements import TemplateCompiler
from transpiler.emit.library import helper_library
from transpiler.emit.limits import check_template
from transpiler.gotemplate import ast
from transpiler.gotemplate.errors import TemplateSyntaxError
from transpiler.gotemplate.functions import FUNCTIONS, Codec, Param
from transpiler.gotemplate.parser import Template, parse_template

_OUT = ir.Name("out")


def _helpers(statements: Iterable[ir.Statement]) -> frozenset[str]:
    """The Go-emulation helpers (``go_*``, ``GO_*``) the code names."""
    library = helper_library()
    return frozenset(
        name
        for name in names_in(list(statements))
        if name.startswith(("go_", "GO_")) and name in library
    )


def _parse(source: str) -> Template | CompiledTemplate:
    try:
        return parse_template(source, TEMPLATE_NAME)
    except TemplateSyntaxError as error:
        expr = ir.call("go_error", template_string(error.go_message))
        return CompiledTemplate(
            expr=ir.Unbroken(expr), helpers=frozenset({"go_error"}), can_fail=True, parse_error=True
        )


def compile_source(source: str, env: TemplateEnv) -> CompiledTemplate:
    """compile_template's work (see :mod:`transpiler.emit.exact.templates`)."""
    parsed = _parse(source)
    if isinstance(parsed, CompiledTemplate):
        return parsed
    check_template({id(tree): tree for tree in (parsed.root, *parsed.trees.values())}.values())
    try:
        compiler = TemplateCompiler(parsed, env, statements=False)
        result = compiler.expression(parsed.root, root_operand())
        expr = ir.Str("") if result.expr is None else result.expr
        return _result(compiler, expr, result.fails, ())
    except NeedStatements:
        pass
    compiler = TemplateCompiler(parsed, env, statements=True)
    function = compiler.function
    assert function is not None
    compiler.assign(_OUT, ir.List(()))
    compiler.walk(parsed.root, root_operand())
    compiler.emit(ir.Return(ir.call(ir.Attribute(ir.Str(""), "join"), _OUT)))
    params = tuple(ir.Parameter(name) for name, _ in compiler.data.reads.values())
    body = tuple(function.blocks[0])
    name = _function_name(params, body)
    call = ir.call(name, *(expr for _, expr in compiler.data.reads.values()))
    return _result(compiler, call, function.returns_error, (ir.Def(name, params, body),))


def _function_name(params: tuple[ir.Parameter, ...], body: tuple[ir.Statement, ...]) -> str:
    """``go_template_<digest>``, the digest of the function's parameters and printed body, so
    identical templates give one function."""
    printed = ir.print_statements([ir.Def("go_template", params, body)], TEMPLATE_LAYOUT).text
    printed_body = printed.rstrip("\n").split("\n", 1)[1]
    names = [param.name for param in params]
    digest = hashlib.sha256(f"{names}\n{printed_body}".encode()).hexdigest()[:12]
    return f"go_template_{digest}"


def _result(
    compiler: TemplateCompiler, expr: ir.Expr, fails: bool, definitions: tuple[ir.Def, ...]
) -> CompiledTemplate:
    reads = frozenset(key for key in compiler.data.reads)
    return CompiledTemplate(
        expr=ir.Unbroken(expr),
        helpers=_helpers([ir.ExprStmt(expr), *definitions]),
        can_fail=fails,
        definitions=definitions,
        reads=reads,
    )


def lone_value_expr(source: str, env: TemplateEnv) -> ir.Expr | None:
    """lone_value's work (see :mod:`transpiler.emit.exact.templates`)."""
    parsed = _parse(source)
    if isinstance(parsed, CompiledTemplate) or len(parsed.root.nodes) != 1:
        return None
    action = parsed.root.nodes[0]
    if not isinstance(action, ast.ActionNode) or action.pipe.decl or len(action.pipe.cmds) != 1:
        return None
    command = action.pipe.cmds[0]
    compiler = TemplateCompiler(parsed, env, statements=False)
    try:
        first = command.args[0]
        if (
            isinstance(first, ast.IdentifierNode)
            and FUNCTIONS[first.ident].codec is Codec.ENCODES
            and len(command.args) == 2
        ):
            operand = compiler.argument(command.args[1], Param.ANY, root_operand())
        else:
            operand = compiler.pipeline(action.pipe, root_operand())
    except NeedStatements:
        return None
    if operand.fails:
        return None
    return ir.Unbroken(compiler.data.value(operand))
