"""Hypothesis strategies for templates and contexts shaped like vMCP's composite tools.

Templates are generated from the text/template grammar, weighted toward what
composite tools use: field paths into ``.params``/``.steps``, ``json``,
``index``, comparisons, ``if``/``else``, ``printf``, ``range``, ``with``,
``and``/``or``/``not``, ``len``, ``quote``, ``fromJson``, variables,
pipelines, trim markers and comments. Contexts mix JSON floats (including
1e6, 1e21, 1e-7, -0.0, huge and tiny), Go ints, HTML-special, non-ASCII and
control characters, U+2028, nulls, typed nil maps and lists, and paths the
templates ask for but the context lacks.

Text is drawn from characters assigned before Unicode 13, so that Go 1.19's
tables (the oracle) and Python's agree on what is printable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

from hypothesis import strategies as st

from transpiler.golang.values import NIL_LIST, NIL_MAP, AnyKeyMap, GoTime, GoValue, Int64

KEYS = ("a", "b", "x", "n", "s", "name", "id", "items", "list", "m", "text", "count", "value")
STEP_IDS = ("fetch", "create", "s1")
FUNCTIONS_WEIGHTED = (
    ("json", 6), ("index", 6), ("eq", 6), ("ne", 3), ("gt", 2), ("lt", 2), ("ge", 1), ("le", 1),
    ("printf", 5), ("and", 3), ("or", 3), ("not", 3), ("len", 4), ("quote", 3), ("fromJson", 3),
    ("print", 2), ("println", 1), ("html", 1), ("js", 1), ("urlquery", 1), ("slice", 1),
    ("call", 1),
)  # fmt: skip
FORMATS = (
    "%v", "%s", "%d", "%q", "%t", "%f", "%g", "%e", "%x", "%X", "%c", "%5.2f", "%-6v|", "%03d",
    "%+d", "%.3s", "%v %v", "%s-%d", "%T", "%#v", "%%", "%", "%d %d %d", "%[2]v %[1]v", "%!",
    "%*d", "%.*f", "% x", "%#x", "%U", "%08.3f", "%e|%G", "%10.4v", "%-10s|",
)  # fmt: skip
PLAIN_CHARS = "ab xyzAZ09_-.,:;!?/\\'\"`$@#*+=~|()[]<>&%\n\t\r"
SPECIAL_CHARS = (
    "\x00\x01\x08\x0c\x1b\x7f\u00a0\u00ad\u00e9\u00df\u03a9\u0416\u05d0\u0627\u0915\u0e01"
    "\u200b\u200d\u2028\u2029\u2603\u20ac\u4e2d\u6587\ufeff\ufffd\U0001f600\U0001f44d"
    "\U00010348\u0301\u3000"
)
JSON_TEXTS = (
    '{"a": 1, "b": [true, null, "x"]}', "[1, 2.5, -0, 1e21, 1e-7]", '"str"', "null", "3",
    '{"name": "n", "items": [{"id": 1}, {"id": 2}]}', "not valid", "[1, 2", '{"a":}', "",
    '"\\u2028\\ud800<&>"', "1e500", "[[[]]]", '{"a": {"a": {"a": "deep"}}}', "tru", " 7 ",
)  # fmt: skip


@cache
def _choice(options: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A cached ``sampled_from`` (building strategies per draw is slow)."""
    return st.sampled_from(options)


