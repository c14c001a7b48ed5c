"""Go's operands as Starlark: pipelines, commands, fields, function calls.

Each operand is translated as ``text/template/exec.go`` evaluates it, in
Go's order, into an expression over ``vmcp_compat.star`` helpers; an error is a
value every helper passes on, so the first error Go would meet is the one
the expression gives. Alongside the expression, an :class:`Operand` tracks the
node Go's executor last stood on (errors quote it) and whether the value
is still an interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from transpiler.emit import ir
from transpiler.emit.exact.template_env import TemplateEnv, UnsupportedTemplate
from transpiler.emit.exact.template_functions import check_format
from transpiler.emit.exact.template_root import (
    MISSING,
    TemplateData,
    root_operand,
    template_string,
)
from transpiler.emit.exact.template_values import Kind, Operand, bool_expr
from transpiler.golang.strconv import quote
from transpiler.gotemplate import ast
from transpiler.gotemplate.functions import FUNCTIONS, Param, Printing, Result
from transpiler.gotemplate.parser import Template
from transpiler.gotemplate.printer import node_text

TEMPLATE_NAME = "expand"
_NO_POSITION = ir.Str("")  # the position after an operand that is always an error (never shown)


class NeedStatements(Exception):
    """The template cannot be one expression; compile it as a function."""


@dataclass
class FunctionBody:
    """The statements of a template compiled as a function: the blocks being written, the
    innermost last (each expression kept on one line)."""

    blocks: list[list[ir.Statement]] = field(default_factory=lambda: [[]])
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

    def at(self, node: ast.Node) -> ir.Str:
        return template_string(self.prefix(node))

    def error(self, node_prefix: str, message: str, before: list[Operand | None]) -> Operand:
        """An operand that is Go's error, after the errors of what ran before it."""
        expr = ir.call("go_error", template_string(node_prefix + message))
        return Operand(expr=self.after(before, expr), at=_NO_POSITION, fails=True)

    def after(self, before: list[Operand | None], expr: ir.Expr) -> ir.Expr:
        failing = [op.expr for op in before if op is not None and op.fails and op.expr is not None]
        if not failing:
            return expr
        return ir.call("go_then", ir.List(tuple(failing)), expr)

    def need_at(self, operand: Operand) -> ir.Expr:
        if operand.at is None:
            raise NeedStatements
        return operand.at

    def settled(self, operand: Operand) -> Operand:
        """The operand as a pipeline leaves it: a nil interface becomes missing."""
        if operand.nil_iface and operand.expr is not None:
            unwrapped = ir.call("go_unwrap", operand.expr)
            return replace(operand, expr=unwrapped, nil_iface=False, iface=False)
        return replace(operand, iface=False)

    # --- pipelines and commands ---------------------------------------------

    def pipeline(self, pipe: ast.PipeNode, dot: Operand) -> Operand:
        """evalPipeline (without its variable declarations)."""
        at: ir.Expr | None = self.at(pipe)
        value: Operand | None = None
        for command in pipe.cmds:
            final = None if value is None else self.settled(value)
            value = self.command(command, dot, final, at)
            at = value.at
        assert value is not None
        return value

    def command(
        self, cmd: ast.CommandNode, dot: Operand, final: Operand | None, at: ir.Expr | None
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

    def dynamic_error(self, where: ir.Expr, message: str, before: list[Operand | None]) -> Operand:
        """Go's error at a position known only as Starlark (a literal or an expression)."""
        expr = ir.call("go_error", ir.Binary(where, "+", template_string(message)))
        return Operand(expr=self.after(before, expr), at=_NO_POSITION, fails=True)

    def literal(self, node: ast.Node, dot: Operand) -> Operand:
        """A constant operand, or dot (evalCommand's and evalEmptyInterface's cases)."""
        at = self.at(node)
        if isinstance(node, ast.BoolNode):
            return Operand(expr=ir.Literal(node.value), at=at, kind=Kind.BOOL)
        if isinstance(node, ast.StringNode):
            return Operand(expr=template_string(node.text), at=at, kind=Kind.STRING)
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
            return Operand(expr=ir.Literal(float(node.float_value)), at=at, kind=Kind.FLOAT)
        if node.is_int:
            return Operand(expr=ir.Literal(int(node.int_value)), at=at, kind=Kind.INT)
        if node.is_uint:
            return self.error(self.prefix(node), f"{text} overflows int", [])
        return Operand(expr=MISSING, at=at, kind=Kind.MISSING)

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
        at: ir.Expr,
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
            expr = None if value.expr is None else self.after(before, value.expr)
            return replace(value, at=at, expr=expr, fails=value.fails or failed_before)
        if value.kind is Kind.MISSING:
            expr = self.after([*before, value], MISSING)
            return Operand(expr=expr, at=at, fails=value.fails or failed_before, kind=Kind.MISSING)
        expr = self.data.value(value)
        fails = value.fails or failed_before
        if (
            value.kind in (Kind.DICT, Kind.MAP)
            and not value.fails
            and not (has_args and len(rest) == 1)
        ):
            key = template_string(rest.pop(0))
            if value.kind is Kind.DICT and isinstance(expr, ir.Name):
                expr = ir.call(ir.Attribute(expr, "get"), key, MISSING)
            else:
                expr = ir.call("go_map_get", expr, key)
            value = Operand(expr=expr, at=at, iface=True, nil_iface=True)
        if rest:
            keys = tuple(template_string(name) for name in rest)
            options: list[tuple[str, ir.Expr]] = [("at", at)]
            if value.iface is not True:
                options.append(("iface", bool_expr(value.iface)))
            if has_args:
                options.append(("has_args", ir.Literal(True)))
            expr = _spaced("go_field", (expr, *keys), options)
            fails = True
        return Operand(
            expr=self.after(before, expr), at=at, fails=fails, iface=True, nil_iface=True
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
            checked = replace(final, expr=self.data.value(final), at=last_at, symbol=None)
            operands.append(self.check_type(checked, function.param_at(count - 1)))
        values = tuple(self.data.value(op) for op in operands)
        options: list[tuple[str, ir.Expr]] = []
        if function.fails:
            options.append(("at", template_string(self.prefix(cmd) + f"error calling {name}: ")))
        if name == "call":
            callee = node_text(args[0]) if args else None
            options.append(
                ("callee", template_string(callee) if callee is not None else ir.Literal(None))
            )
        expr: ir.Expr = _spaced(function.helper, values, options)
        kind = {Result.BOOL: Kind.BOOL, Result.STRING: Kind.STRING}.get(
            function.result, Kind.UNKNOWN
        )
        fails = function.fails or any(op.fails for op in operands)
        if final is not None and final.fails and any(op.fails for op in operands[:-1]):
            expr = ir.call("go_then", ir.List((self.data.value(final),)), expr)
        return Operand(
            expr=expr,
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
        helper = FUNCTIONS[name].helper
        assert helper is not None  # and, or: both have helpers
        expr: ir.Expr = ir.call(helper, *(self.data.value(op) for op in candidates))
        if final is not None and final.fails:
            expr = ir.call("go_then", ir.List((self.data.value(final),)), expr)
        at: ir.Expr | None
        if not operands:
            at = self.at(ident)
        elif len(operands) == 1:
            at = operands[0].at
        elif self.function is None or any(op.at is None for op in operands):
            at = None
        else:
            values = ir.List(tuple(self.data.value(op) for op in operands))
            positions = ir.List(tuple(op.at for op in operands if op.at is not None))
            at = ir.call("go_short_circuit_at", values, positions, ir.Literal(name == "or"))
        return Operand(
            expr=expr,
            at=at,
            fails=any(op.fails for op in candidates),
            nil_iface=any(op.nil_iface for op in candidates),
        )

    def argument(self, node: ast.Node, param: Param | None, dot: Operand) -> Operand:
        """evalArg: one argument, checked against the parameter type."""
        if isinstance(node, ast.NilNode):
            if param is Param.STRING:
                return self.error(self.prefix(node), "cannot assign nil to string", [])
            nil = ir.Literal(None) if param is Param.ANY else MISSING
            return Operand(expr=nil, at=self.at(node), kind=Kind.MISSING)
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
        at = self.need_at(operand)
        expr = _spaced("go_want_string", (self.data.value(operand),), [("at", at)])
        return replace(operand, expr=expr, fails=True, kind=Kind.STRING, nil_iface=False)

    # --- variables ------------------------------------------------------------

    def lookup(self, name: str) -> Operand | None:
        """The visible variable ``name`` (None while its own pipeline still runs)."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, operand: Operand) -> Operand:
        """Inside a function, the operand in a fresh local (evaluated once, here)."""
        if self.function is None or operand.expr is None or _word(operand.expr):
            return operand
        name = self.temp("v")
        self.assign(ir.Name(name), operand.expr)
        return replace(operand, expr=ir.Name(name))

    def emit(self, statement: ir.Statement) -> None:
        """Add a statement to the innermost block being written."""
        assert self.function is not None
        self.function.blocks[-1].append(statement)

    def assign(self, target: ir.Expr, value: ir.Expr) -> None:
        """``target = value`` (on one line)."""
        self.emit(ir.Assign((target,), ir.Unbroken(value)))

    def temp(self, base: str) -> str:
        assert self.function is not None
        self.function.temps += 1
        return f"{base}{self.function.temps}"


def _word(expr: ir.Expr) -> bool:
    """A name, or a constant written as one (``True``, ``False``, ``None``)."""
    if isinstance(expr, ir.Literal):
        return expr.value is True or expr.value is False or expr.value is None
    return isinstance(expr, ir.Name)


def _spaced(helper: str, args: tuple[ir.Expr, ...], options: list[tuple[str, ir.Expr]]) -> ir.Call:
    """A helper call whose options are written ``name = value``."""
    return ir.Call(ir.dotted(helper), args, tuple(options), spaced_keywords=True)
