"""Starlark code as typed nodes, and the one printer that lays them out.

Scripts are built from the expression and statement nodes below, never from
pasted text: a name is checked to be an identifier, input text reaches the
source only through :class:`Str` (a string literal no input can break out
of) and :class:`Comment` (inert comment lines), and parentheses follow from
the operator table, so a script always means what its nodes say.

The printer keeps an expression on one line when it fits :data:`WIDTH`;
otherwise calls, dicts, lists and tuples put one item per line with a
trailing comma, and (with :attr:`Layout.hug`) a call whose last argument is
a bracket keeps its head on the first line and opens that argument there
(``call_tool("t", {`` ... ``})``). Statements are indented by the printer,
which reports the lines each statement occupies (for source maps).
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from transpiler.emit.literals import literal as value_literal
from transpiler.inert import comment_lines, string_literal

WIDTH = 99
INDENT = "    "


class Precedence(IntEnum):
    """How tightly an expression binds, loosest first (Starlark's grammar)."""

    LAMBDA = 0
    TERNARY = 1
    OR = 2
    AND = 3
    NOT = 4
    COMPARE = 5
    BITOR = 6
    BITXOR = 7
    BITAND = 8
    SHIFT = 9
    SUM = 10
    PRODUCT = 11
    UNARY = 12
    ATOM = 13


#: Every binary operator and how tightly it binds (all left-associative but comparisons,
#: which do not associate).
BINARY_OPERATORS: Mapping[str, Precedence] = {
    "or": Precedence.OR,
    "and": Precedence.AND,
    **dict.fromkeys(("==", "!=", "<", "<=", ">", ">=", "in", "not in"), Precedence.COMPARE),
    "|": Precedence.BITOR,
    "^": Precedence.BITXOR,
    "&": Precedence.BITAND,
    **dict.fromkeys(("<<", ">>"), Precedence.SHIFT),
    **dict.fromkeys(("+", "-"), Precedence.SUM),
    **dict.fromkeys(("*", "/", "//", "%"), Precedence.PRODUCT),
}
#: Every unary operator and how tightly it binds.
UNARY_OPERATORS: Mapping[str, Precedence] = {
    "not": Precedence.NOT,
    **dict.fromkeys(("-", "+", "~"), Precedence.UNARY),
}


def _identifier(text: str) -> str:
    if not text.isidentifier() or keyword.iskeyword(text):
        raise ValueError(f"not an identifier: {text!r}")
    return text


# --- expressions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expr:
    """Base of the expression nodes."""


@dataclass(frozen=True)
class Name(Expr):
    """A variable (an identifier)."""

    id: str

    def __post_init__(self) -> None:
        _identifier(self.id)


@dataclass(frozen=True)
class Str(Expr):
    """A string literal of any text (printed inert: escapes and ``chr`` pieces)."""

    text: str


@dataclass(frozen=True)
class Literal(Expr):
    """``None``, a bool, a number, or a JSON-like value, always printed on one line."""

    value: Any


@dataclass(frozen=True)
class Attribute(Expr):
    """``value.name``."""

    value: Expr
    name: str

    def __post_init__(self) -> None:
        _identifier(self.name)


@dataclass(frozen=True)
class Index(Expr):
    """``value[key]``."""

    value: Expr
    key: Expr


@dataclass(frozen=True)
class Call(Expr):
    """``func(args, name=value)``; ``spaced_keywords`` writes ``name = value``."""

    func: Expr
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()
    spaced_keywords: bool = False

    def __post_init__(self) -> None:
        for key, _ in self.kwargs:
            _identifier(key)


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
    """A parenthesised tuple (``(x,)`` for one item)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class ForClause:
    """``for targets in iterable`` of a comprehension."""

    targets: tuple[str, ...]
    iterable: Expr

    def __post_init__(self) -> None:
        for target in self.targets:
            _identifier(target)


@dataclass(frozen=True)
class IfClause:
    """``if test`` of a comprehension."""

    test: Expr


@dataclass(frozen=True)
class Comprehension(Expr):
    """``[element for ... in ... if ...]`` (the first clause a ``for``)."""

    element: Expr
    clauses: tuple[ForClause | IfClause, ...]

    def __post_init__(self) -> None:
        if not self.clauses or not isinstance(self.clauses[0], ForClause):
            raise ValueError("a comprehension starts with a for clause")


@dataclass(frozen=True)
class Parameter:
    """A parameter of a lambda or function, with an optional default (``item=item``)."""

    name: str
    default: Expr | None = None

    def __post_init__(self) -> None:
        _identifier(self.name)


@dataclass(frozen=True)
class Lambda(Expr):
    """``lambda params: body``."""

    params: tuple[Parameter, ...]
    body: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """``left op right`` (``op`` one of :data:`BINARY_OPERATORS`)."""

    left: Expr
    op: str
    right: Expr

    def __post_init__(self) -> None:
        if self.op not in BINARY_OPERATORS:
            raise ValueError(f"not a binary operator: {self.op!r}")


@dataclass(frozen=True)
class Unary(Expr):
    """``op operand`` (``op`` one of :data:`UNARY_OPERATORS`)."""

    op: str
    operand: Expr

    def __post_init__(self) -> None:
        if self.op not in UNARY_OPERATORS:
            raise ValueError(f"not a unary operator: {self.op!r}")


@dataclass(frozen=True)
class Cond(Expr):
    """``body if test else orelse``."""

    body: Expr
    test: Expr
    orelse: Expr


@dataclass(frozen=True)
class Paren(Expr):
    """Parentheses a style writes where precedence does not need them."""

    inner: Expr


@dataclass(frozen=True)
class Unbroken(Expr):
    """An expression a style keeps on one line whatever the width."""

    inner: Expr


@dataclass(frozen=True)
class Broken(Expr):
    """An expression a style lays out over lines even where it fits on one (and so every
    expression around it)."""

    inner: Expr


@dataclass(frozen=True)
class Hugging(Expr):
    """A call laid out hugging its last argument (``parallel([`` ... ``])``) whatever
    :attr:`Layout.hug` says."""

    call: Call


# --- statements -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """Base of the statement nodes."""


def _runs_something(body: tuple[Statement, ...]) -> None:
    if all(isinstance(s, Comment | Blank) for s in body):
        raise ValueError("a body needs a statement besides comments and blank lines")


@dataclass(frozen=True)
class Assign(Statement):
    """``targets = value`` (several targets: ``a, b = value``)."""

    targets: tuple[Expr, ...]
    value: Expr


@dataclass(frozen=True)
class ExprStmt(Statement):
    """An expression used for its effect."""

    expr: Expr


@dataclass(frozen=True)
class Return(Statement):
    """``return value`` (bare ``return`` without one)."""

    value: Expr | None = None


@dataclass(frozen=True)
class ReturnTuple(Statement):
    """``return a, b``: several values, the tuple written without parentheses."""

    values: tuple[Expr, ...]


@dataclass(frozen=True)
class If(Statement):
    """``if test: body`` with an ``else`` (an ``else`` of one ``if`` prints as ``elif``)."""

    test: Expr
    body: tuple[Statement, ...]
    orelse: tuple[Statement, ...] = ()

    def __post_init__(self) -> None:
        _runs_something(self.body)
        if self.orelse:
            _runs_something(self.orelse)


@dataclass(frozen=True)
class For(Statement):
    """``for targets in iterable: body``."""

    targets: tuple[str, ...]
    iterable: Expr
    body: tuple[Statement, ...]

    def __post_init__(self) -> None:
        for target in self.targets:
            _identifier(target)
        _runs_something(self.body)


@dataclass(frozen=True)
class Def(Statement):
    """``def name(params): body``."""

    name: str
    params: tuple[Parameter, ...]
    body: tuple[Statement, ...]

    def __post_init__(self) -> None:
        _identifier(self.name)
        _runs_something(self.body)


@dataclass(frozen=True)
class Load(Statement):
    """``load("module", "name", ...)``."""

    module: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Comment(Statement):
    """``# text`` lines (the text made inert, one comment line per line)."""

    text: str


@dataclass(frozen=True)
class Blank(Statement):
    """A blank line: never the first or last of a body, never two in a row."""


@dataclass(frozen=True)
class Pass(Statement):
    """``pass``."""


@dataclass(frozen=True)
class Break(Statement):
    """``break``."""


@dataclass(frozen=True)
class Continue(Statement):
    """``continue``."""


# --- building ---------------------------------------------------------------------------------


def dotted(path: str) -> Expr:
    """A name or attribute path (``json.decode``)."""
    head, *rest = path.split(".")
    expr: Expr = Name(head)
    for part in rest:
        expr = Attribute(expr, part)
    return expr


def call(func: str | Expr, *args: Expr, **kwargs: Expr) -> Call:
    """A call (``func`` a dotted path or an expression), keywords in the order given."""
    return Call(dotted(func) if isinstance(func, str) else func, args, tuple(kwargs.items()))


def json_literal(value: Any) -> Expr:
    """A JSON-like value as a literal whose dicts and lists the layout may break."""
    if isinstance(value, dict):
        return Dict(tuple((Str(str(k)), json_literal(v)) for k, v in value.items()))
    if isinstance(value, list):
        return List(tuple(json_literal(v) for v in value))
    if isinstance(value, str):
        return Str(value)
    return Literal(value)


def dict_of(items: Iterable[tuple[str, Expr]]) -> Dict:
    """A dict literal with string keys."""
    return Dict(tuple((Str(key), value) for key, value in items))


def assign(target: str, value: Expr) -> Assign:
    """``target = value``."""
    return Assign((Name(target),), value)


# --- printing expressions ---------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How a style lays out what does not fit on one line.

    ``hug``: a call whose last argument is a bracket (or a call or lambda ending
    in one) opens that argument on the call's line; ``colon_fits``: the colon
    ending an ``if`` line counts toward the width of its test; ``elif_chains``:
    an ``else`` holding one ``if`` prints as ``elif``.
    """

    hug: bool = True
    colon_fits: bool = False
    elif_chains: bool = True


def precedence(expr: Expr) -> Precedence:
    """How tightly ``expr`` binds."""
    if isinstance(expr, Binary):
        return BINARY_OPERATORS[expr.op]
    if isinstance(expr, Unary):
        return UNARY_OPERATORS[expr.op]
    if isinstance(expr, Cond):
        return Precedence.TERNARY
    if isinstance(expr, Lambda):
        return Precedence.LAMBDA
    if isinstance(expr, Unbroken | Broken):
        return precedence(expr.inner)
    if isinstance(expr, Literal) and value_literal(expr.value).startswith("-"):
        return Precedence.UNARY
    return Precedence.ATOM


def _wrap(expr: Expr, level: Precedence) -> str:
    """Flat source of ``expr``, parenthesised if it binds looser than ``level``."""
    text = flat(expr)
    return f"({text})" if precedence(expr) < level else text


def _operand_levels(op: str) -> tuple[Precedence, Precedence]:
    """The least precedence of each operand of ``op`` that needs no parentheses."""
    level = BINARY_OPERATORS[op]
    above = Precedence(level + 1)
    return (above if level is Precedence.COMPARE else level), above


def _keyword(expr: Call, key: str) -> str:
    return f"{key} = " if expr.spaced_keywords else f"{key}="


def _params(params: Sequence[Parameter]) -> str:
    return ", ".join(p.name if p.default is None else f"{p.name}={flat(p.default)}" for p in params)


def _clause(clause: ForClause | IfClause) -> str:
    if isinstance(clause, ForClause):
        targets = ", ".join(clause.targets)
        return f"for {targets} in {_wrap(clause.iterable, Precedence.OR)}"
    return f"if {_wrap(clause.test, Precedence.OR)}"


def flat(expr: Expr) -> str:
    """The expression on one line."""
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, Str):
        return string_literal(expr.text)
    if isinstance(expr, Literal):
        return value_literal(expr.value)
    if isinstance(expr, Attribute):
        return f"{_wrap(expr.value, Precedence.ATOM)}.{expr.name}"
    if isinstance(expr, Index):
        return f"{_wrap(expr.value, Precedence.ATOM)}[{flat(expr.key)}]"
    if isinstance(expr, Call):
        parts = [flat(a) for a in expr.args]
        parts += [_keyword(expr, k) + flat(v) for k, v in expr.kwargs]
        return f"{_wrap(expr.func, Precedence.ATOM)}({', '.join(parts)})"
    if isinstance(expr, Dict):
        return "{" + ", ".join(f"{flat(k)}: {flat(v)}" for k, v in expr.items) + "}"
    if isinstance(expr, List):
        return "[" + ", ".join(flat(i) for i in expr.items) + "]"
    if isinstance(expr, Tuple):
        inside = ", ".join(flat(i) for i in expr.items)
        return f"({inside},)" if len(expr.items) == 1 else f"({inside})"
    if isinstance(expr, Comprehension):
        return f"[{flat(expr.element)} {' '.join(_clause(c) for c in expr.clauses)}]"
    if isinstance(expr, Lambda):
        params = _params(expr.params)
        return f"lambda {params}: {flat(expr.body)}" if params else f"lambda: {flat(expr.body)}"
    if isinstance(expr, Binary):
        left, right = _operand_levels(expr.op)
        return f"{_wrap(expr.left, left)} {expr.op} {_wrap(expr.right, right)}"
    if isinstance(expr, Unary):
        space = " " if expr.op == "not" else ""
        return f"{expr.op}{space}{_wrap(expr.operand, UNARY_OPERATORS[expr.op])}"
    if isinstance(expr, Cond):
        body = _wrap(expr.body, Precedence.OR)
        test = _wrap(expr.test, Precedence.OR)
        return f"{body} if {test} else {_wrap(expr.orelse, Precedence.TERNARY)}"
    if isinstance(expr, Paren):
        return f"({flat(expr.inner)})"
    if isinstance(expr, Unbroken | Broken):
        return flat(expr.inner)
    if isinstance(expr, Hugging):
        return flat(expr.call)
    raise TypeError(f"not an expression: {type(expr).__name__}")


def render(expr: Expr, column: int = 0, indent: int = 0, layout: Layout = Layout()) -> str:
    """Source of ``expr`` starting at ``column`` on a line indented by ``indent``.

    Flat when it fits; otherwise broken, continuation lines indented relative
    to the first line's indentation (the printer adds that indentation).
    """
    text = flat(expr)
    if column + len(text) <= WIDTH and not any(isinstance(e, Broken) for e in walk(expr)):
        return text
    return _broken(expr, column, indent, layout)


def _broken(expr: Expr, column: int, indent: int, layout: Layout) -> str:
    inner = indent + len(INDENT)
    if isinstance(expr, Broken):
        return _broken(expr.inner, column, indent, layout)
    if isinstance(expr, Hugging):
        return _call(expr.call, column, indent, layout, hug=True)
    if isinstance(expr, Call):
        return _call(expr, column, indent, layout)
    if isinstance(expr, Dict):
        lines = []
        for key, value in expr.items:
            head = flat(key) + ": "
            lines.append(head + render(value, inner + len(head), inner, layout))
        return _block("{", lines, "}")
    if isinstance(expr, List):
        return _block("[", [render(i, inner, inner, layout) for i in expr.items], "]")
    if isinstance(expr, Tuple):
        return _block("(", [render(i, inner, inner, layout) for i in expr.items], ")")
    if isinstance(expr, Comprehension):
        element = render(expr.element, inner, inner, layout)
        clauses = " ".join(_clause(c) for c in expr.clauses)
        return _block("[", [element + "\n" + clauses], "]", comma=False)
    if isinstance(expr, Lambda):
        params = _params(expr.params)
        head = f"lambda {params}:" if params else "lambda:"
        return head + " " + render(expr.body, column + len(head) + 1, indent, layout)
    if isinstance(expr, Binary):
        left_level, right_level = _operand_levels(expr.op)
        left = _wrap(expr.left, left_level)
        start = column + len(left) + len(expr.op) + 2
        right = render(expr.right, start, indent, layout)
        if precedence(expr.right) < right_level:
            right = f"({right})"
        return f"{left} {expr.op} {right}"
    return flat(expr)


def _call(expr: Call, column: int, indent: int, layout: Layout, hug: bool = False) -> str:
    inner = indent + len(INDENT)
    func = _wrap(expr.func, Precedence.ATOM)
    last = expr.args[-1] if expr.args and not expr.kwargs else None
    if (layout.hug or hug) and last is not None and _huggable(last):
        head = f"{func}(" + "".join(flat(a) + ", " for a in expr.args[:-1])
        if column + len(head) + 1 <= WIDTH:
            return head + _broken(last, column + len(head), indent, layout) + ")"
    lines = [render(a, inner, inner, layout) for a in expr.args]
    for key, value in expr.kwargs:
        head = _keyword(expr, key)
        lines.append(head + render(value, inner + len(head), inner, layout))
    return _block(f"{func}(", lines, ")")


def _huggable(expr: Expr) -> bool:
    """Whether a last argument can open on the call's line: a bracket, or a call or lambda
    ending in one (``retry(lambda: call_tool("t", {``)."""
    if isinstance(expr, Dict | List | Comprehension | Tuple):
        return True
    if isinstance(expr, Broken):
        return _huggable(expr.inner)
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


# --- printing statements ----------------------------------------------------------------------

#: Where a statement sits: its index in the module, then in each enclosing body (an ``If``
#: numbers its ``else`` statements after its body's).
Path = tuple[int, ...]


@dataclass(frozen=True)
class Printed:
    """Printed statements: the source, and the lines (from 1, first and last) of each
    printed statement by its :data:`Path` (blank lines have none)."""

    text: str
    spans: Mapping[Path, tuple[int, int]]

    def lines_of(self, paths: Sequence[Path]) -> tuple[int, int] | None:
        """The first and last line of the printed statements among ``paths``."""
        found = [self.spans[p] for p in paths if p in self.spans]
        if not found:
            return None
        return min(first for first, _ in found), max(last for _, last in found)


@dataclass
class _Printer:
    layout: Layout
    lines: list[str] = field(default_factory=list)
    spans: dict[Path, tuple[int, int]] = field(default_factory=dict)

    def body(
        self, statements: Sequence[Statement], depth: int, path: Path, numbered_from: int = 0
    ) -> None:
        blank = False
        printed = False
        for position, statement in enumerate(statements, numbered_from):
            if isinstance(statement, Blank):
                blank = printed
                continue
            if blank:
                self.lines.append("")
                blank = False
            first = len(self.lines) + 1
            self.statement(statement, depth, (*path, position))
            self.spans[(*path, position)] = (first, len(self.lines))
            printed = True

    def add(self, text: str, depth: int) -> None:
        pad = INDENT * depth
        self.lines.extend(pad + line for line in text.split("\n"))

    def headed(self, head: str, expr: Expr, depth: int, tail: str = "") -> None:
        """``head`` and ``expr`` laid out after it (``x = <expr>``), then ``tail`` (which
        counts toward the width when the layout says so)."""
        indent = len(INDENT) * depth
        column = indent + len(head) + (len(tail) if self.layout.colon_fits else 0)
        self.add(head + render(expr, column, indent, self.layout) + tail, depth)

    def statement(self, statement: Statement, depth: int, path: Path) -> None:
        if isinstance(statement, Assign):
            targets = ", ".join(flat(t) for t in statement.targets)
            self.headed(f"{targets} = ", statement.value, depth)
        elif isinstance(statement, ExprStmt):
            self.headed("", statement.expr, depth)
        elif isinstance(statement, Return):
            if statement.value is None:
                self.add("return", depth)
            else:
                self.headed("return ", statement.value, depth)
        elif isinstance(statement, ReturnTuple):
            self.add("return " + ", ".join(flat(v) for v in statement.values), depth)
        elif isinstance(statement, If):
            self.if_(statement, depth, path, "if ")
        elif isinstance(statement, For):
            targets = ", ".join(statement.targets)
            self.add(f"for {targets} in {flat(statement.iterable)}:", depth)
            self.body(statement.body, depth + 1, path)
        elif isinstance(statement, Def):
            self.add(f"def {statement.name}({_params(statement.params)}):", depth)
            self.body(statement.body, depth + 1, path)
        elif isinstance(statement, Load):
            names = (Str(statement.module), *(Str(n) for n in statement.names))
            self.headed("", Call(Name("load"), names), depth)
        elif isinstance(statement, Comment):
            for line in comment_lines(statement.text):
                self.add(f"# {line}".rstrip(), depth)
        elif isinstance(statement, Pass | Break | Continue):
            self.add(type(statement).__name__.lower(), depth)
        else:
            raise TypeError(f"not a statement: {type(statement).__name__}")

    def if_(self, statement: If, depth: int, path: Path, keyword_: str) -> None:
        self.headed(keyword_, statement.test, depth, ":")
        self.body(statement.body, depth + 1, path)
        orelse, after = statement.orelse, len(statement.body)
        if self.layout.elif_chains and len(orelse) == 1 and isinstance(orelse[0], If):
            first = len(self.lines) + 1
            self.if_(orelse[0], depth, (*path, after), "elif ")
            self.spans[(*path, after)] = (first, len(self.lines))
        elif orelse:
            self.add("else:", depth)
            self.body(orelse, depth + 1, path, numbered_from=after)


def print_statements(statements: Sequence[Statement], layout: Layout = Layout()) -> Printed:
    """The source of ``statements`` at the top level (each line ending in a newline)."""
    printer = _Printer(layout)
    printer.body(statements, 0, ())
    return Printed("".join(line + "\n" for line in printer.lines), printer.spans)


def walk(expr: Expr) -> Iterator[Expr]:
    """``expr`` and every expression inside it."""
    yield expr
    children: list[Expr] = []
    if isinstance(expr, Attribute | Index):
        children = [expr.value] + ([expr.key] if isinstance(expr, Index) else [])
    elif isinstance(expr, Call):
        children = [expr.func, *expr.args, *(v for _, v in expr.kwargs)]
    elif isinstance(expr, Dict):
        children = [e for pair in expr.items for e in pair]
    elif isinstance(expr, List | Tuple):
        children = list(expr.items)
    elif isinstance(expr, Comprehension):
        children = [expr.element]
        for clause in expr.clauses:
            children.append(clause.iterable if isinstance(clause, ForClause) else clause.test)
    elif isinstance(expr, Lambda):
        children = [p.default for p in expr.params if p.default is not None] + [expr.body]
    elif isinstance(expr, Binary):
        children = [expr.left, expr.right]
    elif isinstance(expr, Unary):
        children = [expr.operand]
    elif isinstance(expr, Cond):
        children = [expr.body, expr.test, expr.orelse]
    elif isinstance(expr, Paren | Unbroken | Broken):
        children = [expr.inner]
    elif isinstance(expr, Hugging):
        children = [expr.call]
    for child in children:
        yield from walk(child)
