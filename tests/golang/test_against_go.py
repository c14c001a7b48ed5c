"""Our Go stdlib emulation against Go itself, through the oracle.

Our Unicode tables are 15.0 (``unicodedata2``), as in Go 1.21 and later
(vMCP's Go 1.26): there, every rune must quote as in Go. Go 1.19's tables (the
Debian fallback) are 13.0: a rune assigned in 14.0 or 15.0 is printable for
us and escaped by that oracle, and the sweep allows exactly that direction,
for at most the 838 + 4,489 runes those versions added.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpiler.cli.template import render_request
from transpiler.gobuild import version_numbers
from transpiler.golang.escape import js_escape
from transpiler.golang.fmt import sprintf
from transpiler.golang.jsonenc import encode_float
from transpiler.golang.strconv import format_float, quote
from transpiler.gotemplate.oracle import GoOracle
from transpiler.gotemplate.protocol import RenderRequest

UNICODE_14_AND_15_ADDITIONS = 838 + 4489
UNICODE_15_GO = (1, 21)
PRINTF_CASES: list[tuple[str, list[Any]]] = [
    ("%d", [3.0]),
    ("%s", [1.5]),
    ("%v|%5v|%-5v|%05d", [1, 2, 3, -4]),
    ("%x %X %o %O %b %c %q %U %#U", [255, 255, 8, 8, 5, 0x4E16, 0x4E16, 0x4E16, 0x4E16]),
    (
        "%5.2f|%e|%g|%G|%.3g|%10.3e|%+f|% f|%#g|%#.3x",
        [3.14159, 1e21, 1e-7, 1e-7, 1234567.0, 12345.678, 1.0, 1.0, 1.0, 1.0],
    ),
    ("%s %d", ["a"]),
    ("%d", [1, 2, "x"]),
    ("%!", []),
    ("%", []),
    ("%[2]d %[1]d", [1, 2]),
    ("%[3]d", [1]),
    ("%*d|%-*d|%.*f", [5, 1, 5, 2, 2, 3.14159]),
    ("%q %+q %#q %x % x %#x % #X", ["héllo\n", "héllo", "back`q", "hi", "hi", "hi", "hi"]),
    ("%v %d %s", [{"a": 1.5, "b": [1, None, "x"]}, {"a": 1.5}, [1.0, "s"]]),
    ("%#v %#v %#v %#v", [{"a": 1.5, "b": [1, None, "x"]}, "s", 1.0, 5]),
    ("%t %t %v", [True, 1, False]),
    ("%T %T %T %T %T", [1, 1.5, "s", None, {"a": 1}]),
    ("%.2s|%.0d|%6.2v|%-8q|%08.3f|%+.1e|%x", ["héllo", 0, 3.14159, "a", -3.14159, 12345.0, -255]),
    ("%v %v %v %v %v", [float("nan"), float("inf"), -float("inf"), -0.0, 1e-300]),
    ("%05s|%-05d|%+d|% d|%+ d", ["ab", 3, 3, 3, 3]),
    ("%c|%c|%q|%U", [-1, 0x110000, 0xD800, -1]),
    ("%v|%s|%d", [None, None, None]),
    ("%6.2f%%|%3c|%-3c|", [99.5, 65, 66]),
    ("%x|%X|%.1x|%#.0f|%#e", [1.5, -2.75, 1.03125, 2.0, 3.0]),
    ("%5t|%-6t|%q", [True, False, 65]),
    ("%010.4f|%-010.2f|%+010d", [-1.5, 2.25, 42]),
    ("%[1]*d|%[5]d|%.[2]d", [3, 4, 5]),
    ("%3.1v|%v", [[1.25, 2.5], {"k": [None]}]),
]

BAD_JSON = [
    "", " ", "nul", "tru", "{", "[1,", '{"a" 1}', '{"a":1,}', "[1 2]", "01", "-", "1.", "1e", "1e+",
    '"\\x"', '"\\u12g4"', '"a\nb"', "\ufeff1", "{1:2}", "[]]", "1 2", "NaN", "'a'", "1e999",
    "[" * 10001, '"\\ud800"',
]  # fmt: skip


def _render(oracle: GoOracle, template: str, context: Any) -> str:
    result = oracle.render(RenderRequest(template, context))
    assert result.ok, result.error
    return result.out


@pytest.mark.go
def test_is_print_matches_go_up_to_newer_unicode(oracle_per_toolchain: GoOracle) -> None:
    """Every rune quotes (strconv.Quote) and JS-escapes as in Go (bar newer Unicode on 1.19)."""
    oracle = oracle_per_toolchain
    runes = [chr(r) for r in range(0x110000) if not 0xD800 <= r <= 0xDFFF]
    newer: set[str] = set()
    for start in range(0, len(runes), 4096):
        chunk = runes[start : start + 4096]
        template = "{{range .l}}{{quote .}}{{js .}}\n{{end}}"
        lines = _render(oracle, template, {"l": chunk}).split("\n")[:-1]
        for rune, line in zip(chunk, lines, strict=True):
            if line != quote(rune) + js_escape(rune):
                newer.add(rune)
    if version_numbers(oracle.go_version) >= UNICODE_15_GO:
        assert sorted(f"U+{ord(rune):04X}" for rune in newer) == []
    for rune in newer:
        assert quote(rune) == f'"{rune}"', f"Go prints U+{ord(rune):04X} and we escape it"
    assert len(newer) <= UNICODE_14_AND_15_ADDITIONS


@pytest.mark.go
def test_printf_matches_go(oracle: GoOracle) -> None:
    """Verbs, flags, widths, bad verbs, EXTRA and MISSING as Go's fmt prints them."""
    for format_text, args in PRINTF_CASES:
        template = "{{printf .f " + " ".join(f"(index .a {i})" for i in range(len(args))) + "}}"
        assert _render(oracle, template, {"f": format_text, "a": args}) == sprintf(
            format_text, args
        )


@pytest.mark.go
def test_json_decoding_errors_match_go(oracle: GoOracle) -> None:
    """fromJson's error texts are Go's encoding/json texts."""
    requests = [RenderRequest("{{fromJson .s}}", {"s": text}) for text in BAD_JSON]
    for request, go in zip(requests, oracle.render_many(requests), strict=True):
        assert render_request(request) == go, request.context


FLOAT_TEMPLATE = (
    '{{.f}} {{json .f}} {{printf "%e|%.3g|%f|%.0f|%x|%8.2e|%G|%b|%#g" .f .f .f .f .f .f .f .f .f}}'
)


@pytest.mark.go
@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=50, max_size=50)
)
def test_float_formatting_matches_go(oracle: GoOracle, values: list[float]) -> None:
    """%v (S77), JSON (S78) and printf float verbs agree with Go on arbitrary floats."""
    requests = [RenderRequest(FLOAT_TEMPLATE, {"f": value}) for value in values]
    for value, go in zip(values, oracle.render_many(requests), strict=True):
        shortest = format_float(value, "g", -1)
        printed = sprintf("%e|%.3g|%f|%.0f|%x|%8.2e|%G|%b|%#g", [value] * 9)
        assert go.out == f"{shortest} {encode_float(value)} {printed}", value
        assert not math.isnan(value)
