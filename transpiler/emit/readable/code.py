"""Expressions and statements of readable scripts, laid out as a person writes them.

An expression stays on one line when it fits; otherwise a call whose last
argument is a dict, list or comprehension keeps the head on the first line
and opens that argument there (``call_tool("t", {`` ... ``})``), and other
calls, dicts and lists put one item per line with a trailing comma. Every
piece of input text reaches the source through :func:`literal`, so nothing
from a workflow can become code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from transpiler.emit.literals import literal as value_literal
from transpiler.emit.literals import string_literal

WIDTH = 99
INDENT = "    "

# Operator precedence, loosest first (Starlark's grammar).
LAMBDA, TERNARY, OR, AND, NOT, COMPARE, BITOR, SUM, PRODUCT, UNARY, ATOM = range(11)


@dataclass(frozen=True)
class Expr:
    """Base of the expression model."""

    def prec(self) -> int:
        """How tightly the expression binds."""
        return ATOM


@dataclass(frozen=True)
class Raw(Expr):
    """Source already built (a name, a literal, an operator expression) and its precedence."""

    text: str
    level: int = ATOM

    def prec(self) -> int:
        return self.level


@dataclass(frozen=True)
class Call(Expr):
    """``func(args, name=value)``."""

    func: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True)
class Dict(Expr):
    """A dict literal."""

    items: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True)
class List(Expr):
    """A list literal."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Tuple(Expr):
    """A parenthesised tuple (the operands of ``%``)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Comprehension(Expr):
    """``[element for ... in ...]``."""

    element: Expr
    clauses: str


@dataclass(frozen=True)
class Lambda(Expr):
    """``lambda params: body``."""

    params: tuple[str, ...]
    body: Expr

    def prec(self) -> int:
        return LAMBDA


@dataclass(frozen=True)
class Binary(Expr):
    """``left op right`` at a precedence level (left-associative)."""

    left: Expr
    op: str
    right: Expr
    level: int

    def prec(self) -> int:
        return self.level


def name(text: str) -> Raw:
    """A variable or attribute path."""
    return Raw(text)


def literal(value: object) -> Expr:
    """A JSON-like value as a literal (containers as dicts and lists the layout can break)."""
    if isinstance(value, dict):
        return Dict(tuple((string(str(k)), literal(v)) for k, v in value.items()))
    if isinstance(value, list):
        return List(tuple(literal(v) for v in value))
    return Raw(value_literal(value))


def string(text: str) -> Raw:
    """A string literal."""
    return Raw(string_literal(text))


def call(func: str, *args: Expr, **kwargs: Expr) -> Call:
    """A call."""
    return Call(func, tuple(args), tuple(kwargs.items()))


def dict_of(items: Sequence[tuple[str, Expr]]) -> Dict:
    """A dict literal with string keys."""
    return Dict(tuple((string(key), value) for key, value in items))


def wrap(expr: Expr, level: int) -> str:
    """Flat source of ``expr``, parenthesised if it binds looser than ``level``."""
    text = flat(expr)
    return f"({text})" if expr.prec() < level else text


def flat(expr: Expr) -> str:
    """The expression on one line."""
    if isinstance(expr, Raw):
        return expr.text
    if isinstance(expr, Call):
        parts = [flat(a) for a in expr.args] + [f"{k}={flat(v)}" for k, v in expr.kwargs]
        return f"{expr.func}({', '.join(parts)})"
    if isinstance(expr, Dict):
        return "{" + ", ".join(f"{flat(k)}: {flat(v)}" for k, v in expr.items) + "}"
    if isinstance(expr, List):
        return "[" + ", ".join(flat(i) for i in expr.items) + "]"
    if isinstance(expr, Tuple):
        inside = ", ".join(flat(i) for i in expr.items)
        return f"({inside},)" if len(expr.items) == 1 else f"({inside})"
    if isinstance(expr, Comprehension):
        return f"[{flat(expr.element)} {expr.clauses}]"
    if isinstance(expr, Lambda):
        params = ", ".join(expr.params)
        return f"lambda {params}: {flat(expr.body)}" if params else f"lambda: {flat(expr.body)}"
    if isinstance(expr, Binary):
        right_level = expr.level + 1
        return f"{wrap(expr.left, expr.level)} {expr.op} {wrap(expr.right, right_level)}"
    raise TypeError(type(expr).__name__)


def render(expr: Expr, column: int, indent: int) -> str:
    """Source of ``expr`` starting at ``column`` on a line indented by ``indent``.

    Flat when it fits; otherwise broken, continuation lines one indent deeper
    than ``indent`` (relative to the first line's indentation in the text).
    """
    text = flat(expr)
    if column + len(text) <= WIDTH:
        return text
    return _broken(expr, column, indent)


def _broken(expr: Expr, column: int, indent: int) -> str:
    inner = indent + len(INDENT)
    if isinstance(expr, Call):
        return _call(expr, column, indent)
    if isinstance(expr, Dict):
        lines = []
        for key, value in expr.items:
            head = flat(key) + ": "
            lines.append(head + render(value, inner + len(head), inner))
        return _block("{", lines, "}")
    if isinstance(expr, List):
        return _block("[", [render(i, inner, inner) for i in expr.items], "]")
    if isinstance(expr, Tuple):
        return _block("(", [render(i, inner, inner) for i in expr.items], ")")
    if isinstance(expr, Comprehension):
        body = render(expr.element, inner, inner)
        return _block("[", [body + "\n" + expr.clauses], "]", comma=False)
    if isinstance(expr, Lambda):
        head = flat(Lambda(expr.params, Raw(""))).rstrip()
        return head + " " + render(expr.body, column + len(head) + 1, indent)
    if isinstance(expr, Binary):
        left = wrap(expr.left, expr.level)
        start = column + len(left) + len(expr.op) + 2
        right = render(expr.right, start, indent)
        if expr.right.prec() <= expr.level:
            right = f"({right})"
        return f"{left} {expr.op} {right}"
    return flat(expr)


def _call(expr: Call, column: int, indent: int) -> str:
    inner = indent + len(INDENT)
    args = [flat(a) for a in expr.args] + [f"{k}={flat(v)}" for k, v in expr.kwargs]
    last = expr.args[-1] if expr.args and not expr.kwargs else None
    if last is not None and _huggable(last):
        head = f"{expr.func}(" + "".join(a + ", " for a in args[:-1])
        if column + len(head) + 1 <= WIDTH:
            return head + _broken(last, column + len(head), indent) + ")"
    lines = [render(a, inner, inner) for a in expr.args]
    lines += [f"{k}={render(v, inner + len(k) + 1, inner)}" for k, v in expr.kwargs]
    return _block(f"{expr.func}(", lines, ")")


def _huggable(expr: Expr) -> bool:
    """Whether a last argument can open on the call's line: a bracket, or a call or lambda
    ending in one (``retry(lambda: call_tool("t", {``)."""
    if isinstance(expr, Dict | List | Comprehension | Tuple):
        return True
    if isinstance(expr, Lambda):
        return _huggable(expr.body)
    if isinstance(expr, Call):
        return bool(expr.args) and not expr.kwargs and _huggable(expr.args[-1])
    return False


def _block(opening: str, lines: list[str], closing: str, comma: bool = True) -> str:
    if not lines:
        return opening + closing
    tail = "," if comma else ""
    body = "".join(f"\n{INDENT}" + line.replace("\n", "\n" + INDENT) + tail for line in lines)
    return f"{opening}{body}\n{closing}"


@dataclass
class Block:
    """Lines of code at increasing indentation, with blank lines and comments kept."""

    lines: list[str] = field(default_factory=list)
    depth: int = 0

    def add(self, text: str) -> None:
        """One (possibly multi-line) statement at the current depth."""
        pad = INDENT * self.depth
        self.lines.append(pad + text.replace("\n", "\n" + pad))

    def statement(self, head: str, expr: Expr | None = None) -> None:
        """``head`` followed by an expression laid out after it (``x = <expr>``)."""
        if expr is None:
            self.add(head)
            return
        indent = len(INDENT) * self.depth
        self.add(head + render(expr, indent + len(head), indent))

    def comment(self, text: str) -> None:
        """``# text`` lines (text is already inert)."""
        for line in text.splitlines():
            self.add(f"# {line}".rstrip())

    def blank(self) -> None:
        """A blank line (never two in a row, never first)."""
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def line_number(self, entry: int) -> int:
        """The 1-based physical line on which entry ``entry`` starts."""
        return 1 + sum(text.count("\n") + 1 for text in self.lines[:entry])

    def text(self) -> str:
        """The block's source."""
        while self.lines and self.lines[-1] == "":
            self.lines.pop()
        return "\n".join(self.lines) + "\n"
