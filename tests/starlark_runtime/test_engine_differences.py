"""Measured differences between starlark-rust and go.starlark.net (Debian 2021 snapshot).

Each row is a minimal expression and what each engine returns. The README's
"Engine differences" list is this table; the emitter avoids every construct
listed as different. If an engine changes, the row fails and both must be
updated together. Rows marked SAME pin constructs the emitter relies on.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.starlark_runtime.helpers import run, scenario

SAME = object()

# (name, expression, rust value, go value or SAME)
DIFFERENCES: list[tuple[str, str, Any, Any]] = [
    ("str of a float keeps 6 digits on rust", "str(1234567.8)", "1.234568e+06", "1.2345678e+06"),
    ("%s of a float, likewise", '"%s" % 1234567.8', "1.234568e+06", "1.2345678e+06"),
    (
        "json.encode keeps insertion order on rust, sorts on go",
        'json.encode({"b": 1, "a": 2})',
        '{"b":1,"a":2}',
        '{"a":2,"b":1}',
    ),
    ("json.encode of a whole float", "json.encode(3.0)", "3.0", "3"),
    ("json.encode of a large float", "json.encode(1234567.8)", "1234567.8", "1.2345678e+06"),
    ("json.encode exponent form", "json.encode(1e21)", "1e21", "1e+21"),
    ("json.encode of U+2028", 'json.encode("\u2028")', '"\u2028"', '"\\u2028"'),
    ("len of a string: code points on rust, bytes on go", 'len("é")', 1, 2),
    ("codepoints() yields ints on rust, strings on go", 'list("é".codepoints())', [233], ["é"]),
    ("str of a struct", "str(struct(a=1))", "struct(a=1)", "struct(a = 1)"),
    ("removeprefix exists only on rust", '"abc".removeprefix("a")', "bc", "error"),
    ("abs exists only on rust", "abs(-2)", 2, "error"),
    ("%.2f is unsupported on both", '"%.2f" % 2.345', "error", "error"),
    ("str of a whole float", "str(3.0)", "3.0", SAME),
    ("str of 1e6", "str(1e6)", "1e+06", SAME),
    ("repr of 0.1", "repr(0.1)", "0.1", SAME),
    ("%d of a float truncates", '"%d" % 3.7', "3", SAME),
    ("float() of a decimal string", 'float("1e3")', 1000.0, SAME),
    (
        "json.decode keeps int and float apart",
        '[type(json.decode("3")), type(json.decode("3.0"))]',
        ["int", "float"],
        SAME,
    ),
    ("json.encode does not escape HTML", 'json.encode("<&>")', '"<&>"', SAME),
    ("floor division and modulo of negatives", "[-7 // 2, -7 % 3]", [-4, 2], SAME),
    ("int and float compare numerically", "1.0 == 1", True, SAME),
    ("sorted dict keys", 'sorted({"b": 1, "a": 2})', ["a", "b"], SAME),
    ("dict keeps insertion order", 'list({"b": 1, "a": 2}.keys())', ["b", "a"], SAME),
    (
        "str of lists and dicts",
        'str([1, "a", None, {"k": True}])',
        '[1, "a", None, {"k": True}]',
        SAME,
    ),
    ("struct attribute access", 'getattr(struct(a=1), "b", 5)', 5, SAME),
    ("%x of an int", '"%x" % 255', "ff", SAME),
    ("string methods", '"a-b".replace("-", "_").upper().split("_")', ["A", "B"], SAME),
    ("str.format", '"{}-{}".format(1, "x")', "1-x", SAME),
]

ENGINES = ("rust", "go")


def _evaluate(expression: str, engine: str) -> Any:
    trace = run(f"def run(params):\n    return {{'v': {expression}}}\n", scenario(), engine)
    return trace.output["v"] if trace.outcome == "success" else "error"


@pytest.mark.parametrize(
    ("name", "expression", "rust", "go"), DIFFERENCES, ids=[d[0] for d in DIFFERENCES]
)
def test_engine_behaviour_is_as_measured(
    name: str, expression: str, rust: Any, go: Any, engine: str
) -> None:
    expected = rust if engine == "rust" or go is SAME else go
    assert _evaluate(expression, engine) == expected, name


def test_while_is_available_on_go_only(engine: str) -> None:
    script = "def run(params):\n    n = 0\n    while n < 3:\n        n += 1\n    return {'n': n}\n"
    trace = run(script, scenario(), engine)
    if engine == "go":
        assert trace.output == {"n": 3}
    else:
        assert str(trace.error).startswith("script does not parse: ")


def test_recursion_is_available_on_both(engine: str) -> None:
    script = (
        "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
        "def run(params):\n    return {'d': depth(5)}\n"
    )
    assert run(script, scenario(), engine).output == {"d": 5}


def test_runtime_error_texts_differ(engine: str) -> None:
    trace = run("def run(params):\n    return {}['missing']\n", scenario(), engine)
    expected = {
        "rust": 'Key `"missing"` was not found',
        "go": 'key "missing" not in dict',
    }[engine]
    assert trace.error == expected


#: What each engine makes of a raw character inside a comment and inside a string
#: literal (measured; why transpiler/emit/inert.py escapes them all).
RAW_CHARACTERS = {
    # char: (rust in a comment, go in a comment, rust in a string, go in a string)
    "\r": ("comment", "line break", "dropped", "line break"),
    "\x00": ("comment", "end of file", "kept", "kept"),
    "\x0b": ("comment", "comment", "kept", "kept"),
    "\x0c": ("comment", "comment", "kept", "kept"),
    "\x1c": ("comment", "comment", "kept", "kept"),
    "\x85": ("comment", "comment", "kept", "kept"),
    "\u2028": ("comment", "comment", "kept", "kept"),
    "\u2029": ("comment", "comment", "kept", "kept"),
}


@pytest.mark.parametrize("char", RAW_CHARACTERS, ids=[f"U+{ord(c):04X}" for c in RAW_CHARACTERS])
def test_raw_characters_in_comments_and_strings(char: str, engine: str) -> None:
    expected = RAW_CHARACTERS[char]
    in_comment, in_string = (expected[0], expected[2]) if engine == "rust" else expected[1::2]
    comment = run(
        f"def run(params):\n    # x{char}return {{'code': True}}\n    return {{}}\n",
        scenario(),
        engine,
    )
    seen = {
        "success": "comment",
        "error": "end of file" if "end of file" in str(comment.error) else "line break",
    }[comment.outcome]
    assert seen == in_comment
    string = run(f"def run(params):\n    return {{'s': 'a{char}b'}}\n", scenario(), engine)
    if string.outcome != "success":
        assert "newline" in str(string.error)
        assert in_string == "line break"
    else:
        assert {f"a{char}b": "kept", "ab": "dropped"}[string.output["s"]] == in_string
