"""Go's operands as Starlark: pipelines, commands, fields, function calls.

Each operand is translated as ``text/template/exec.go`` evaluates it, in
Go's order, into an expression over ``vmcp_compat.star`` helpers; an error is a
value every helper passes on, so the first error Go would meet is the one
the expression gives. Alongside the code, an :class:`Operand` tracks the
node Go's executor last stood on (errors quote it) and whether the value
is still an interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from transpiler.emit.exact.template_env import TemplateEnv, UnsupportedTemplate
from transpiler.emit.exact.template_functions import check_format
from transpiler.emit.exact.template_root import (
    ATOM,
    MISSING,
    TemplateData,
    root_operand,
    starlark_string,
)
from transpiler.emit.exact.template_values import Kind, Operand
from transpiler.emit.literals import float_literal
from transpiler.golang.strconv import quote
from transpiler.gotemplate import ast
from transpiler.gotemplate.functions import FUNCTIONS, Param, Printing, Result
from transpiler.gotemplate.parser import Template
from transpiler.gotemplate.printer import node_text

TEMPLATE_NAME = "expand"
_NO_POSITION = '""'  # the position after an operand that is always an error (never shown)


class NeedStatements(Exception):
    """The template cannot be one expression; compile it as a function."""


@dataclass
class FunctionBody:
    """The statements of a template compiled as a function."""

    lines: list[str] = field(default_factory=list)
    depth: int = 1
    temps: int = 0
    names: set[str] = field(default_factory=set)
    returns_error: bool = False


def assigned_variables(template: Template) -> frozenset[str]:
    """Names of the variables the template assigns with ``=`` anywhere."""
    names: set[str] = set()
    pending: list[ast.Node | None] = list(template.trees.values())
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ListNode):
            pending.extend(node.nodes)
        elif isinstance(node, ast.BranchNode):
            pending.extend([node.pipe, node.list, node.else_list])
        elif isinstance(node, ast.ActionNode | ast.TemplateNode):
            pending.append(node.pipe)
        elif isinstance(node, ast.PipeNode) and node.is_assign:
            names.update(variable.ident[0] for variable in node.decl)
    return frozenset(names)


class OperandCompiler:
    """Translates operands for one template, as an expression or inside a function."""

    def __init__(self, template: Template, env: TemplateEnv, statements: bool) -> None:
        self.template = template
        self.env = env
        self.function = FunctionBody() if statements else None
        self.data = TemplateData(env, inside_function=statements)
        self.scopes: list[dict[str, Operand]] = [{"$": root_operand()}]
        self.running = [TEMPLATE_NAME]
        self.assigned = assigned_variables(template)

    # --- positions and errors ------------------------------------------------

    def prefix(self, node: ast.Node) -> str:
        """Go's ``errorf`` prefix when the executor stands on ``node``."""
        name = quote(self.running[-1])
        where = f"{TEMPLATE_NAME}:{node.pos.line}:{node.pos.column}"
        return f"template: {where}: executing {name} at <{node_text(node)}>: "

    def at(self, node: ast.Node) -> str:
        return starlark_string(self.prefix(node))

    def error(self, node_prefix: str, message: str, before: list[Operand | None]) -> Operand:
        """An operand that is Go's error, after the errors of what ran before it."""
        code = f"go_error({starlark_string(node_prefix + message)})"
        return Operand(code=self.after(before, code), at=_NO_POSITION, fails=True)

    def after(self, before: list[Operand | None], code: str) -> str:
        failing = [op.code for op in before if op is not None and op.fails and op.code]
        if not failing:
            return code
        return f"go_then([{', '.join(failing)}], {code})"

    def need_at(self, operand: Operand) -> str:
        if operand.at is None:
            raise NeedStatements
        return operand.at

    def settled(self, operand: Operand) -> Operand:
        """The operand as a pipeline leaves it: a nil interface becomes missing."""
        if operand.nil_iface and operand.code is not None:
            return replace(operand, code=f"go_unwrap({operand.code})", nil_iface=False, iface=False)
        return replace(operand, iface=False)

    # --- pipelines and commands ---------------------------------------------

    def pipeline(self, pipe: ast.PipeNode, dot: Operand) -> Operand:
        """evalPipeline (without its variable declarations)."""
        at: str | None = self.at(pipe)
        value: Operand | None = None
        for command in pipe.cmds:
            final = None if value is None else self.settled(value)
            value = self.command(command, dot, final, at)
            at = value.at
        assert value is not None
        return value

    def command(
        self, cmd: ast.CommandNode, dot: Operand, final: Operand | None, at: str | None
    ) -> Operand:
        first = cmd.args[0]
        if isinstance(first, ast.FieldNode):
            return self.field_node(first, dot, len(cmd.args) > 1 or final is not None, final)
        if isinstance(first, ast.ChainNode):
            return self.chain_node(first, dot, len(cmd.args) > 1 or final is not None, final)
        if isinstance(first, ast.IdentifierNode):
            return self.call(first, cmd, cmd.args[1:], final, dot)
        if isinstance(first, ast.VariableNode):
            return self.variable_node(first, len(cmd.args) > 1 or final is not None, final)
        if len(cmd.args) > 1 or final is not None:
            where = at if isinstance(first, ast.PipeNode) else self.at(first)
            if where is None:
                raise NeedStatements
            message = f"can't give argument to non-function {node_text(first)}"
            return self.dynamic_error(where, message, [final])
        if isinstance(first, ast.PipeNode):
            return self.settled(self.pipeline(first, dot))
        return self.literal(first, dot)

    def dynamic_error(self, where: str, message: str, before: list[Operand | None]) -> Operand:
        """Go's error at a position known only as Starlark (a literal or an expression)."""
        code = f"go_error({where} + {starlark_string(message)})"
        return Operand(code=self.after(before, code), at=_NO_POSITION, fails=True)

    def literal(self, node: ast.Node, dot: Operand) -> Operand:
        """A constant operand, or dot (evalCommand's and evalEmptyInterface's cases)."""
        at = self.at(node)
        if isinstance(node, ast.BoolNode):
            return Operand(code="True" if node.value else "False", at=at, kind=Kind.BOOL)
        if isinstance(node, ast.StringNode):
            return Operand(code=starlark_string(node.text), at=at, kind=Kind.STRING)
        if isinstance(node, ast.NumberNode):
            return self.number(node)
        if isinstance(node, ast.DotNode):
            return replace(dot, at=at)
        if isinstance(node, ast.NilNode):
            return self.error(self.prefix(node), "nil is not a command", [])
        raise UnsupportedTemplate(f"unexpected operand {node_text(node)}")

    def number(self, node: ast.NumberNode) -> Operand:
        """idealConstant: the syntax decides between int and float64."""
        at = self.at(node)
        text = node.text
        if node.is_complex:
            raise UnsupportedTemplate(f"complex number {text} in a template")
        hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not set(text) & set("pP")
        rune = text.startswith("'")
        if node.is_float and not hex_int and not rune and set(text) & set(".eEpP"):
            return Operand(code=float_literal(node.float_value), at=at, kind=Kind.FLOAT)
        if node.is_int:
            return Operand(code=str(node.int_value), at=at, kind=Kind.INT)
        if node.is_uint:
            return self.error(self.prefix(node), f"{text} overflows int", [])
        return Operand(code=MISSING, at=at, kind=Kind.MISSING)

    # --- fields ---------------------------------------------------------------

    def field_node(
        self, node: ast.FieldNode, dot: Operand, has_args: bool, final: Operand | None
    ) -> Operand:
        at = self.at(node)
        return self.fields(dot, node.ident, at, has_args, [final])

    def variable_node(
        self, node: ast.VariableNode, has_args: bool, final: Operand | None
    ) -> Operand:
        at = self.at(node)
        variable = self.lookup(node.ident[0])
        if variable is None:
            message = f"undefined variable: {node.ident[0]}"
            return self.error(self.prefix(node), message, [final])
        if len(node.ident) == 1:
            if has_args:
                message = f"can't give argument to non-function {node_text(node)}"
                return self.error(self.prefix(node), message, [final])
            return replace(variable, at=at)
        return self.fields(variable, node.ident[1:], at, has_args, [final])

    def chain_node(
        self, node: ast.ChainNode, dot: Operand, has_args: bool, final: Operand | None
    ) -> Operand:
        if isinstance(node.node, ast.NilNode):
            message = f"indirection through explicit nil in {node_text(node)}"
            return self.error(self.prefix(node), message, [final])
        receiver = self.argument(node.node, None, dot)
        return self.fields(receiver, node.field, self.need_at(receiver), has_args, [final])

    def fields(
        self,
        receiver: Operand,
        names: tuple[str, ...],
        at: str,
        has_args: bool,
        before: list[Operand | None],
    ) -> Operand:
        """evalFieldChain: ``.a.b.c`` through maps known at compile time, then data."""
        value, rest = receiver, list(names)
        while value.symbol is not None and rest:
            if has_args and len(rest) == 1:
                message = f"{rest[0]} is not a method but has arguments"
                return self.dynamic_error(at, message, [*before, receiver])
            value = self.data.symbol_field(value, rest.pop(0))
        failed_before = any(op is not None and op.fails for op in before)
        if not rest:
            code = value.code and self.after(before, value.code)
            return replace(value, at=at, code=code, fails=value.fails or failed_before)
        if value.kind is Kind.MISSING:
            code = self.after([*before, value], MISSING)
            return Operand(code=code, at=at, fails=value.fails or failed_before, kind=Kind.MISSING)
        code = self.data.value(value)
        fails = value.fails or failed_before
        if (
            value.kind in (Kind.DICT, Kind.MAP)
            and not value.fails
            and not (has_args and len(rest) == 1)
        ):
            key = starlark_string(rest.pop(0))
            if value.kind is Kind.DICT:
                code = (
                    f"{code}.get({key}, {MISSING})"
                    if ATOM.fullmatch(code)
                    else f"go_map_get({code}, {key})"
                )
            else:
                code = f"go_map_get({code}, {key})"
            value = Operand(code=code, at=at, iface=True, nil_iface=True)
        if rest:
            keys = ", ".join(starlark_string(name) for name in rest)
            options = [f"at = {at}"]
            if value.iface is not True:
                options.append(f"iface = {value.iface}")
            if has_args:
                options.append("has_args = True")
            code = f"go_field({code}, {keys}, {', '.join(options)})"
            fails = True
        return Operand(
            code=self.after(before, code), at=at, fails=fails, iface=True, nil_iface=True
        )

    # --- functions ------------------------------------------------------------

    def call(
        self,
        ident: ast.IdentifierNode,
        cmd: ast.Node,
        args: tuple[ast.Node, ...],
        final: Operand | None,
        dot: Operand,
    ) -> Operand:
        """evalFunction and evalCall."""
        name = ident.ident
        function = FUNCTIONS.get(name)
        if function is None:
            raise UnsupportedTemplate(f"unknown template function {name}")
        ident_prefix = self.prefix(ident)
        count = len(args) + (final is not None)
        if function.variadic is not None and count < len(function.params):
            wanted = len(function.params)
            message = f"wrong number of args for {name}: want at least {wanted} got {len(args)}"
            return self.error(ident_prefix, message, [final])
        if function.variadic is None and count != len(function.params):
            message = f"wrong number of args for {name}: want {len(function.params)} got {count}"
            return self.error(ident_prefix, message, [final])
        if name in ("and", "or"):
            return self.and_or(name, ident, args, final, dot)
        if function.helper is None:
            raise UnsupportedTemplate(f"the {name} function is not translated")
        if function.printing is Printing.FORMATTED:
            check_format(args[0] if args else None)
        operands = [self.argument(arg, function.param_at(i), dot) for i, arg in enumerate(args)]
        last_at = operands[-1].at if operands else self.at(ident)
        if final is not None:
            checked = replace(final, code=self.data.value(final), at=last_at, symbol=None)
            operands.append(self.check_type(checked, function.param_at(count - 1)))
        values = [self.data.value(op) for op in operands]
        options = []
        if function.fails:
            options.append(f"at = {starlark_string(self.prefix(cmd) + f'error calling {name}: ')}")
        if name == "call":
            callee = node_text(args[0]) if args else None
            options.append(f"callee = {starlark_string(callee) if callee is not None else 'None'}")
        code = f"{function.helper}({', '.join(values + options)})"
        kind = {Result.BOOL: Kind.BOOL, Result.STRING: Kind.STRING}.get(
            function.result, Kind.UNKNOWN
        )
        fails = function.fails or any(op.fails for op in operands)
        if final is not None and final.fails and any(op.fails for op in operands[:-1]):
            code = f"go_then([{self.data.value(final)}], {code})"
        return Operand(
            code=code,
            at=last_at,
            fails=fails,
            kind=kind,
            nil_iface=function.result is Result.INTERFACE,
        )

    def and_or(
        self,
        name: str,
        ident: ast.IdentifierNode,
        args: tuple[ast.Node, ...],
        final: Operand | None,
        dot: Operand,
    ) -> Operand:
        """The short-circuit builtins: the operand where evaluation stopped."""
        operands = [self.bind(self.argument(arg, Param.VALUE, dot)) for arg in args]
        candidates = operands + ([final] if final is not None else [])
        code = f"{FUNCTIONS[name].helper}({', '.join(self.data.value(op) for op in candidates)})"
        if final is not None and final.fails:
            code = f"go_then([{self.data.value(final)}], {code})"
        at: str | None
        if not operands:
            at = self.at(ident)
        elif len(operands) == 1:
            at = operands[0].at
        elif self.function is None or any(op.at is None for op in operands):
            at = None
        else:
            values = ", ".join(self.data.value(op) for op in operands)
            positions = ", ".join(op.at or "" for op in operands)
            at = f"go_short_circuit_at([{values}], [{positions}], {name == 'or'})"
        return Operand(
            code=code,
            at=at,
            fails=any(op.fails for op in candidates),
            nil_iface=any(op.nil_iface for op in candidates),
        )

    def argument(self, node: ast.Node, param: Param | None, dot: Operand) -> Operand:
        """evalArg: one argument, checked against the parameter type."""
        if isinstance(node, ast.NilNode):
            if param is Param.STRING:
                return self.error(self.prefix(node), "cannot assign nil to string", [])
            code = "None" if param is Param.ANY else MISSING
            return Operand(code=code, at=self.at(node), kind=Kind.MISSING)
        if isinstance(node, ast.FieldNode):
            operand = self.field_node(node, dot, False, None)
        elif isinstance(node, ast.VariableNode):
            operand = self.variable_node(node, False, None)
        elif isinstance(node, ast.PipeNode):
            operand = self.settled(self.pipeline(node, dot))
        elif isinstance(node, ast.IdentifierNode):
            operand = self.call(node, node, (), None, dot)
        elif isinstance(node, ast.ChainNode):
            operand = self.chain_node(node, dot, False, None)
        elif isinstance(node, ast.DotNode):
            operand = self.literal(node, dot)
        elif param is Param.STRING:
            if isinstance(node, ast.StringNode):
                return self.literal(node, dot)
            return self.error(self.prefix(node), f"expected string; found {node_text(node)}", [])
        else:
            return self.literal(node, dot)
        return self.check_type(operand, param)

    def check_type(self, operand: Operand, param: Param | None) -> Operand:
        """validateType for a string parameter (other parameters take anything)."""
        if param is not Param.STRING or operand.kind is Kind.STRING:
            return operand
        code = f"go_want_string({self.data.value(operand)}, at = {self.need_at(operand)})"
        return replace(operand, code=code, fails=True, kind=Kind.STRING, nil_iface=False)

    # --- variables ------------------------------------------------------------

    def lookup(self, name: str) -> Operand | None:
        """The visible variable ``name`` (None while its own pipeline still runs)."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, operand: Operand) -> Operand:
        """Inside a function, the operand in a fresh local (evaluated once, here)."""
        if self.function is None or operand.code is None or ATOM.fullmatch(operand.code):
            return operand
        name = self.temp("v")
        self.emit(f"{name} = {operand.code}")
        return replace(operand, code=name)

    def emit(self, line: str) -> None:
        assert self.function is not None
        self.function.lines.append("    " * self.function.depth + line)

    def temp(self, base: str) -> str:
        assert self.function is not None
        self.function.temps += 1
        return f"{base}{self.function.temps}"
