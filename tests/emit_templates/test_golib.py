"""The library helpers on both engines, against the Python references of Go.

Rows pair a Starlark expression with what Go gives, computed by the Python
references (``transpiler.golang`` and ``transpiler.gotemplate.functions``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.emit_templates.starlark import evaluate
from transpiler.emit.exact.templates import helper_source, library
from transpiler.emit.literals import string_literal
from transpiler.golang.escape import html_escape, js_escape, url_query_escape
from transpiler.golang.fmt import format_value, sprintf
from transpiler.golang.jsondec import JSONDecodeError, unmarshal
from transpiler.golang.jsonenc import marshal
from transpiler.golang.runes import byte_length, is_print
from transpiler.golang.strconv import quote
from transpiler.golang.values import NIL_MAP

TEXTS = [
    "",
    "plain",
    "<a & b>",
    "é€😀",
    "\u2028\u2029",
    "tab\tnl\nnul\x00bel\x07del\x7f",
    'quote"back\\',
    "\u00a0\u00ad\u200b\ufeff",
    "\U0001f600\U000e0001",
    "\x1b[0m",
    "日本語",
]


def _error(text: str) -> dict[str, str]:
    return {"error": text}


def _rows() -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for text in TEXTS:
        lit = string_literal(text)
        rows += [
            (f"go_quote({lit})", quote(text)),
            (f"go_json({lit})", marshal(text)),
            (f"go_byte_length({lit})", byte_length(text)),
            (f"go_html({lit})", html_escape(text)),
            (f"go_js({lit})", js_escape(text)),
            (f"go_urlquery({lit})", url_query_escape(text)),
            (f"go_text({lit})", text),
        ]
    value = {"b": [1.0, None, "x y", {"k": 1e21}], "a": NIL_MAP, "c": True, "d": -0.0, "e": 3}
    value_code = (
        '{"b": [1.0, None, "x y", {"k": 1e21}], "a": GO_NIL_MAP, "c": True, "d": -0.0, "e": 3}'
    )
    rows += [
        (f"go_text({value_code})", format_value(value)),
        (f"go_json({value_code})", marshal(value)),
        ("go_text(None)", "<no value>"),
        ("go_text(GO_MISSING)", "<no value>"),
        ("go_text(GO_NIL_MAP)", "map[]"),
        ("go_json(GO_NIL_MAP)", "null"),
        ("go_json(GO_MISSING)", "null"),
        ("go_text([None, GO_NIL_LIST])", "[<nil> []]"),
        (
            "go_floats({'a': [1, True, {'b': 2}], 'c': 1.5})",
            {"a": [1.0, True, {"b": 2.0}], "c": 1.5},
        ),
        (
            "[go_truth(v) for v in [0, -0.0, '', [], {}, None, GO_MISSING, GO_NIL_MAP, 0.1, 'x', "
            "[0]]]",
            [False] * 8 + [True] * 3,
        ),
        ("go_field({'a': {'b': 1}}, 'a', 'b')", 1),
        (
            "go_field({'a': None}, 'a', 'b', at = 'P: ')",
            _error("P: nil pointer evaluating interface {}.b"),
        ),
        (
            "go_field('s', 'b', at = 'P: ', iface = False)",
            _error("P: can't evaluate field b in type string"),
        ),
        (
            "go_field({'a': 's'}, 'a', 'b', at = 'P: ')",
            _error("P: can't evaluate field b in type interface {}"),
        ),
        ("go_field(GO_NIL_MAP, 'a', 'b') == GO_MISSING", True),
        (
            "go_field({'a': 1}, 'a', at = 'P: ', has_args = True)",
            _error("P: a is not a method but has arguments"),
        ),
        (
            "go_eq(1.0, 1, at = 'P: ')",
            _error("P: incompatible types for comparison: float64 and int"),
        ),
        ("go_eq(None, 1)", False),
        ("go_eq(GO_MISSING, None)", True),
        ("go_eq(GO_NIL_MAP, None)", True),
        ("go_eq('a', 'b', 'a')", True),
        (
            "go_eq({'a': 1}, [1], at = 'P: ')",
            _error(
                "P: non-comparable types "
                + sprintf(
                    "%s: %v, %s: %v", [{"a": 1}, "map[string]interface {}", "[]interface {}", [1]]
                )
            ),
        ),
        (
            "go_eq({}, {}, at = 'P: ')",
            _error("P: non-comparable type map[]: map[string]interface {}"),
        ),
        ("go_lt('a', 'é')", True),
        ("go_lt(True, False, at = 'P: ')", _error("P: invalid type for comparison")),
        ("go_lt(None, 1, at = 'P: ')", _error("P: invalid type for comparison")),
        ("go_ge(2.5, 2.5)", True),
        ("go_len('é€', at = 'P: ')", 5),
        ("go_len(None, at = 'P: ')", _error("P: len of nil pointer")),
        (
            "go_len(GO_MISSING, at = 'P: ')",
            _error("P: reflect: call of reflect.Value.Type on zero Value"),
        ),
        ("go_len(3.0, at = 'P: ')", _error("P: len of type float64")),
        ("go_len(GO_NIL_MAP)", 0),
        ("go_index([1, 2], 1)", 2),
        ("go_index([1, 2], 2, at = 'P: ')", _error("P: reflect: slice index out of range")),
        ("go_index([1, 2], 3, at = 'P: ')", _error("P: index out of range: 3")),
        (
            "go_index([1, 2], 1.0, at = 'P: ')",
            _error("P: cannot index slice/array with type float64"),
        ),
        ("go_index({'a': 1}, 'b')", None),
        ("go_index({'a': None}, 'a', 'b', at = 'P: ')", _error("P: index of nil pointer")),
        ("go_index(None, 'a', at = 'P: ')", _error("P: index of untyped nil")),
        ("go_text(go_index('é', 0))", "195"),
        ("go_index({'a': 1}, 1, at = 'P: ')", _error("P: value has type int; should be string")),
        ("go_range_items({'b': 1, 'a': 2})", [["a", 2], ["b", 1]]),
        ("go_range_items(2)[1][1]", 1),
        ("go_range_items('s', at = 'P: ')", _error("P: range can't iterate over s")),
        ("go_range_items(GO_NIL_MAP)", []),
        ("go_sprint(1, 2, 'a', 3, None)", "1 2a3 <nil>"),
        ("go_sprintln(1, 'a')", "1 a\n"),
        ("go_want_string(GO_MISSING, at = 'P: ')", _error("P: invalid value; expected string")),
        (
            "go_want_string(None, at = 'P: ')",
            _error("P: wrong type for value; expected string; got interface {}"),
        ),
        ("go_call(None, at = 'P: ')", _error("P: call of nil")),
        ("go_call(1.0, callee = '.f', at = 'P: ')", _error("P: non-function .f of type float64")),
        ("go_and(1, '', 2)", ""),
        ("go_or(0, '', 2)", 2),
        ("go_concat(['a', go_error('e1'), go_error('e2')])", _error("e1")),
        ("go_if(go_error('c'), 'a', go_error('b'))", _error("c")),
        ("go_if(0, go_error('a'), 'b')", "b"),
    ]
    formats: list[tuple[str, list[Any]]] = [
        ("%5.2f|%-6s|%q|%d|%v", [3.14159, "ab", 'q"', 7, [1.0, "x"]]),
        ("%d %s", [2.5, 3]),
        ("%v", []),
        ("%s", ["a", 1]),
        ("%06.2f|%+d|% d|%x", [-1.5, 3, 4]),
        ("%.1s|%5t|%e|%G", ["héllo", True, 1234.5678, 1e-10]),
        ("%v %v", [None, {"a": None}]),
    ]
    for text, args in formats:
        call = ", ".join([string_literal(text)] + [_starlark(a) for a in args])
        rows.append((f"go_sprintf({call})", sprintf(text, args)))
    json_texts = [
        '{"a": [1, 2.5, "x\\u00e9\\ud83d\\ude00", null, true]}',
        "[1, 2",
        "1e400",
        "[1e400, x]",
        '"\\ud800x"',
        '{"a" 1}',
        "tru",
        "-",
        "01",
        '"a\\x"',
        "é",
        '"a\tb"',
        "",
        " {} ",
        '{"a":1,}',
        "[1,]",
        '{"a":1,"a":2}',
        "123456789012345678901",
        "-0",
        "1E+2",
        '"\\u12g4"',
        "[[[]]]",
        "nul",
        "1.",
        "1e",
        '"abc',
        '"\\',
    ]
    for text in json_texts:
        rows.append((f"go_from_json({string_literal(text)}, at = 'P: ')", _from_json(text)))
    return rows


def _starlark(value: Any) -> str:
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, list):
        return "[" + ", ".join(_starlark(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{string_literal(k)}: {_starlark(v)}" for k, v in value.items()) + "}"
        )
    return repr(value)


def _from_json(text: str) -> Any:
    try:
        return unmarshal(text)
    except JSONDecodeError as error:
        return _error(f"P: failed to unmarshal JSON: {error}")


ROWS = _rows()


def test_helpers_behave_like_go(engine: str) -> None:
    names = {name for name in library().definitions if name.startswith(("go_", "GO_"))}
    got = evaluate([expression for expression, _ in ROWS], names, engine)
    mismatches = [(e, want, g) for (e, want), g in zip(ROWS, got, strict=True) if g != want]
    assert not mismatches


def test_printable_table_matches_go_is_print() -> None:
    ranges = []
    start = None
    for rune in range(0x80, 0x110000):
        if not is_print(rune) and start is None:
            start = rune
        if is_print(rune) and start is not None:
            ranges += [start, rune - 1]
            start = None
    if start is not None:
        ranges += [start, 0x10FFFF]
    source = library().definitions["GO_NONPRINT_RANGES"].source
    code = " ".join(line for line in source.splitlines() if not line.startswith("#"))
    numbers = [int(token, 16) for token in code.replace(",", " ").split() if token.startswith("0x")]
    assert numbers == ranges


def test_helper_source_includes_dependencies_in_library_order() -> None:
    source = helper_source(["go_json"])
    assert "def go_json(" in source and "def go_float_json(" in source
    assert "GO_JSON_ESCAPES = " in source and "def go_quote(" not in source
    assert source.index("def go_is_error(") < source.index("def go_json(")
    assert helper_source(["go_json", "go_text"]) == helper_source(["go_text", "go_json"])


@pytest.mark.parametrize("name", sorted(n for n in library().definitions if n.startswith("go_")))
def test_every_helper_has_a_comment(name: str) -> None:
    assert library().definitions[name].source.startswith("#")
