"""Go's control structures as Starlark statements, and text as one expression.

A template with ``range``, ``with``, variables or ``template`` becomes the
body of a function: each action appends to ``out``, an error returns at
once, ``range`` is a ``for`` loop (``break``/``continue`` included), ``if``
and ``with`` are ``if`` statements. A template of text, printing actions and
``if`` alone becomes one expression (:meth:`TemplateCompiler.expression`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from transpiler.emit import ir
from transpiler.emit.exact.template_env import UnsupportedTemplate
from transpiler.emit.exact.template_operands import NeedStatements, OperandCompiler
from transpiler.emit.exact.template_root import MISSING, identifier, template_string
from transpiler.emit.exact.template_values import Kind, Operand, bool_expr
from transpiler.golang.strconv import quote
from transpiler.gotemplate import ast
from transpiler.gotemplate.printer import node_text


class TemplateCompiler(OperandCompiler):
    """Statements and text on top of operands."""

    def checked(self, operand: Operand, reused: bool = False) -> Operand:
        """The operand as a value, returning from the function first if it is an
        error; ``reused`` values are computed once into a local."""
        operand = replace(operand, expr=self.data.value(operand), symbol=None)
        if reused:
            operand = self.bind(operand)
        if not operand.fails:
            return operand
        operand = self.bind(operand)
        assert self.function is not None and operand.expr is not None
        error = ir.call("go_is_error", operand.expr)
        self.emit(ir.If(error, (ir.Return(operand.expr),)))
        self.function.returns_error = True
        return replace(operand, fails=False)

    def declare(self, pipe: ast.PipeNode, value: Operand) -> None:
        """The variables a pipeline declares (``:=``) or assigns (``=``)."""
        for variable in pipe.decl:
            self.set_variable(variable.ident[0], value, pipe.is_assign)

    def set_variable(self, name: str, value: Operand, assign: bool) -> None:
        """``$x := value`` declares a local; ``$x = value`` sets the visible one.

        A variable that the template ever assigns keeps whether it holds an
        interface in a companion local (``<name>_iface``), since assignments
        may store either kind.
        """
        if assign:
            current = self.lookup(name)
            if current is None or current.expr is None or not isinstance(current.iface, ir.Name):
                raise UnsupportedTemplate(f"assignment to {name}, which is not a plain variable")
            self.assign(current.expr, self.data.value(value))
            self.assign(current.iface, bool_expr(value.iface))
            self.rebind(name, replace(value, expr=current.expr, iface=current.iface))
            return
        assert self.function is not None
        local = f"var_{identifier(name[1:]) or 'root'}"
        candidate, counter = local, 2
        while candidate in self.function.names:
            candidate, counter = f"{local}_{counter}", counter + 1
        self.function.names.add(candidate)
        variable = ir.Name(candidate)
        self.assign(variable, self.data.value(value))
        iface = value.iface
        if name in self.assigned:
            iface = ir.Name(f"{candidate}_iface")
            self.assign(iface, bool_expr(value.iface))
        self.scopes[-1][name] = replace(value, expr=variable, at=None, fails=False, iface=iface)

    def rebind(self, name: str, value: Operand) -> None:
        """What is known of the visible variable ``name`` after it is set."""
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return

    def walk(self, nodes: ast.ListNode | None, dot: Operand) -> None:
        """Emit the statements of a list of nodes (walk)."""
        assert self.function is not None
        block = self.function.blocks[-1]
        start = len(block)
        for node in nodes.nodes if nodes is not None else ():
            self.walk_node(node, dot)
        if len(block) == start:
            self.emit(ir.Pass())

    def walk_node(self, node: ast.Node, dot: Operand) -> None:
        if isinstance(node, ast.TextNode):
            self.append_out(template_string(node.text))
        elif isinstance(node, ast.ActionNode):
            value = self.pipeline(node.pipe, dot)
            if node.pipe.decl:
                self.declare(node.pipe, self.checked(self.settled(value)))
            else:
                printed = self.checked(self.text(value)).expr
                assert printed is not None
                self.append_out(printed)
        elif isinstance(node, ast.IfNode | ast.WithNode):
            self.walk_if_or_with(node, dot)
        elif isinstance(node, ast.RangeNode):
            self.walk_range(node, dot)
        elif isinstance(node, ast.TemplateNode):
            self.walk_template(node, dot)
        elif isinstance(node, ast.BreakNode):
            self.emit(ir.Break())
        elif isinstance(node, ast.ContinueNode):
            self.emit(ir.Continue())
        elif not isinstance(node, ast.CommentNode):
            raise UnsupportedTemplate(f"unexpected node {node_text(node)}")

    def append_out(self, text: ir.Expr) -> None:
        """``out.append(text)``."""
        self.emit(ir.ExprStmt(ir.Unbroken(ir.call("out.append", text))))

    def opened(self) -> None:
        """Start writing a nested block."""
        assert self.function is not None
        self.function.blocks.append([])

    def closed(self) -> tuple[ir.Statement, ...]:
        """The nested block just written."""
        assert self.function is not None
        return tuple(self.function.blocks.pop())

    def block(self, nodes: ast.ListNode | None, dot: Operand) -> tuple[ir.Statement, ...]:
        """The statements of ``nodes`` as a nested block, in a scope of their own."""
        self.opened()
        self.scopes.append({})
        self.walk(nodes, dot)
        self.scopes.pop()
        return self.closed()

    def walk_if_or_with(self, node: ast.IfNode | ast.WithNode, dot: Operand) -> None:
        self.scopes.append({})
        value = self.checked(self.settled(self.pipeline(node.pipe, dot)), reused=True)
        self.declare(node.pipe, value)
        inner = value if isinstance(node, ast.WithNode) else dot
        test = ir.Unbroken(ir.call("go_truth", self.data.value(value)))
        body = self.block(node.list, inner)
        orelse = self.block(node.else_list, dot) if node.else_list is not None else ()
        self.emit(ir.If(test, body, orelse))
        self.scopes.pop()

    def walk_range(self, node: ast.RangeNode, dot: Operand) -> None:
        self.scopes.append({})
        value = self.settled(self.pipeline(node.pipe, dot))
        at = self.need_at(value)
        collection = self.checked(value, reused=True)
        assert collection.expr is not None
        self.declare(node.pipe, collection)
        pairs = ir.Literal(len(node.pipe.decl) > 1)
        options = (("at", at), ("pairs", pairs))
        ranged = ir.Call(ir.Name("go_range_items"), (collection.expr,), options, True)
        items = self.checked(Operand(expr=ranged, at=None, fails=True)).expr
        assert items is not None
        key, element = self.temp("key"), self.temp("item")
        iface: bool | ir.Expr = True
        if collection.kind in (Kind.INT,):
            iface = False
        elif collection.kind not in (Kind.DICT, Kind.MAP):
            iface = ir.Binary(ir.call("type", collection.expr), "!=", ir.Str("int"))
        elem = Operand(expr=ir.Name(element), at=None, iface=iface, nil_iface=True)
        self.opened()
        self.scopes.append({})
        self.range_variables(node.pipe, Operand(expr=ir.Name(key), at=None), elem)
        self.walk(node.list, elem)
        self.scopes.pop()
        loop = ir.For((key, element), items, self.closed())
        if node.else_list is None:
            self.emit(loop)
        else:
            self.emit(ir.If(items, (loop,), self.block(node.else_list, dot)))
        self.scopes.pop()

    def range_variables(self, pipe: ast.PipeNode, key: Operand, element: Operand) -> None:
        """What each iteration sets: the element, and the key with two variables."""
        decl = [v.ident[0] for v in pipe.decl]
        if not decl:
            return
        targets = [(decl[-1], element)] if len(decl) == 1 else [(decl[0], key), (decl[1], element)]
        for name, value in targets:
            current = self.lookup(name)
            assert current is not None and current.expr is not None and value.expr is not None
            self.assign(current.expr, value.expr)
            iface = value.iface
            if isinstance(current.iface, ir.Name) and current.iface.id.endswith("_iface"):
                self.assign(current.iface, bool_expr(value.iface))
                iface = current.iface
            self.rebind(name, replace(value, expr=current.expr, iface=iface))

    def walk_template(self, node: ast.TemplateNode, dot: Operand) -> None:
        """walkTemplate: the named template inlined, with its own dot and ``$``."""
        tree = self.template.trees.get(node.name)
        if tree is None:
            error = self.error(self.prefix(node), f"template {quote(node.name)} not defined", [])
            self.checked(error)
            return
        if node.name in self.running:
            raise UnsupportedTemplate(f"recursive template {node.name!r}")
        if node.pipe is None:
            value = Operand(expr=MISSING, at=None, kind=Kind.MISSING)
        else:
            value = self.checked(self.settled(self.pipeline(node.pipe, dot)), reused=True)
            self.declare(node.pipe, value)
        inner = self.bind(replace(value, expr=self.data.value(value), symbol=None))
        saved = self.scopes
        self.scopes = [{"$": (inner)}]
        self.running.append(node.name)
        self.walk(tree, inner)
        self.running.pop()
        self.scopes = saved

    # --- text ----------------------------------------------------------------

    def text(self, value: Operand) -> Operand:
        """What ``{{value}}`` prints (printValue)."""
        expr = self.data.value(value)
        if value.kind is Kind.STRING:
            return replace(value, expr=expr)
        if value.kind is Kind.INT and isinstance(expr, ir.Literal) and type(expr.value) is int:
            return replace(value, expr=ir.Str(str(expr.value)), kind=Kind.STRING)
        return replace(value, expr=ir.call("go_text", expr), kind=Kind.STRING)

    def expression(self, nodes: ast.ListNode | None, dot: Operand) -> Operand:
        """A list of nodes as one expression: text, printing actions and ``if``."""
        parts: list[Operand] = []
        for node in nodes.nodes if nodes is not None else ():
            if isinstance(node, ast.TextNode):
                parts.append(Operand(expr=template_string(node.text), at=None, kind=Kind.STRING))
            elif isinstance(node, ast.ActionNode) and not node.pipe.decl:
                parts.append(self.text(self.pipeline(node.pipe, dot)))
            elif isinstance(node, ast.IfNode) and not node.pipe.decl:
                condition = self.pipeline(node.pipe, dot)
                then_part = self.expression(node.list, dot)
                else_part = self.expression(node.else_list, dot)
                assert then_part.expr is not None and else_part.expr is not None
                expr = ir.call("go_if", self.data.value(condition), then_part.expr, else_part.expr)
                fails = condition.fails or then_part.fails or else_part.fails
                parts.append(Operand(expr=expr, at=None, fails=fails, kind=Kind.STRING))
            elif not isinstance(node, ast.CommentNode):
                raise NeedStatements
        return _join(parts)


#: Most pieces joined with ``+``; longer texts are joined from a list.
MAX_PLUS_CHAIN = 16


def _join(parts: list[Operand]) -> Operand:
    """The concatenation of text parts (the first error wins)."""
    merged: list[Operand] = []
    for part in parts:
        previous, current = merged[-1].expr if merged else None, part.expr
        if _plain(previous) and _plain(current):
            assert isinstance(previous, ir.Str) and isinstance(current, ir.Str)
            text = ir.Str(previous.text + current.text)
            merged[-1] = Operand(expr=text, at=None, kind=Kind.STRING)
        else:
            merged.append(part)
    exprs = [ir.Str("") if part.expr is None else part.expr for part in merged]
    if not exprs:
        return Operand(expr=ir.Str(""), at=None, kind=Kind.STRING)
    if any(part.fails for part in merged):
        expr = exprs[0] if len(exprs) == 1 else ir.call("go_concat", ir.List(tuple(exprs)))
        return Operand(expr=expr, at=None, fails=True, kind=Kind.STRING)
    if len(exprs) > MAX_PLUS_CHAIN:
        # One flat list: a long ``a + b + ...`` chain is a tree as deep as it is long.
        joined = ir.call(ir.Attribute(ir.Str(""), "join"), ir.List(tuple(exprs)))
        return Operand(expr=joined, at=None, kind=Kind.STRING)
    return Operand(expr=_sum(exprs), at=None, kind=Kind.STRING)


def _sum(exprs: Sequence[ir.Expr]) -> ir.Expr:
    """``a + b + ...``."""
    total = exprs[0]
    for expr in exprs[1:]:
        total = ir.Binary(total, "+", expr)
    return total


_PLAIN = re.compile(r'"[^"\\]*"')


def _plain(expr: ir.Expr | None) -> bool:
    """Whether ``expr`` is a string literal written as one quoted text without escapes."""
    return isinstance(expr, ir.Str) and _PLAIN.fullmatch(ir.flat(expr)) is not None
