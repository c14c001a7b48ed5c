"""Translate a Go template into Starlark: the entry points behind templates.py.

A template first compiles as one expression; one that needs statements
(``range``, ``with``, variables, ``template``) compiles again as a closed
function named by its content (see :mod:`transpiler.emit.exact.templates`).
"""

from __future__ import annotations

import hashlib
import re

from transpiler.emit.exact.template_env import CompiledTemplate, TemplateEnv
from transpiler.emit.exact.template_operands import TEMPLATE_NAME, NeedStatements
from transpiler.emit.exact.template_root import root_operand, starlark_string
from transpiler.emit.exact.template_statements import TemplateCompiler
from transpiler.emit.library import helper_library
from transpiler.emit.limits import check_template
from transpiler.gotemplate import ast
from transpiler.gotemplate.errors import TemplateSyntaxError
from transpiler.gotemplate.functions import FUNCTIONS, Codec, Param
from transpiler.gotemplate.parser import Template, parse_template

_HELPER_NAME = re.compile(r"\b(?:go|GO)_[A-Za-z0-9_]+\b")


def _helpers(codes: list[str]) -> frozenset[str]:
    names = helper_library()
    return frozenset(n for code in codes for n in _HELPER_NAME.findall(code) if n in names)


def _parse(source: str) -> Template | CompiledTemplate:
    try:
        return parse_template(source, TEMPLATE_NAME)
    except TemplateSyntaxError as error:
        code = f"go_error({starlark_string(error.go_message)})"
        return CompiledTemplate(
            code=code, helpers=frozenset({"go_error"}), can_fail=True, parse_error=True
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
        return _result(compiler, result.code or '""', result.fails, ())
    except NeedStatements:
        pass
    compiler = TemplateCompiler(parsed, env, statements=True)
    function = compiler.function
    assert function is not None
    function.lines.append("    out = []")
    compiler.walk(parsed.root, root_operand())
    function.lines.append('    return "".join(out)')
    params = [name for name, _ in compiler.data.reads.values()]
    body = "\n".join(function.lines)
    digest = hashlib.sha256(f"{params}\n{body}".encode()).hexdigest()[:12]
    name = f"go_template_{digest}"
    definition = f"def {name}({', '.join(params)}):\n{body}\n"
    call = f"{name}({', '.join(expr for _, expr in compiler.data.reads.values())})"
    return _result(compiler, call, function.returns_error, (definition,))


def _result(
    compiler: TemplateCompiler, code: str, fails: bool, definitions: tuple[str, ...]
) -> CompiledTemplate:
    reads = frozenset(key for key in compiler.data.reads)
    return CompiledTemplate(
        code=code,
        helpers=_helpers([code, *definitions]),
        can_fail=fails,
        definitions=definitions,
        reads=reads,
    )


def lone_value_code(source: str, env: TemplateEnv) -> str | None:
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
    return compiler.data.value(operand)
