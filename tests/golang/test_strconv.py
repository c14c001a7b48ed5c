"""The strict parsers (S82) and ``strconv.Quote`` (S79), as the reference states them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transpiler.golang.strconv import (
    NumError,
    format_float,
    parse_bool,
    parse_float,
    parse_int,
    quote,
    unquote,
)


@pytest.mark.parametrize(
    ("text", "value"), [("5", 5), ("05", 5), ("+7", 7), ("-9223372036854775808", -(2**63))]
)
def test_s82_parse_int_accepts_sign_and_digits(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", ["1e+06", "5.0", " 5", "1_000", "", "0x10", "٣"])
def test_s82_parse_int_rejects_everything_else(text: str) -> None:
    with pytest.raises(NumError) as caught:
        parse_int(text)
    assert str(caught.value) == f'strconv.ParseInt: parsing "{text}": invalid syntax'


def test_s82_parse_int_range() -> None:
    with pytest.raises(NumError) as caught:
        parse_int("9223372036854775808")
    assert (
        str(caught.value) == 'strconv.ParseInt: parsing "9223372036854775808": value out of range'
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("1_000", 1000.0), ("0x1p-2", 0.25), ("+Inf", math.inf), ("infinity", math.inf),
     ("-inf", -math.inf), (".5", 0.5), ("1e-500", 0.0), ("1E3", 1000.0)],
)  # fmt: skip
def test_s82_parse_float_accepts_go_literals(text: str, value: float) -> None:
    assert parse_float(text) == value


def test_s82_parse_float_nan_in_any_case() -> None:
    assert math.isnan(parse_float("nAn"))


@pytest.mark.parametrize(
    "text", [" 1", "1 ", "0x1", "1__0", "_1", "1_", "٣", "infinit", "+nan", "1e", ""]
)
def test_s82_parse_float_rejects_what_go_rejects(text: str) -> None:
    with pytest.raises(NumError) as caught:
        parse_float(text)
    assert str(caught.value).endswith(": invalid syntax")


def test_s82_parse_float_overflow_is_an_error() -> None:
    with pytest.raises(NumError) as caught:
        parse_float("1e500")
    assert str(caught.value) == 'strconv.ParseFloat: parsing "1e500": value out of range'


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", True),
        ("t", True),
        ("TRUE", True),
        ("True", True),
        ("0", False),
        ("F", False),
        ("false", False),
    ],
)
def test_s82_parse_bool(text: str, value: bool) -> None:
    assert parse_bool(text) is value


@pytest.mark.parametrize("text", ["yes", "on", "tRUE", " true"])
def test_s82_parse_bool_rejects_others(text: str) -> None:
    with pytest.raises(NumError) as caught:
        parse_bool(text)
    assert str(caught.value) == f'strconv.ParseBool: parsing "{text}": invalid syntax'


@given(st.floats(allow_nan=False))
def test_s82_parse_float_reads_back_the_shortest_form(value: float) -> None:
    assert parse_float(format_float(value, "g", -1)) == value


def test_s79_quote() -> None:
    assert quote('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert quote("\a\b\f\n\r\t\v\x00\x7f") == '"\\a\\b\\f\\n\\r\\t\\v\\x00\\x7f"'
    assert (
        quote("\u00a0\u00ad\u200b\u2028é😀\U000e0001")
        == '"\\u00a0\\u00ad\\u200b\\u2028é😀\\U000e0001"'
    )
    assert quote("\udcff") == '"\\xff"'


@given(st.text())
def test_s79_unquote_reverses_quote(text: str) -> None:
    assert unquote(quote(text)) == text