@cache
def _number(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@dataclass(frozen=True)
class Case:
    """One template and the context it renders over."""

    template: str
    context: GoValue


def text_strategy(max_size: int = 12, extra: str = "{}") -> st.SearchStrategy[str]:
    """Short strings mixing ASCII, HTML specials and awkward Unicode."""
    alphabet = st.sampled_from(PLAIN_CHARS + SPECIAL_CHARS + extra)
    return st.text(alphabet, max_size=max_size)


FLOATS = st.one_of(
    st.sampled_from(
        [0.0, -0.0, 1.0, 3.0, 2.5, 1e6, 1500000.0, 123456.0, 1e20, 1e21, 1e-7, 1e-5, 0.0001,
         1e300, 5e-324, -12.75, 100.0, 1234567.8, 0.1, 9007199254740993.0]
    ),
    st.floats(allow_nan=False, allow_infinity=False),
)  # fmt: skip
SPECIAL_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf])
INTS = st.one_of(
    st.sampled_from([0, 1, 2, 3, -1, 42, 1 << 40]),
    st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1),
)
TIMES = st.builds(
    lambda seconds, offset: GoTime(
        datetime(2024, 1, 1, tzinfo=timezone(timedelta(minutes=offset)))
        + timedelta(seconds=seconds)
    ),
    st.integers(min_value=0, max_value=10**8),
    st.just(0),
)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    FLOATS,
    FLOATS,
    INTS,
    INTS.map(Int64),
    text_strategy(),
    st.sampled_from(JSON_TEXTS),
    st.sampled_from([NIL_MAP, NIL_LIST]),
    TIMES,
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=4),
        st.lists(st.tuples(st.sampled_from(KEYS), children), max_size=2).map(
            lambda pairs: AnyKeyMap(tuple(dict(pairs).items()))
        ),
    ),
    max_leaves=8,
)
_FIELDS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5)
_OUTPUTS = st.one_of(st.just(NIL_MAP), _FIELDS)
_STATUS = st.sampled_from(["completed", "failed", "skipped"])
_STEPS = st.lists(st.sampled_from(STEP_IDS), max_size=2, unique=True)
_BOOLEANS = st.booleans()
_TEXT = text_strategy()
_JSON_TEXT = st.sampled_from(JSON_TEXTS)
_TEMPLATE_TEXT = st.sampled_from(
    ["", " ", "\n", "a", "x = ", ", ", " | ", "<b>&amp;", "\t-\r\n", "é\u2028", "😀 ", "}}", "{ {",
     "\x00\x1b", "% %d", "\\", "'\"`", "中文 ", "\u00a0\u00ad\u200b"]
)  # fmt: skip
_ARITY = {"not": 1, "len": 1, "json": 1, "quote": 1, "fromJson": 1, "eq": 2, "ne": 2, "lt": 2}
_ARITY |= {"le": 2, "gt": 2, "ge": 2}
_INDEX_KEYS = st.sampled_from(
    [f'"{k}"' for k in (*KEYS, *STEP_IDS, "output")] + ["0", "1", "2", "-1", ".params.s"]
)
_STRING_OPERANDS = st.sampled_from(
    [".params.title", ".params.json", ".params.s", ".forEach.item", '"[1, 2]"', '"{\\"a\\": 1}"']
)
_QUOTED_FORMATS = st.sampled_from([f'"{f}"' for f in FORMATS])
_PATH_TAIL = st.lists(st.sampled_from((*KEYS, "item", "index")), max_size=3)


@st.composite
def context_strategy(draw: st.DrawFn) -> dict[str, Any]:
    """A vMCP template context: params, steps, vars, workflow (and sometimes forEach)."""
    steps = {
        step: {"status": draw(_STATUS), "output": draw(_OUTPUTS), "content": {}}
        for step in draw(_STEPS)
    }
    context: dict[str, Any] = {
        "params": {
            "title": draw(_TEXT),
            "json": draw(_JSON_TEXT),
            **draw(_FIELDS),
        },
        "steps": steps,
        "vars": {},
        "workflow": {
            "id": "wf-1",
            "duration_ms": Int64(1500),
            "step_count": 2,
            "status": "pending",
        },
    }
    if not draw(_number(0, 4)):
        context["params"]["rare"] = draw(SPECIAL_FLOATS)
    if draw(_BOOLEANS):
        context["forEach"] = {"item": draw(VALUES), "index": draw(_number(0, 5))}
    return context


class _Scope:
    """Variables visible while generating, so most templates parse."""

    def __init__(self) -> None:
        self.names: list[str] = ["$"]
        self.range_depth = 0


