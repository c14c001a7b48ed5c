"""The rules the emitter applies at emit time, checked against the model's own implementation.

The emitter converts output defaults (S153), checks elicitation schemas
(S121) and writes YAML timestamps in arguments itself, with code of its own
(tests/emit/test_independence.py); here both implementations meet case by
case, and where they once disagreed, Go decides.
"""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from transpiler.composite.elicitation import schema_problem_of
from transpiler.composite.errors import GoError
from transpiler.composite.output import coerce_default as model_coerce_default
from transpiler.config.loader import load_bytes
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.emit.exact.defaults import coerce_default
from transpiler.emit.exact.elicitation_step import schema_problem
from transpiler.emit.exact.script import emit_script
from transpiler.golang.values import AnyKeyMap, GoTime, NilList, NilMap
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.sim.scenario import scenario_from_document
from transpiler.starlark_runtime import run_starlark

DEFAULTS: list[Any] = [
    True, False, 0, 1, 2, -5, 2**62, 1.5, -1.5, 1e30, -1e30, float("nan"), float("inf"), 0.0,
    "", "1", "0", "true", "True", "TRUE", "yes", "x", " 1", "1_000", "0x10", "1e400", "-0",
    "3.5", "null", "{}", "[]", '{"a":1}', "[1,2]", '"s"', "{", "[1,", '{"a": [1e400, "x"]}',
    "1e400", {"a": 1}, [1, 2], {"a": [1, {"b": 2}]}, GoTime(datetime(2024, 1, 2, tzinfo=UTC)),
]  # fmt: skip
KINDS = ("string", "integer", "number", "boolean", "object", "array", "file")


def _same(mine: Any, model: Any) -> bool:
    if isinstance(model, NilMap | NilList):
        model = None
    if isinstance(mine, float) and isinstance(model, float) and math.isnan(mine):
        return math.isnan(model)
    return type(mine) is type(model) or (isinstance(model, int) and type(mine) is int)


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_convert_as_the_model_converts_them(kind: str) -> None:
    for default in DEFAULTS:
        mine, model = coerce_default(default, kind), model_coerce_default(default, kind)
        if isinstance(model, GoError):
            assert mine.error == model.text, (default, kind)
        else:
            assert mine.error is None and _same(mine.value, model), (default, kind, mine, model)
            assert mine.value == model or mine.value is None or mine.value != mine.value


OVERFLOW = "json: cannot unmarshal number 1e400 into Go value of type float64"
MAP, LIST = "map[string]interface {}", "[]interface {}"


@pytest.mark.parametrize(
    ("text", "kind", "error"),
    [
        # json.Unmarshal into map[string]any / []any, measured with Go 1.26.
        ('{"a": 1e400}', "object", OVERFLOW),
        ("[1e400]", "array", OVERFLOW),
        ("[1e400]", "object", f"json: cannot unmarshal array into Go value of type {MAP}"),
        ('{"a": 1e400}', "array", f"json: cannot unmarshal object into Go value of type {LIST}"),
        ("1e400", "object", f"json: cannot unmarshal number into Go value of type {MAP}"),
    ],
)
def test_a_json_default_fails_as_go_unmarshal_does(text: str, kind: str, error: str) -> None:
    expected = f"cannot parse default value as JSON {kind}: {error}"
    assert coerce_default(text, kind).error == expected
    model = model_coerce_default(text, kind)
    assert isinstance(model, GoError) and model.text == expected


def _nested(depth: int, kind: str) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": value} if kind == "map" else [value]
    return value


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"type": "object"},
        *(_nested(d, kind) for d, kind in itertools.product((9, 10, 11, 14), ("map", "list"))),
        {"a": [_nested(9, "map"), _nested(10, "list")]},
        {"a": "x" * 102390},
        {"a": "x" * 102400},
        {"a": "é" * 60000},
        {"a": float("nan")},
        AnyKeyMap(((1, 2),)),
    ],
)  # fmt: skip
def test_schema_limits_agree_with_the_model(schema: Any) -> None:
    assert schema_problem(schema) == schema_problem_of(schema)


TIMESTAMP_TOOL = b"""
compositeTools:
- name: stamp
  description: Sends timestamps as written in the YAML
  steps:
  - id: send
    tool: svc.send
    arguments:
      day: 2024-01-02
      zoned: 2024-01-02T03:04:05.5+02:00
"""


def test_a_timestamp_argument_reaches_the_backend_as_go_encodes_it() -> None:
    tool = load_bytes(TIMESTAMP_TOOL, "stamp.yaml").tools[0]
    zoned = datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=timezone(timedelta(hours=2)))
    assert tool.effective.steps[0].arguments == {
        "day": GoTime(datetime(2024, 1, 2, tzinfo=UTC)),
        "zoned": GoTime(zoned),
    }
    emitted = emit_script(tool.effective, "stamp.yaml")
    world = scenario_from_document(
        {"backends": {"svc.send": {"results": [{"structuredContent": {}}]}}}
    )
    trace = run_starlark(emitted.script, world, modules=emitted.modules)
    assert [call.args for call in trace.calls] == [
        {"day": "2024-01-02T00:00:00Z", "zoned": "2024-01-02T03:04:05.5+02:00"}
    ]
    options = CheckOptions(examples=5, paths=4, style="exact", target=THV_0051_ANNOTATIONS)
    report = check_tool(tool, options)
    assert report.verdict is Verdict.EQUIVALENT, report.reason
