"""Property tests of the pure parts of the model (hypothesis)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from transpiler.composite.coerce import coerce_value
from transpiler.composite.dag import build_levels
from transpiler.composite.params import apply_parameter_defaults
from transpiler.config.model import WorkflowStepConfig
from transpiler.golang.strconv import NumError, parse_bool, parse_float, parse_int
from transpiler.golang.values import Int64

json_leaves = st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=8)
json_values = st.recursive(
    json_leaves,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)
numberish = st.from_regex(
    r"[+-]?[0-9_.xXpPeE ]{0,8}|[+-]?(inf|Inf|NaN|nan)|t|F|TRUE|1|0", fullmatch=True
)


def _parsed(parser: Any, text: str) -> Any:
    try:
        return parser(text)
    except NumError:
        return text


@given(numberish)
def test_strings_are_coerced_with_go_s_strict_parsers_S82(text: str) -> None:
    integer = coerce_value({"type": "integer"}, text)
    expected = _parsed(lambda t: parse_int(t, 10, 64), text)
    assert integer == expected and isinstance(integer, Int64) == (expected is not text)
    number = coerce_value({"type": "number"}, text)
    assert repr(number) == repr(_parsed(parse_float, text))
    assert coerce_value({"type": "boolean"}, text) == _parsed(parse_bool, text)


@given(json_values, st.sampled_from(["integer", "number", "boolean", "string", "object", "array"]))
def test_coercion_never_touches_non_strings_or_the_input_S81(value: Any, kind: str) -> None:
    schema = {"type": "object", "properties": {"v": {"type": kind}, "w": "not a schema"}}
    arguments = {"v": value, "w": "5", "other": value}
    before = copy.deepcopy(arguments)
    coerced = coerce_value(schema, arguments)
    assert arguments == before and isinstance(coerced, dict)
    assert coerced["w"] == "5" and coerced["other"] == value
    if not isinstance(value, str):
        assert coerced["v"] == value


@given(
    st.dictionaries(st.sampled_from("abcd"), json_values, max_size=4),
    st.dictionaries(st.sampled_from("abcdef"), json_values, max_size=6),
)
def test_defaults_never_override_what_the_client_sent_S40(
    client: dict[str, Any], defaults: dict[str, Any]
) -> None:
    schema = {"type": "object", "properties": {k: {"default": v} for k, v in defaults.items()}}
    params = apply_parameter_defaults(schema, client)
    assert {k: params[k] for k in client} == client
    assert set(params) == set(client) | set(defaults)
    assert all(params[k] == v for k, v in defaults.items() if k not in client)


@st.composite
def dags(draw: st.DrawFn) -> tuple[WorkflowStepConfig, ...]:
    count = draw(st.integers(1, 8))
    steps = []
    for index in range(count):
        deps = draw(st.lists(st.integers(0, index - 1), max_size=3)) if index else []
        steps.append(
            WorkflowStepConfig(id=f"s{index}", tool="t", depends_on=tuple(f"s{d}" for d in deps))
        )
    return tuple(draw(st.permutations(steps)))


@given(dags())
def test_a_step_s_level_is_one_more_than_its_deepest_dependency_S50(
    steps: tuple[WorkflowStepConfig, ...],
) -> None:
    level_of = {step.id: n for n, level in enumerate(build_levels(steps)) for step in level}
    by_id = {step.id: step for step in steps}
    for step_id, level in level_of.items():
        deps = by_id[step_id].depends_on
        assert level == (1 + max(level_of[d] for d in deps) if deps else 0)
