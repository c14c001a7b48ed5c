"""yaml.v3 value typing (S8), strict decoding (S7) and the Kubernetes dialect."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from transpiler.config.godecode import GoDecoder
from transpiler.config.loader import load_bytes
from transpiler.config.yamlv3 import parse_documents
from transpiler.golang.values import AnyKeyMap, GoTime, GoValue
from transpiler.validate import validate


def decode(text: str, *, kubernetes: bool = False) -> GoValue:
    document = next(parse_documents(text.encode()))
    assert document.root is not None
    decoder = GoDecoder(kubernetes=kubernetes)
    value = decoder.any_value(document.root)
    assert decoder.issues == []
    return value


@pytest.mark.parametrize(
    ("scalar", "expected"),
    [
        ("yes", "yes"),
        ("on", "on"),
        ("No", "No"),
        ("y", "y"),
        ("true", True),
        ("False", False),
        ("0x1F", 31),
        ("0o17", 15),
        ("017", 15),
        ("08", 8.0),
        ("1_000", 1000),
        ("-0b101", -5),
        ("+12", 12),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("~", None),
        ("null", None),
        ("", None),
        ("'123'", "123"),
        ("!!str 123", "123"),
        ("!!float 1", 1.0),
        ("1e400", "1e400"),
        ("18446744073709551615", 18446744073709551615),
        ("1:30", "1:30"),
        ("0x", "0x"),
    ],
)
def test_scalar_typing(scalar: str, expected: object) -> None:
    value = decode(f"v: {scalar}")
    assert isinstance(value, dict)
    assert value["v"] == expected
    assert type(value["v"]) is type(expected)


def test_special_floats() -> None:
    value = decode("a: .inf\nb: -.Inf\nc: .NaN")
    assert isinstance(value, dict)
    assert value["a"] == math.inf and value["b"] == -math.inf
    assert isinstance(value["c"], float) and math.isnan(value["c"])


def test_timestamps_are_go_times() -> None:
    value = decode("a: 2024-01-01\nb: 2024-1-2T03:04:05Z\nc: '2024-01-01'\nd: 2024-13-01")
    assert isinstance(value, dict)
    assert value["a"] == GoTime(datetime(2024, 1, 1, tzinfo=UTC))
    assert value["b"] == GoTime(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC))
    assert value["c"] == "2024-01-01"
    assert value["d"] == "2024-13-01"


def test_non_string_keys_make_an_any_key_map() -> None:
    value = decode("outer:\n  1: one\n  true: yes\n")
    assert isinstance(value, dict)
    assert value["outer"] == AnyKeyMap(((1, "one"), (True, "yes")))


def test_merge_keys() -> None:
    value = decode("base: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\n")
    assert isinstance(value, dict)
    assert value["merged"] == {"y": 3, "x": 1}


def test_kubernetes_dialect() -> None:
    value = decode("a: yes\nb: 1000000\nc: 5\nd: 2024-01-01\n1: x\ne: 2.5", kubernetes=True)
    assert value == {"a": True, "b": 1e6, "c": 5, "d": "2024-01-01", "1": "x", "e": 2.5}


def unit_messages(text: str) -> list[str]:
    report = validate(load_bytes(text.encode(), "c.yaml"))
    return [d.message for d in report.diagnostics]


def test_strict_unknown_field_message_and_line() -> None:
    report = validate(
        load_bytes(b"compositeTools:\n  - name: t\n    failureMode: abort\n", "c.yaml")
    )
    p1 = report.units[0].verdict("P1")
    assert p1 is not None and p1.message == (
        "failed to parse YAML: yaml: unmarshal errors:\n"
        "  line 3: field failureMode not found in type config.CompositeToolConfig"
    )
    assert p1.reported is not None and p1.reported.location.line == 3


def test_duplicate_key_message() -> None:
    messages = unit_messages("compositeTools:\n  - name: t\n    name: u\n")
    assert 'mapping key "name" already defined at line 2' in messages


def test_first_fatal_error_is_what_vmcp_reports() -> None:
    text = (
        "compositeTools:\n  - name: t\n    bogus: 1\n    timeout: 10\n"
        "    steps: [{id: a, tool: x, timeout: 1d}]\n"
    )
    report = validate(load_bytes(text.encode(), "c.yaml"))
    p1 = report.units[0].verdict("P1")
    assert p1 is not None
    assert (
        p1.message == 'failed to parse YAML: invalid duration: time: missing unit in duration "10"'
    )
    rules = [d.rule for d in report.units[0].diagnostics if d.phase == "P1"]
    assert rules == ["P1.S7.unknownField", "P1.S6.duration", "P1.S6.duration"]


def test_scalar_into_struct_and_list_into_string() -> None:
    messages = unit_messages(
        "compositeTools:\n  - name: [a]\n    steps: [{id: a, tool: x, onError: abort}]\n"
    )
    assert "cannot unmarshal !!seq into string" in messages
    assert "cannot unmarshal !!str `abort` into config.StepErrorHandling" in messages


def test_floats_truncate_into_int_fields() -> None:
    load = load_bytes(
        b"compositeTools:\n  - name: t\n    steps: [{id: a, type: forEach, maxParallel: 2.9}]\n"
    )
    assert load.tools[0].config.steps[0].max_parallel == 2


def test_a_snake_case_key_gets_the_camel_case_vmcp_reads() -> None:
    """vMCP refuses `composite_tools` as an unknown field (its words stay as they are); a note
    beside it names the key it reads, `compositeTools`. A key with no such twin gets none."""
    text = "composite_tools: []\nbogus_key: 1\n"
    report = validate(load_bytes(text.encode(), "c.yaml"))
    diagnostics = report.units[0].diagnostics
    notes = [d for d in diagnostics if d.rule == "LOAD.snakeCase"]
    assert [(d.location.line, "compositeTools" in d.message) for d in notes] == [(1, True)]
    unknown = [d.message for d in diagnostics if d.rule == "P1.S7.unknownField"]
    assert unknown == [
        "field composite_tools not found in type config.Config",
        "field bogus_key not found in type config.Config",
    ]
