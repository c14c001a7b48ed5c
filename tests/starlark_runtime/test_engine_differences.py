"""Measured differences between starlark-rust and go.starlark.net, per interpreter version.

Each row is a minimal expression and what each interpreter returns: rust
(starlark-pyo3), go.starlark.net at vMCP's pinned commit (built with Go 1.26)
and Debian's 2021 snapshot (built with Go 1.19). docs/engines.md summarises these rows (its
tables "Known differences between rust and go" and "What changed from the 2021 snapshot");
the emitter avoids every construct listed as different. If an interpreter changes, its
row fails and the documents must be updated with it. ``SAME`` means "as on
rust", ``PINNED`` "as on the pinned go.starlark.net".
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.starlark_runtime.helpers import run, scenario
from transpiler.starlark_runtime import GoOnlyScript

SAME = object()
PINNED = object()
ERROR = "error"
GO_ONLY = "go only"

# (name, expression, rust, go pinned, go Debian 2021)
ROWS: list[tuple[str, str, Any, Any, Any]] = [
    # number formatting
    ("str of a float: %e style on rust", "str(1234567.8)", "1.234568e+06", "1.2345678e+06", PINNED),
    ("%s of a float, likewise", '"%s" % 1234567.8', "1.234568e+06", "1.2345678e+06", PINNED),
    ("str of a small float", "str(2.5e-5)", "0.000025", "2.5e-05", PINNED),
    ("str of the smallest float (a rust bug)", "str(5e-324)", "infe-324", "5e-324", PINNED),
    ("%c exists only on go", '"%c" % 65', ERROR, "A", PINNED),
    ("%d of a float beyond int64", '"%d" % 1e20', ERROR, "100000000000000000000", PINNED),
    ("%(name)s exists only on go", '"%(a)s" % {"a": 1}', ERROR, "1", PINNED),
    ("%.2f is unsupported everywhere", '"%.2f" % 2.345', ERROR, ERROR, ERROR),
    # json
    ("json.encode of a whole float", "json.encode(3.0)", "3.0", "3.0", "3"),
    ("json.encode of -0.0", "json.encode(-0.0)", "-0.0", "-0.0", "-0"),
    (
        "json.encode of a large float",
        "json.encode(1234567.8)",
        "1234567.8",
        "1.2345678e+06",
        PINNED,
    ),
    ("json.encode exponent form", "json.encode(1e21)", "1e21", "1e+21", PINNED),
    (
        "json.encode keeps insertion order on rust, sorts keys on go",
        'json.encode({"b": 1, "a": 2})',
        '{"b":1,"a":2}',
        '{"a":2,"b":1}',
        PINNED,
    ),
    ("json.encode of U+2028", 'json.encode("\u2028")', '"\u2028"', '"\\u2028"', PINNED),
    ("json.encode of DEL: not JSON on go", 'json.encode("\\x7f")', '"\x7f"', '"\\x7f"', PINNED),
    (
        "json.encode of \\b and \\f (Go 1.22)",
        'json.encode("\\b\\f")',
        '"\\b\\f"',
        SAME,
        '"\\u0008\\u000c"',
    ),
    ("json.encode of NaN", 'json.encode(float("nan"))', "null", ERROR, ERROR),
    ("json.encode of an int key", "json.encode({1: 2})", '{"1":2}', ERROR, ERROR),
    (
        "json.decode of a huge integer",
        'type(json.decode("12345678901234567890123"))',
        "float",
        "int",
        PINNED,
    ),
    ("json.decode default=", 'json.decode("x", default=7)', ERROR, 7, ERROR),
    (
        "json module members",
        "dir(json)",
        ["decode", "encode"],
        ["decode", "encode", "encode_indent", "indent"],
        ["decode", "encode", "indent"],
    ),
    # strings
    ("len of a string: code points on rust, bytes on go", 'len("é")', 1, 2, PINNED),
    (
        "codepoints() yields ints on rust, strings on go",
        'list("é".codepoints())',
        [233],
        ["é"],
        PINNED,
    ),
    (
        "splitlines keeps \\r of \\r\\n on go",
        '"a\\r\\nb".splitlines()',
        ["a", "b"],
        ["a\r", "b"],
        PINNED,
    ),
    ("\\u escapes in string literals", 'len("\\u00e9")', 1, 2, ERROR),
    ("removeprefix", '"abc".removeprefix("a")', "bc", SAME, ERROR),
    ("removesuffix", '"abc".removesuffix("c")', "ab", SAME, ERROR),
    ('int() accepts "1_000" on rust only', 'int("1_000")', 1000, ERROR, PINNED),
    ('float() accepts "1_000" on go only', 'float("1_000")', ERROR, 1000.0, PINNED),
    ("int() of a leading-zero literal, base 0", 'int("017", 0)', 17, ERROR, PINNED),
    # builtins and types
    ("abs", "abs(-2)", 2, SAME, ERROR),
    ("dict union", '{"a": 1} | {"b": 2}', {"a": 1, "b": 2}, SAME, ERROR),
    ("set exists only on go", "sorted(set([2, 1, 2]))", ERROR, [1, 2], PINNED),
    ("set methods", "sorted(set([1, 2]).difference([2]))", ERROR, [1], ERROR),
    ("print exists only on go", 'print("x")', ERROR, None, PINNED),
    ("str of a struct", "str(struct(a=1))", "struct(a=1)", "struct(a = 1)", PINNED),
    (
        "struct fields: declared order on rust, sorted on go",
        "str(struct(b=1, a=2))",
        "struct(b=1, a=2)",
        "struct(a = 2, b = 1)",
        PINNED,
    ),
    # the same on every interpreter (the emitter relies on these)
    ("str of a whole float", "str(3.0)", "3.0", SAME, SAME),
    ("str of 1e6", "str(1e6)", "1e+06", SAME, SAME),
    ("repr of 0.1", "repr(0.1)", "0.1", SAME, SAME),
    ("%d of a float truncates", '"%d" % 3.7', "3", SAME, SAME),
    ("float() of a decimal string", 'float("1e3")', 1000.0, SAME, SAME),
    (
        "json.decode keeps int and float apart",
        '[type(json.decode("3")), type(json.decode("3.0"))]',
        ["int", "float"],
        SAME,
        SAME,
    ),
    ("json.encode does not escape HTML", 'json.encode("<&>")', '"<&>"', SAME, SAME),
    ("floor division and modulo of negatives", "[-7 // 2, -7 % 3]", [-4, 2], SAME, SAME),
    ("true division", "[7 / 2, type(10 / 5)]", [3.5, "float"], SAME, SAME),
    ("int and float compare numerically", "1.0 == 1", True, SAME, SAME),
    ("NaN equals itself", 'float("nan") == float("nan")', True, SAME, SAME),
    ("sorted dict keys", 'sorted({"b": 1, "a": 2})', ["a", "b"], SAME, SAME),
    ("dict keeps insertion order", 'list({"b": 1, "a": 2}.keys())', ["b", "a"], SAME, SAME),
    (
        "str of lists and dicts",
        'str([1, "a", None, {"k": True}])',
        '[1, "a", None, {"k": True}]',
        SAME,
        SAME,
    ),
    ("struct attribute access", 'getattr(struct(a=1), "b", 5)', 5, SAME, SAME),
    ("%x of an int", '"%x" % 255', "ff", SAME, SAME),
    ("string methods", '"a-b".replace("-", "_").upper().split("_")', ["A", "B"], SAME, SAME),
    ("str.format", '"{}-{}".format(1, "x")', "1-x", SAME, SAME),
    ("int() of a prefixed literal, base 0", 'int("0x10", 0)', 16, SAME, SAME),
    ("big ints", "str(1 << 70)", "1180591620717411303424", SAME, SAME),
]


def _expected(row: tuple[str, str, Any, Any, Any], interpreter: str) -> Any:
    _, _, rust, pinned, debian = row
    pinned = rust if pinned is SAME else pinned
    debian = {id(SAME): rust, id(PINNED): pinned}.get(id(debian), debian)
    return {"rust": rust, "go-pinned": pinned, "go-debian": debian}[interpreter]


def _run(script: str, interpreter: str) -> Any:
    return run(script, scenario(), "rust" if interpreter == "rust" else "go")


def _evaluate(expression: str, interpreter: str) -> Any:
    trace = _run(f"def run(params):\n    return {{'v': {expression}}}\n", interpreter)
    return trace.output["v"] if trace.outcome == "success" else ERROR


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_interpreter_behaviour_is_as_measured(
    row: tuple[str, str, Any, Any, Any], interpreter: str
) -> None:
    assert _evaluate(row[1], interpreter) == _expected(row, interpreter), row[0]


def test_while_is_go_only(interpreter: str) -> None:
    script = "def run(params):\n    n = 0\n    while n < 3:\n        n += 1\n    return {'n': n}\n"
    if interpreter == "rust":
        with pytest.raises(GoOnlyScript, match="uses `while`, which starlark-rust cannot parse"):
            _run(script, interpreter)
    else:
        assert _run(script, interpreter).output == {"n": 3}


def test_recursion_top_level_control_and_global_reassignment_run_everywhere(
    interpreter: str,
) -> None:
    script = (
        "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
        "total = 0\n"
        "for i in range(3):\n    total += i\n"
        "if total > 2:\n    total = total * 10\n"
        "def run(params):\n    return {'d': depth(5), 'total': total}\n"
    )
    assert _run(script, interpreter).output == {"d": 5, "total": 30}


def test_runtime_error_texts_differ(interpreter: str) -> None:
    trace = _run("def run(params):\n    return {}['missing']\n", interpreter)
    expected = (
        'Key `"missing"` was not found' if interpreter == "rust" else 'key "missing" not in dict'
    )
    assert trace.error == expected


#: What each engine makes of a raw character inside a comment and inside a string
#: literal (measured; why transpiler/inert.py escapes them all). The rust engine reads a
#: script as vMCP does (transpiler/starlark_runtime/source.py): a lone ``\r`` as
#: go.starlark.net's line break (starlark-rust itself keeps it in a comment and drops it from
#: a string: :func:`test_starlark_rust_itself_reads_a_lone_carriage_return_otherwise`), and
#: a script holding NUL, which go.starlark.net reads as the end of the file outside a string,
#: on go.starlark.net alone (``GoOnlyScript``).
RAW_CHARACTERS = {
    # char: (rust in a comment, go in a comment, rust in a string, go in a string)
    "\r": ("line break", "line break", "line break", "line break"),
    "\x00": (GO_ONLY, "end of file", GO_ONLY, "kept"),
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
    if in_comment == GO_ONLY:
        with pytest.raises(GoOnlyScript, match="NUL byte on line 2"):
            run(f"def run(params):\n    # x{char}\n    return {{}}\n", scenario(), engine)
        return
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
        assert "newline" in str(string.error) or "unfinished string" in str(string.error)
        assert in_string == "line break"
    else:
        assert {f"a{char}b": "kept", "ab": "dropped"}[string.output["s"]] == in_string


def test_starlark_rust_itself_reads_a_lone_carriage_return_otherwise() -> None:
    """The interpreter, not the host: a lone ``\\r`` is part of a comment (so what follows is
    no code) and is dropped from a string literal; the host reads the text as go.starlark.net
    does before starlark-rust parses it."""
    import starlark as sl

    hidden = sl.parse("x.star", "x = 1\n# a note\rx = 2\n")
    module = sl.Module()
    sl.eval(module, hidden, sl.Globals.standard())
    assert module["x"] == 1
    text = sl.Module()
    sl.eval(text, sl.parse("x.star", "s = 'a\rb'\n"), sl.Globals.standard())
    assert text["s"] == "ab"


def test_tabs_indent_on_go_only(engine: str) -> None:
    """go.starlark.net reads tab stops of 8; starlark-rust refuses tabs, so the rust engine
    hands such a script to go.starlark.net."""
    script = 'def run(params):\n\treturn {"x": 1}\n'
    if engine == "rust":
        with pytest.raises(GoOnlyScript, match="indents with tabs"):
            run(script, scenario(), engine)
    else:
        assert run(script, scenario(), engine).output == {"x": 1}
