"""The template root (``.params``, ``.steps``, ``.workflow``, ...) as Starlark.

vMCP executes every template over one map whose shape is fixed; the
compiler resolves paths through it at compile time and reads the emitter's
expressions (:class:`TemplateEnv`) only where data begins. Each expression
read is recorded: inside a template function it arrives as a parameter.
"""

from __future__ import annotations

import re

from transpiler.emit import ir
from transpiler.emit.exact.nodes import string
from transpiler.emit.exact.template_env import TemplateEnv, UnsupportedTemplate
from transpiler.emit.exact.template_values import Kind, Operand, Symbol
from transpiler.inert import UnrepresentableValue

MISSING = ir.Name("GO_MISSING")
STEP_PARTS = {"output": Kind.MAP, "status": Kind.STRING, "error": Kind.STRING, "content": Kind.DICT}


def template_string(text: str) -> ir.Str:
    """A Starlark string literal (template text must be valid UTF-8)."""
    try:
        return string(text)
    except UnrepresentableValue as error:
        raise UnsupportedTemplate(f"template text is not valid UTF-8: {error}") from None


def identifier(text: str) -> str:
    """A lower-case identifier fragment resembling ``text``."""
    return re.sub(r"[^0-9A-Za-z_]+", "_", text).strip("_").lower()


def root_operand() -> Operand:
    """The root map itself (``.`` or ``$`` at the top of a template)."""
    return Operand(expr=None, at=None, symbol=Symbol.ROOT, kind=Kind.DICT)


class TemplateData:
    """The env expressions a template reads, and the maps around them."""

    def __init__(self, env: TemplateEnv, inside_function: bool) -> None:
        self.env = env
        self.inside_function = inside_function
        self.reads: dict[str, tuple[str, ir.Expr]] = {}

    def read(self, key: str, expr: ir.Expr, hint: str) -> ir.Expr:
        """An env expression, recorded; a parameter name inside a function."""
        if key not in self.reads:
            taken = {name for name, _ in self.reads.values()}
            name, counter = hint, 2
            while name in taken:
                name, counter = f"{hint}_{counter}", counter + 1
            self.reads[key] = (name, expr)
        if self.inside_function:
            return ir.Name(self.reads[key][0])
        return expr if isinstance(expr, ir.Name) else ir.Paren(expr)

    def symbol_field(self, operand: Operand, name: str) -> Operand:
        """``.name`` of a root map known at compile time."""
        missing = Operand(expr=MISSING, at=None, kind=Kind.MISSING)
        if operand.symbol is Symbol.ROOT:
            if name == "params":
                expr = self.read("params", self.env.params, "params")
                return Operand(expr=expr, at=None, iface=True, kind=Kind.DICT)
            if name == "workflow":
                expr = self.read("workflow", self.env.workflow, "workflow")
                return Operand(expr=expr, at=None, iface=True, kind=Kind.DICT)
            if name == "vars":
                return Operand(expr=ir.Dict(()), at=None, iface=True, kind=Kind.DICT)
            if name == "steps":
                return Operand(expr=None, at=None, symbol=Symbol.STEPS, kind=Kind.DICT)
            if name == "forEach" and self.env.for_each is not None:
                return Operand(expr=None, at=None, symbol=Symbol.FOR_EACH, kind=Kind.DICT)
            return missing
        if operand.symbol is Symbol.STEPS:
            if self.env.step(name, "status") is None:
                return missing
            return Operand(expr=None, at=None, symbol=Symbol.STEP, kind=Kind.DICT, step_id=name)
        if operand.symbol is Symbol.STEP:
            part = self.env.step(operand.step_id, name) if name in STEP_PARTS else None
            if part is None:
                return missing
            hint = f"step_{identifier(operand.step_id)}_{name}"
            expr = self.read(f"step:{operand.step_id}:{name}", part, hint)
            return Operand(expr=expr, at=None, iface=True, kind=STEP_PARTS[name])
        for_each = self.env.for_each
        assert operand.symbol is Symbol.FOR_EACH and for_each is not None
        if name == for_each.item_var:
            expr = self.read("forEach:item", for_each.item, "for_each_item")
            return Operand(expr=expr, at=None, iface=True, nil_iface=True)
        if name == "index":
            expr = self.read("forEach:index", for_each.index, "for_each_index")
            return Operand(expr=expr, at=None, iface=True, kind=Kind.INT)
        return missing

    def value(self, operand: Operand) -> ir.Expr:
        """The Starlark value of an operand (building root maps when needed)."""
        if operand.expr is not None:
            return operand.expr
        if operand.symbol is Symbol.STEPS:
            return self.read("steps", self.env.steps_map(), "steps")
        names: list[str]
        if operand.symbol is Symbol.ROOT:
            names = ["params", "steps", "vars", "workflow"]
            if self.env.for_each is not None:
                names.append("forEach")
        elif operand.symbol is Symbol.STEP:
            names = [p for p in STEP_PARTS if self.env.step(operand.step_id, p) is not None]
        else:
            assert self.env.for_each is not None
            names = [self.env.for_each.item_var, "index"]
        items = []
        for name in names:
            part = self.symbol_field(operand, name)
            items.append((template_string(name), self.value(part)))
        return ir.Dict(tuple(items))
