"""Go's float formatting, reproduced by the library on both engines.

Shortest digits come from ``json.encode``, whose notation differs between
engines; the helpers must nevertheless print exactly what Go prints:
``%v`` (``transpiler.golang.fmt``), ``encoding/json`` (``jsonenc``) and
``strconv.FormatFloat`` with a precision (``strconv``).
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.emit_templates.starlark import ENGINES, evaluate
from transpiler.emit.literals import float_literal
from transpiler.golang.fmt import format_value
from transpiler.golang.jsonenc import marshal
from transpiler.golang.strconv import format_float

EDGES = [
    0.0,
    -0.0,
    1e6,
    999999.0,
    1e21,
    1e20,
    9.999999999999999e20,
    1e-7,
    1e-6,
    1e-5,
    1e-4,
    123456.0,
    1234567.8,
    0.1,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    2.675,
    0.5,
    1.5,
    2.5,
    -3.0,
    100.0,
    1e100,
    123456789.0,
]


def _bits(raw: int) -> float:
    return float(struct.unpack("<d", raw.to_bytes(8, "little"))[0])


finite = st.floats(allow_nan=False, allow_infinity=False) | st.integers(0, 2**64 - 1).map(
    _bits
).filter(lambda f: f == f and abs(f) != float("inf"))


def _check_shortest(values: list[float], engine: str) -> None:
    rows = [
        f"[go_float_text({float_literal(v)}), go_float_json({float_literal(v)})]" for v in values
    ]
    got = evaluate(rows, ["go_float_text", "go_float_json"], engine)
    assert got == [[format_value(v), marshal(v)] for v in values]


def test_edge_floats_print_like_go(engine: str) -> None:
    _check_shortest(EDGES, engine)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=12)
@given(values=st.lists(finite, min_size=100, max_size=100))
def test_random_floats_print_like_go(values: list[float], engine: str) -> None:
    _check_shortest(values, engine)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=8)
@given(
    cases=st.lists(
        st.tuples(finite, st.sampled_from("eEfFgG"), st.integers(-1, 17)), min_size=60, max_size=60
    )
)
def test_format_float_with_precision_matches_strconv(
    cases: list[tuple[float, str, int]], engine: str
) -> None:
    rows = [f"go_format_float({float_literal(v)}, {verb!r}, {prec})" for v, verb, prec in cases]
    got = evaluate(rows, ["go_format_float"], engine)
    expected = [format_float(v, "f" if verb == "F" else verb, prec) for v, verb, prec in cases]
    assert got == expected


def test_ties_round_to_even_on_the_exact_value(engine: str) -> None:
    cases = [
        (0.5, 0),
        (1.5, 0),
        (2.5, 0),
        (2.675, 2),
        (0.125, 2),
        (0.375, 2),
        (1e22, 0),
        (5e-324, 3),
    ]
    rows = [f"go_format_float({float_literal(v)}, 'f', {p})" for v, p in cases]
    got = evaluate(rows, ["go_format_float"], engine)
    assert got == [format_float(v, "f", p) for v, p in cases]
    assert got[:4] == ["0", "2", "2", "2.67"]
