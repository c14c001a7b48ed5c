"""Number and character constants of templates (``parse.newNumber``).

A constant is parsed under every Go type that can hold it (int64, uint64,
float64, complex128), which is how text/template imitates untyped constants.
Execution then picks a type from the spelling (``idealConstant``): see
:func:`transpiler.gotemplate.render`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from transpiler.golang.strconv import (
    NumError,
    UnquoteError,
    parse_float,
    parse_int,
    parse_uint,
    quote,
    unquote_char,
)

T = TypeVar("T")
_TWO_63 = 2.0**63
_MASK64 = (1 << 64) - 1
_COMPLEX_ERROR = "syntax error scanning complex number"


class NumberSyntaxError(ValueError):
    """The constant is malformed; the message is Go's parse error text."""


@dataclass(frozen=True)
class NumberValue:
    """Every reading of a constant (``NumberNode`` fields)."""

    is_int: bool = False
    is_uint: bool = False
    is_float: bool = False
    is_complex: bool = False
    int_value: int = 0
    uint_value: int = 0
    float_value: float = 0.0
    complex_value: complex = 0j


def _go_int64(value: float) -> int:
    """``int64(f)`` as amd64 computes it (out of range gives the minimum)."""
    if math.isnan(value) or value >= _TWO_63 or value < -_TWO_63:
        return -(1 << 63)
    return int(value)


def _go_uint64(value: float) -> int:
    """``uint64(f)`` as amd64 computes it."""
    if math.isnan(value):
        return 1 << 63
    if value < _TWO_63:
        return _go_int64(value) & _MASK64
    return (_go_int64(value - _TWO_63) ^ (1 << 63)) & _MASK64


def _from_complex(value: complex) -> NumberValue:
    """``simplifyComplex``: a complex constant with zero imaginary part is also real."""
    if value.imag != 0:
        return NumberValue(is_complex=True, complex_value=value)
    real = value.real
    as_int, as_uint = _go_int64(real), _go_uint64(real)
    int_ok, uint_ok = float(as_int) == real, float(as_uint) == real
    return NumberValue(
        is_int=int_ok,
        is_uint=uint_ok,
        is_float=True,
        is_complex=True,
        int_value=as_int if int_ok else 0,
        uint_value=as_uint if uint_ok else 0,
        float_value=real,
        complex_value=value,
    )


def character_constant(text: str) -> NumberValue:
    """A rune literal such as ``'a'`` or ``'\\n'``."""
    try:
        rune, _, tail = unquote_char(text[1:], text[0])
    except UnquoteError as error:
        raise NumberSyntaxError(str(error)) from None
    if tail != "'":
        raise NumberSyntaxError(f"malformed character constant: {text}")
    return NumberValue(
        is_int=True,
        is_uint=True,
        is_float=True,
        int_value=rune,
        uint_value=rune,
        float_value=float(rune),
    )


def complex_constant(text: str) -> NumberValue:
    """A ``1+2i`` literal, read the way ``fmt.Sscan`` reads a complex128."""
    return _from_complex(_ComplexScanner(text).scan())


def _parsed(parser: Callable[[str], T], text: str) -> T | None:
    """The parser's result, or None when it reports a syntax or range error."""
    try:
        return parser(text)
    except NumError:
        return None


def number_constant(text: str) -> NumberValue:
    """An integer, float or imaginary literal."""
    if text.endswith("i"):
        imaginary = _parsed(parse_float, text[:-1])
        if imaginary is not None:
            return _from_complex(complex(0, imaginary))
    unsigned = _parsed(lambda t: parse_uint(t, 0, 64), text)
    signed = _parsed(lambda t: parse_int(t, 0, 64), text)
    is_uint, is_int = unsigned is not None, signed is not None
    uint_value, int_value = unsigned or 0, signed or 0
    if is_int and int_value == 0:
        is_uint = True
    if is_int:
        return NumberValue(True, is_uint, True, False, int_value, uint_value, float(int_value))
    if is_uint:
        return NumberValue(False, True, True, False, 0, uint_value, float(uint_value))
    try:
        value = parse_float(text)
    except NumError:
        raise NumberSyntaxError(f"illegal number syntax: {quote(text)}") from None
    if not any(c in text for c in ".eEpP"):
        raise NumberSyntaxError(f"integer overflow: {quote(text)}")
    as_int, as_uint = _go_int64(value), _go_uint64(value)
    int_ok, uint_ok = float(as_int) == value, float(as_uint) == value
    return NumberValue(
        is_int=int_ok,
        is_uint=uint_ok,
        is_float=True,
        int_value=as_int if int_ok else 0,
        uint_value=as_uint if uint_ok else 0,
        float_value=value,
    )


class _ComplexScanner:
    """The part of ``fmt``'s scanner that reads a complex number."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.buf: list[str] = []

    def accept(self, chars: str) -> bool:
        if self.pos < len(self.text) and self.text[self.pos] in chars:
            self.buf.append(self.text[self.pos])
            self.pos += 1
            return True
        return False

    def float_token(self) -> str:
        self.buf = []
        if self.accept("nN") and self.accept("aA") and self.accept("nN"):
            return "".join(self.buf)
        self.accept("+-")
        if self.accept("iI") and self.accept("nN") and self.accept("fF"):
            return "".join(self.buf)
        digits, exponent = "0123456789_", "eEpP"
        if self.accept("0") and self.accept("xX"):
            digits, exponent = "0123456789aAbBcCdDeEfF_", "pP"
        while self.accept(digits):
            pass
        if self.accept("."):
            while self.accept(digits):
                pass
        if self.accept(exponent):
            self.accept("+-")
            while self.accept("0123456789_"):
                pass
        return "".join(self.buf)

    def scan(self) -> complex:
        parens = self.accept("(")
        real = self.float_token()
        self.buf = []
        if not self.accept("+-"):
            raise NumberSyntaxError(_COMPLEX_ERROR)
        sign = "".join(self.buf)
        imaginary = sign + self.float_token()
        if not self.accept("i") or (parens and not self.accept(")")):
            raise NumberSyntaxError(_COMPLEX_ERROR)
        return complex(_convert_float(real), _convert_float(imaginary))


def _convert_float(text: str) -> float:
    """``fmt``'s ``convertFloat``: also accepts a decimal mantissa with a ``p`` exponent."""
    power = text.find("p")
    if power < 0 or "x" in text or "X" in text:
        try:
            return parse_float(text)
        except NumError as error:
            raise NumberSyntaxError(str(error)) from None
    try:
        mantissa = parse_float(text[:power])
    except NumError as error:
        raise NumberSyntaxError(str(NumError("ParseFloat", text, error.reason))) from None
    try:
        exponent = parse_int(text[power + 1 :], 10, 64)
    except NumError as error:
        raise NumberSyntaxError(str(NumError("Atoi", text, error.reason))) from None
    try:
        return math.ldexp(mantissa, max(min(exponent, 1 << 20), -(1 << 20)))
    except OverflowError:
        return math.copysign(math.inf, mantissa)
