"""Go's control structures as Starlark statements, and text as one expression.

A template with ``range``, ``with``, variables or ``template`` becomes the
body of a function: each action appends to ``out``, an error returns at
once, ``range`` is a ``for`` loop (``break``/``continue`` included), ``if``
and ``with`` are ``if`` statements. A template of text, printing actions and
``if`` alone becomes one expression (:meth:`TemplateCompiler.expression`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from transpiler.emit.exact.template_env import UnsupportedTemplate
from transpiler.emit.exact.template_operands import NeedStatements, OperandCompiler
from transpiler.emit.exact.template_root import MISSING, identifier, starlark_string
from transpiler.emit.exact.template_values import Kind, Operand
from transpiler.golang.strconv import quote
from transpiler.gotemplate import ast
from transpiler.gotemplate.printer import node_text


class TemplateCompiler(OperandCompiler):
    """Statements and text on top of operands."""

    def checked(self, operand: Operand, reused: bool = False) -> Operand:
        """The operand as a value, returning from the function first if it is an
        error; ``reused`` values are computed once into a local."""
        operand = replace(operand, code=self.data.value(operand), symbol=None)
        if reused:
            operand = self.bind(operand)
        if not operand.fails:
            return operand
        operand = self.bind(operand)
        assert self.function is not None
        self.emit(f"if go_is_error({operand.code}):")
        self.emit(f"    return {operand.code}")
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
            if current is None or current.code is None or not isinstance(current.iface, str):
                raise UnsupportedTemplate(f"assignment to {name}, which is not a plain variable")
            self.emit(f"{current.code} = {self.data.value(value)}")
            self.emit(f"{current.iface} = {value.iface}")
            self.rebind(name, replace(value, code=current.code, iface=current.iface))
            return
        assert self.function is not None
        local = f"var_{identifier(name[1:]) or 'root'}"
        candidate, counter = local, 2
        while candidate in self.function.names:
            candidate, counter = f"{local}_{counter}", counter + 1
        self.function.names.add(candidate)
        self.emit(f"{candidate} = {self.data.value(value)}")
        iface = value.iface
        if name in self.assigned:
            iface = f"{candidate}_iface"
            self.emit(f"{iface} = {value.iface}")
        self.scopes[-1][name] = replace(value, code=candidate, at=None, fails=False, iface=iface)

    def rebind(self, name: str, value: Operand) -> None:
        """What is known of the visible variable ``name`` after it is set."""
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return

    def walk(self, nodes: ast.ListNode | None, dot: Operand) -> None:
        """Emit the statements of a list of nodes (walk)."""
        assert self.function is not None
        start = len(self.function.lines)
        for node in nodes.nodes if nodes is not None else ():
            self.walk_node(node, dot)
        if len(self.function.lines) == start:
            self.emit("pass")

    def walk_node(self, node: ast.Node, dot: Operand) -> None:
        if isinstance(node, ast.TextNode):
            self.emit(f"out.append({starlark_string(node.text)})")
        elif isinstance(node, ast.ActionNode):
            value = self.pipeline(node.pipe, dot)
            if node.pipe.decl:
                self.declare(node.pipe, self.checked(self.settled(value)))
            else:
                self.emit(f"out.append({self.checked(self.text(value)).code})")
        elif isinstance(node, ast.IfNode | ast.WithNode):
            self.walk_if_or_with(node, dot)
        elif isinstance(node, ast.RangeNode):
            self.walk_range(node, dot)
        elif isinstance(node, ast.TemplateNode):
            self.walk_template(node, dot)
        elif isinstance(node, ast.BreakNode):
            self.emit("break")
        elif isinstance(node, ast.ContinueNode):
            self.emit("continue")
        elif not isinstance(node, ast.CommentNode):
            raise UnsupportedTemplate(f"unexpected node {node_text(node)}")

    def block(self, header: str, nodes: ast.ListNode | None, dot: Operand) -> None:
        assert self.function is not None
        self.emit(header)
        self.function.depth += 1
        self.scopes.append({})
        self.walk(nodes, dot)
        self.scopes.pop()
        self.function.depth -= 1

    def walk_if_or_with(self, node: ast.IfNode | ast.WithNode, dot: Operand) -> None:
        self.scopes.append({})
        value = self.checked(self.settled(self.pipeline(node.pipe, dot)), reused=True)
        self.declare(node.pipe, value)
        inner = value if isinstance(node, ast.WithNode) else dot
        self.block(f"if go_truth({self.data.value(value)}):", node.list, inner)
        if node.else_list is not None:
            self.block("else:", node.else_list, dot)
        self.scopes.pop()

    def walk_range(self, node: ast.RangeNode, dot: Operand) -> None:
        self.scopes.append({})
        value = self.settled(self.pipeline(node.pipe, dot))
        at = self.need_at(value)
        collection = self.checked(value, reused=True)
        self.declare(node.pipe, collection)
        pairs = len(node.pipe.decl) > 1
        items = Operand(
            code=f"go_range_items({collection.code}, at = {at}, pairs = {pairs})",
            at=None,
            fails=True,
        )
        items = self.checked(items)
        key, element = self.temp("key"), self.temp("item")
        iface: bool | str = True
        if collection.kind in (Kind.INT,):
            iface = False
        elif collection.kind not in (Kind.DICT, Kind.MAP):
            iface = f'type({collection.code}) != "int"'
        elem = Operand(code=element, at=None, iface=iface, nil_iface=True)
        header = f"for {key}, {element} in {items.code}:"
        if node.else_list is not None:
            self.emit(f"if {items.code}:")
            assert self.function is not None
            self.function.depth += 1
        self.emit(header)
        assert self.function is not None
        self.function.depth += 1
        self.scopes.append({})
        self.range_variables(node.pipe, Operand(code=key, at=None), elem)
        self.walk(node.list, elem)
        self.scopes.pop()
        self.function.depth -= 1
        if node.else_list is not None:
            self.function.depth -= 1
            self.block("else:", node.else_list, dot)
        self.scopes.pop()

    def range_variables(self, pipe: ast.PipeNode, key: Operand, element: Operand) -> None:
        """What each iteration sets: the element, and the key with two variables."""
        decl = [v.ident[0] for v in pipe.decl]
        if not decl:
            return
        targets = [(decl[-1], element)] if len(decl) == 1 else [(decl[0], key), (decl[1], element)]
        for name, value in targets:
            current = self.lookup(name)
            assert current is not None and current.code is not None
            self.emit(f"{current.code} = {value.code}")
            iface = value.iface
            if isinstance(current.iface, str) and current.iface.endswith("_iface"):
                self.emit(f"{current.iface} = {value.iface}")
                iface = current.iface
            self.rebind(name, replace(value, code=current.code, iface=iface))

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
            value = Operand(code=MISSING, at=None, kind=Kind.MISSING)
        else:
            value = self.checked(self.settled(self.pipeline(node.pipe, dot)), reused=True)
            self.declare(node.pipe, value)
        inner = self.bind(replace(value, code=self.data.value(value), symbol=None))
        saved = self.scopes
        self.scopes = [{"$": (inner)}]
        self.running.append(node.name)
        self.walk(tree, inner)
        self.running.pop()
        self.scopes = saved

    # --- text ----------------------------------------------------------------

    def text(self, value: Operand) -> Operand:
        """What ``{{value}}`` prints (printValue)."""
        code = self.data.value(value)
        if value.kind is Kind.STRING:
            return replace(value, code=code)
        if value.kind is Kind.INT and re.fullmatch(r"-?[0-9]+", code):
            return replace(value, code=starlark_string(code), kind=Kind.STRING)
        return replace(value, code=f"go_text({code})", kind=Kind.STRING)

    def expression(self, nodes: ast.ListNode | None, dot: Operand) -> Operand:
        """A list of nodes as one expression: text, printing actions and ``if``."""
        parts: list[Operand] = []
        for node in nodes.nodes if nodes is not None else ():
            if isinstance(node, ast.TextNode):
                parts.append(Operand(code=starlark_string(node.text), at=None, kind=Kind.STRING))
            elif isinstance(node, ast.ActionNode) and not node.pipe.decl:
                parts.append(self.text(self.pipeline(node.pipe, dot)))
            elif isinstance(node, ast.IfNode) and not node.pipe.decl:
                condition = self.pipeline(node.pipe, dot)
                then_part = self.expression(node.list, dot)
                else_part = self.expression(node.else_list, dot)
                code = f"go_if({self.data.value(condition)}, {then_part.code}, {else_part.code})"
                fails = condition.fails or then_part.fails or else_part.fails
                parts.append(Operand(code=code, at=None, fails=fails, kind=Kind.STRING))
            elif not isinstance(node, ast.CommentNode):
                raise NeedStatements
        return _join(parts)


#: Most pieces joined with ``+``; longer texts are joined from a list.
MAX_PLUS_CHAIN = 16


def _join(parts: list[Operand]) -> Operand:
    """The concatenation of text parts (the first error wins)."""
    merged: list[Operand] = []
    for part in parts:
        if merged and _is_plainstarlark_string(part) and _is_plainstarlark_string(merged[-1]):
            text = _unquote_plain(merged[-1]) + _unquote_plain(part)
            merged[-1] = Operand(code=starlark_string(text), at=None, kind=Kind.STRING)
        else:
            merged.append(part)
    codes = [part.code or '""' for part in merged]
    if not codes:
        return Operand(code='""', at=None, kind=Kind.STRING)
    if any(part.fails for part in merged):
        code = codes[0] if len(codes) == 1 else f"go_concat([{', '.join(codes)}])"
        return Operand(code=code, at=None, fails=True, kind=Kind.STRING)
    if len(codes) > MAX_PLUS_CHAIN:
        # One flat list: a long ``a + b + ...`` chain is a tree as deep as it is long.
        return Operand(code=f'"".join([{", ".join(codes)}])', at=None, kind=Kind.STRING)
    return Operand(code=" + ".join(codes), at=None, kind=Kind.STRING)


_PLAIN = re.compile(r'"[^"\\]*"')


def _is_plainstarlark_string(part: Operand) -> bool:
    return part.code is not None and _PLAIN.fullmatch(part.code) is not None


def _unquote_plain(part: Operand) -> str:
    assert part.code is not None
    return part.code[1:-1]
