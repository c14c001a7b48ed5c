"""Go's JSON at the model's edges: decoding output JSON, and times in traces."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from transpiler.composite.errors import GoError
from transpiler.composite.output import LIST_TYPE, MAP_TYPE, decode_json_as
from transpiler.golang.values import GoTime
from transpiler.sim.trace import plain_json

OVERFLOW = "json: cannot unmarshal number 1e400 into Go value of type float64"


@pytest.mark.parametrize(
    ("text", "go_type", "error"),
    [
        # json.Unmarshal into map[string]any / []any, measured with Go 1.26.
        ('{"a": 1e400}', MAP_TYPE, OVERFLOW),
        ('{"a": [1e400, "x"]}', MAP_TYPE, OVERFLOW),
        ("[1e400]", LIST_TYPE, OVERFLOW),
        ("[1e400]", MAP_TYPE, f"json: cannot unmarshal array into Go value of type {MAP_TYPE}"),
        (
            '{"a": 1e400}',
            LIST_TYPE,
            f"json: cannot unmarshal object into Go value of type {LIST_TYPE}",
        ),
        ("1e400", MAP_TYPE, f"json: cannot unmarshal number into Go value of type {MAP_TYPE}"),
    ],
)
def test_a_number_beyond_float64_fails_as_go_unmarshal_does(
    text: str, go_type: str, error: str
) -> None:
    assert decode_json_as(text, go_type) == GoError(error)


def test_a_trace_writes_a_time_as_go_json_encodes_it() -> None:
    zoned = datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=timezone(timedelta(hours=2)))
    assert plain_json(GoTime(zoned)) == "2024-01-02T03:04:05.5+02:00"
    assert plain_json(GoTime(datetime(2024, 1, 2, tzinfo=UTC))) == "2024-01-02T00:00:00Z"
