"""The JSON-lines protocol and its tagged values."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given

from tests.gotemplate.strategies import VALUES
from transpiler.golang.values import NIL_LIST, NIL_MAP, Int64
from transpiler.gotemplate.protocol import (
    ProtocolError,
    RenderRequest,
    RenderResult,
    decode_value,
    encode_value,
    parse_request,
    parse_response,
    request_line,
    response_line,
)


def same(left: Any, right: Any) -> bool:
    """Equality that tells Go ints from floats and int64 from int, and NaN from nothing."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    return bool(left == right)


@given(VALUES)
def test_values_survive_the_protocol(value: Any) -> None:
    assert same(decode_value(json.loads(json.dumps(encode_value(value)))), value)


def test_tags() -> None:
    encoded = encode_value(
        {"i": 1, "j": Int64(2), "f": 1.0, "nm": NIL_MAP, "nl": NIL_LIST, "x": float("inf")}
    )
    assert encoded == {
        "i": {"$int": "1"},
        "j": {"$int64": "2"},
        "f": 1.0,
        "nm": {"$nilmap": True},
        "nl": {"$nillist": True},
        "x": {"$float": "+Inf"},
    }
    assert encode_value({"$int": 1}) == {"$map": {"$int": {"$int": "1"}}}
    assert encode_value("\udcff") == {"$bytes": "/w=="}


def test_plain_json_numbers_are_floats() -> None:
    assert same(decode_value(json.loads('{"a": [1, 2.5]}')), {"a": [1.0, 2.5]})


def test_bad_requests() -> None:
    with pytest.raises(ProtocolError):
        parse_request("{}")
    with pytest.raises(ProtocolError):
        parse_request('{"template": "x", "context": {"$nope": 1}}')


def test_request_and_response_lines() -> None:
    request = RenderRequest("{{.a}}", {"a": 1}, name="n")
    assert parse_request(request_line(request)) == request
    ok = RenderResult(ok=True, out="a\udcffb")
    assert json.loads(response_line(ok))["out"] == "a\ufffdb"
    assert parse_response(response_line(ok)) == ok
    failed = RenderResult(ok=False, kind="exec", error="boom")
    assert parse_response(response_line(failed)) == failed
