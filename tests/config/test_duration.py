"""Go's ``time.ParseDuration`` (S6) and the CRD duration pattern."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transpiler.golang.duration import (
    HOUR,
    MICROSECOND,
    MINUTE,
    SECOND,
    DurationError,
    format_duration,
    matches_crd_pattern,
    parse_duration,
)

INT64_MAX = (1 << 63) - 1

#: Results printed by Go 1.19's time.ParseDuration for each input.
GO_RESULTS: list[tuple[str, int | str]] = [
    ("30s", 30 * SECOND),
    (".5s", SECOND // 2),
    ("1.s", SECOND),
    ("0", 0),
    ("+0", 0),
    ("-5s", -5 * SECOND),
    ("+5s", 5 * SECOND),
    ("1m1m", 2 * MINUTE),
    ("1\u00b5s", MICROSECOND),
    ("1\u03bcs", MICROSECOND),
    ("1us", MICROSECOND),
    ("1.5h", 90 * MINUTE),
    ("1h1.5m", HOUR + 90 * SECOND),
    ("2562047h47m16.854775807s", INT64_MAX),
    ("-2562047h47m16.854775808s", -(1 << 63)),
    ("9223372036854775807ns", INT64_MAX),
    ("0.0000000001s", 0),
    ("1.0000000001s", SECOND),
    ("1.23456789012345678901234567890h", 4444444404444),
    ("1.9999999999ns", 1),
    ("30", 'time: missing unit in duration "30"'),
    ("00", 'time: missing unit in duration "00"'),
    ("5", 'time: missing unit in duration "5"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("1e3s", 'time: unknown unit "e" in duration "1e3s"'),
    ("1xs", 'time: unknown unit "xs" in duration "1xs"'),
    ("1\u00b5x", 'time: unknown unit "\\xc2\\xb5x" in duration "1\\xc2\\xb5x"'),
    ("1s ", 'time: unknown unit "s " in duration "1s "'),
    (" 1s", 'time: invalid duration " 1s"'),
    ("", 'time: invalid duration ""'),
    ("-", 'time: invalid duration "-"'),
    (".s", 'time: invalid duration ".s"'),
    ("-.s", 'time: invalid duration "-.s"'),
    ("2562047h47m16.854775808s", 'time: invalid duration "2562047h47m16.854775808s"'),
    ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
    ("12345678901234567890ns", 'time: invalid duration "12345678901234567890ns"'),
]


@pytest.mark.parametrize(("text", "expected"), GO_RESULTS, ids=[repr(t) for t, _ in GO_RESULTS])
def test_go_results(text: str, expected: int | str) -> None:
    if isinstance(expected, int):
        assert parse_duration(text) == expected
    else:
        with pytest.raises(DurationError) as raised:
            parse_duration(text)
        assert str(raised.value) == expected


@given(st.integers(min_value=-INT64_MAX, max_value=INT64_MAX))
def test_string_form_round_trips(nanoseconds: int) -> None:
    assert parse_duration(format_duration(nanoseconds)) == nanoseconds


@given(
    st.integers(min_value=0, max_value=10**20), st.sampled_from(["ns", "us", "ms", "s", "m", "h"])
)
def test_whole_numbers_scale_or_overflow(value: int, unit: str) -> None:
    scale = {"ns": 1, "us": 1000, "ms": 10**6, "s": SECOND, "m": MINUTE, "h": HOUR}[unit]
    if value * scale <= INT64_MAX:
        assert parse_duration(f"{value}{unit}") == value * scale
        assert parse_duration(f"-{value}{unit}") == -value * scale
    else:
        with pytest.raises(DurationError, match="invalid duration"):
            parse_duration(f"{value}{unit}")


@given(st.from_regex(r"([0-9]{1,6}(\.[0-9]{1,4})?(ns|us|µs|ms|s|m|h)){1,3}", fullmatch=True))
def test_crd_pattern_strings_parse(text: str) -> None:
    assert matches_crd_pattern(text)
    assert parse_duration(text) >= 0


@pytest.mark.parametrize("text", ["-5s", ".5s", "0", "1.s", "1d", "30", "5 s"])
def test_crd_pattern_is_stricter(text: str) -> None:
    assert not matches_crd_pattern(text)


@pytest.mark.go
@given(st.lists(st.text(alphabet="0123456789.-+nsuµμmhd ", max_size=12), min_size=50, max_size=50))
def test_differential_against_go(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    if shutil.which("go") is None:
        pytest.skip("the Go toolchain is not installed")
    program = _go_program(tmp_path_factory.getbasetemp())
    lines = [text for text in texts if "\n" not in text]
    output = subprocess.run(
        [str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for text, go in zip(lines, output, strict=True):
        try:
            ours = str(parse_duration(text))
        except DurationError as error:
            ours = f"ERR {error}"
        assert ours == go, text


GO_PROGRAM = """package main

import ("bufio"; "fmt"; "os"; "time")

func main() {
    s := bufio.NewScanner(os.Stdin)
    for s.Scan() {
        d, err := time.ParseDuration(s.Text())
        if err != nil {
            fmt.Println("ERR " + err.Error())
        } else {
            fmt.Println(int64(d))
        }
    }
}
"""


def _go_program(base: Path) -> Path:
    binary = base / "parse_duration"
    if not binary.exists():
        source = base / "main.go"
        source.write_text(GO_PROGRAM)
        subprocess.run(
            ["go", "build", "-o", str(binary), str(source)], check=True, capture_output=True
        )
    return binary