class _Generator:
    """Draws template text from the grammar, weighted like composite tools."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.scope = _Scope()
        self.variables = 0

    def pick(self, options: tuple[tuple[str, int], ...]) -> str:
        """A name drawn with the given weights (one integer draw)."""
        ticket = self.draw(_number(0, sum(weight for _, weight in options) - 1))
        for name, weight in options:
            if ticket < weight:
                return name
            ticket -= weight
        raise AssertionError("weights cover every ticket")

    def path(self) -> str:
        root = self.draw(
            _choice(
                (
                    "params",
                    "params",
                    "steps",
                    "workflow",
                    "forEach",
                    "vars",
                    "nope",
                )
            )
        )
        parts = [root]
        if root == "steps":
            parts.append(self.draw(_choice(STEP_IDS)))
            parts.append(
                self.draw(
                    _choice(
                        (
                            "output",
                            "output",
                            "status",
                            "content",
                            "error",
                        )
                    )
                )
            )
        parts += self.draw(_PATH_TAIL)
        return "." + ".".join(parts)  # fmt: skip

    def literal(self) -> str:
        kind = self.pick(
            (("string", 4), ("int", 3), ("float", 3), ("bool", 2), ("nil", 1), ("other", 2))
        )
        if kind == "string":
            return self.draw(
                _choice(
                    (
                        '"x"',
                        '"a"',
                        '""',
                        '"<b>&"',
                        "`raw\\n`",
                        '"\\u00e9\\n"',
                        '"%d"',
                        '"name"',
                        '"items"',
                        '"fetch"',
                        '"output"',
                        '"\\xff"',
                    )
                )
            )
        if kind == "int":
            return self.draw(
                _choice(
                    (
                        "0",
                        "1",
                        "2",
                        "3",
                        "-1",
                        "42",
                        "1500000",
                        "0x10",
                        "0o17",
                        "0b101",
                        "1_000",
                        "9223372036854775807",
                        "18446744073709551615",
                    )
                )
            )
        if kind == "float":
            return self.draw(
                _choice(
                    (
                        "1.0",
                        "3.0",
                        "2.5",
                        "1e6",
                        "1e21",
                        "1e-7",
                        "-0.0",
                        ".5",
                        "0x1p-2",
                        "1.5e+3",
                        "0.0",
                    )
                )
            )
        if kind == "bool":
            return self.draw(
                _choice(
                    (
                        "true",
                        "false",
                    )
                )
            )
        if kind == "nil":
            return "nil"
        return self.draw(_choice(("'a'", "'\\n'", "1i", "1+2i", "'é'",)))  # fmt: skip

    def operand(self, depth: int) -> str:
        nested = 1 if depth < 3 else 0
        kind = self.pick(
            (("field", 10), ("literal", 5), ("dot", 2), ("var", 3), ("paren", 2 * nested),
             ("chain", nested))
        )  # fmt: skip
        if kind == "field":
            return self.path()
        if kind == "literal":
            return self.literal()
        if kind == "dot":
            return "."
        if kind == "var":
            name = self.draw(_choice(tuple(self.scope.names)))
            suffix = self.draw(
                _choice(
                    (
                        "",
                        "",
                        ".params",
                        ".name",
                        ".a",
                        ".steps.fetch.output",
                    )
                )
            )
            return name + suffix if name != "$" or suffix else name
        inner = self.pipeline(depth + 1, allow_decl=False)
        if kind == "paren":
            return f"({inner})"
        return f"({inner})." + self.draw(_choice(KEYS))

    def command(self, depth: int) -> str:
        if self.draw(_number(0, 9)) < 3:
            return self.operand(depth)
        name = self.pick(FUNCTIONS_WEIGHTED)
        if name == "printf":
            args = [self.draw(_QUOTED_FORMATS)]
            args += [self.operand(depth) for _ in range(self.draw(_number(0, 3)))]
        elif name in ("quote", "fromJson") and self.draw(_BOOLEANS):
            args = [self.draw(_STRING_OPERANDS)]
        elif name in ("index", "slice"):
            args = [self.operand(depth)] + [
                self.draw(_INDEX_KEYS) for _ in range(self.draw(_number(0, 2)))
            ]
        else:
            count = _ARITY.get(name) or self.draw(_number(1, 3))
            if self.draw(_number(0, 19)) == 0:
                count += self.draw(_number(-1, 1)) or 1
            args = [self.operand(depth) for _ in range(max(count, 0))]
        return " ".join([name, *args])

    def pipeline(self, depth: int, allow_decl: bool = True) -> str:
        commands = [self.command(depth)]
        while self.draw(_number(0, 9)) < 2:
            follower = self.pick(
                (
                    ("json", 2),
                    ("printf", 2),
                    ("quote", 1),
                    ("len", 1),
                    ("print", 1),
                    ("eq", 1),
                    ("not", 1),
                    ("index", 1),
                )
            )
            commands.append(follower if follower != "printf" else 'printf "%v|%v"')
        text = " | ".join(commands)
        if allow_decl and self.draw(_number(0, 9)) == 0:
            name = f"$v{self.variables}"
            self.variables += 1
            text = f"{name} := {text}"
            self.scope.names.append(name)
        return text  # fmt: skip

    def action(self, depth: int) -> str:
        left = self.draw(
            _choice(
                (
                    "{{",
                    "{{",
                    "{{- ",
                    "{{ ",
                )
            )
        )
        right = self.draw(
            _choice(
                (
                    "}}",
                    "}}",
                    " -}}",
                    " }}",
                )
            )
        )
        return left + self.pipeline(depth) + right

    def body(self, depth: int) -> str:
        parts = []
        for _ in range(self.draw(_number(1, 3))):
            parts.append(self.item(depth))
        return "".join(parts)

    def branch(self, keyword: str, depth: int) -> str:
        mark = len(self.scope.names)
        head = self.pipeline(depth)
        if keyword == "range" and self.draw(_BOOLEANS):
            names = [f"$v{self.variables}", f"$v{self.variables + 1}"][: self.draw(_number(1, 2))]
            self.variables += 2
            head = ", ".join(names) + " := " + self.pipeline(depth, allow_decl=False)
            self.scope.names += names
        if keyword == "range":
            self.scope.range_depth += 1
        text = "{{" + keyword + " " + head + "}}" + self.body(depth + 1)
        if keyword == "range":
            self.scope.range_depth -= 1
        choice = self.draw(_number(0, 5))
        if choice == 0 and (
            keyword == "if" or (keyword == "with" and not self.draw(_number(0, 3)))
        ):
            text += "{{else " + keyword + " " + self.pipeline(depth) + "}}" + self.body(depth + 1)
        elif choice <= 2:
            text += "{{else}}" + self.body(depth + 1)
        del self.scope.names[mark:]
        return text + "{{end}}"

    def item(self, depth: int) -> str:
        nested = 1 if depth < 3 else 0
        weights = (
            ("text", 5), ("action", 10), ("comment", 1),
            ("if", 3 * nested), ("range", 2 * nested), ("with", 2 * nested),
            ("loop", 2 if self.scope.range_depth else 0), ("template", 1 if depth == 0 else 0),
        )  # fmt: skip
        kind = self.pick(weights)
        if kind == "text":
            return self.draw(_TEMPLATE_TEXT).replace("{{", "{ {")
        if kind == "action":
            return self.action(depth)
        if kind == "comment":
            return self.draw(
                _choice(
                    (
                        "{{/* c */}}",
                        "{{- /* c */ -}}",
                        "{{/* {{x}} */}}",
                    )
                )
            )
        if kind == "loop":
            return self.draw(
                _choice(
                    (
                        "{{break}}",
                        "{{continue}}",
                        "{{if .}}{{break}}{{end}}",
                    )
                )
            )
        if kind == "template":
            return (
                '{{define "t"}}[{{.}}]{{end}}{{template "t" '
                + self.pipeline(depth, allow_decl=False)
                + "}}"
            )
        return self.branch(kind, depth)

    def mutate(self, text: str) -> str:
        """Occasionally break the template, to compare parse errors too."""
        if not text or self.draw(_number(0, 9)) != 0:
            return text
        position = self.draw(_number(0, len(text) - 1))
        insert = self.draw(
            _choice(
                (
                    "{{",
                    "}}",
                    ")",
                    "(",
                    "|",
                    ":=",
                    "$z",
                    "-",
                    "'",
                    '"',
                    "{{end}}",
                    "{{else}}",
                    "\n",
                )
            )
        )
        return text[:position] + insert + text[position:]  # fmt: skip


@st.composite
def template_strategy(draw: st.DrawFn) -> str:
    """A template from the grammar (sometimes deliberately broken)."""
    generator = _Generator(draw)
    return generator.mutate(generator.body(0))


@st.composite
def batch_strategy(draw: st.DrawFn, size: int) -> list[Case]:
    """``size`` templates over one context (contexts are the costly part to draw)."""
    context = draw(context_strategy())
    templates = draw(st.lists(template_strategy(), min_size=size, max_size=size, unique=True))
    return [Case(template, context) for template in templates]
