"""Schedules: canonical and seeded runs repeat exactly; ``all`` exposes vMCP's races (R1-R8)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.composite.corpus import SCENARIOS, case_id, expect_files, load_case
from tests.composite.helpers import scenario, tool
from transpiler.composite import run_composite_schedules

PARALLEL = tool(
    """
    name: parallel
    description: two independent steps
    steps:
    - {id: first, tool: one}
    - {id: second, tool: two}
    """
)
ANSWERS = (
    "backends: {one: {results: [{structuredContent: {from: one}}]}, "
    "two: {results: [{structuredContent: {from: two}}]}}"
)


@pytest.mark.parametrize("path", expect_files(), ids=case_id)
@pytest.mark.parametrize("schedule", ["canonical", "random:11"])
def test_a_trace_is_byte_identical_across_runs(path: Path, schedule: str) -> None:
    case = load_case(path)
    first = run_composite_schedules(case.tool, case.scenario, schedule)
    second = run_composite_schedules(case.tool, case.scenario, schedule)
    assert [t.dumps() for t in first] == [t.dumps() for t in second]


def test_exploring_all_schedules_is_deterministic_too() -> None:
    case = load_case(SCENARIOS / "D_dag" / "abort.expect.yaml")
    first = run_composite_schedules(case.tool, case.scenario, "all")
    second = run_composite_schedules(case.tool, case.scenario, "all")
    assert [t.dumps() for t in first] == [t.dumps() for t in second]
    assert len(first) > 1


def test_R1_calls_of_one_level_reach_the_backends_in_any_order() -> None:
    explored = run_composite_schedules(PARALLEL, scenario(ANSWERS), "all")
    orders = {tuple(call.tool for call in trace.calls) for trace in explored}
    assert orders == {("one", "two"), ("two", "one")}
    assert explored.exhaustive


def test_R4_iterations_run_in_any_order_even_one_at_a_time_S132() -> None:
    loop = tool(
        """
        name: loop
        description: d
        steps:
        - id: loop
          type: forEach
          collection: "[1, 2, 3]"
          maxParallel: 1
          step: {id: inner, tool: one, arguments: {n: "{{.forEach.item}}"}}
        """
    )
    explored = run_composite_schedules(loop, scenario(ANSWERS), "all")
    orders = {tuple(call.args["n"] for call in trace.calls) for trace in explored}
    assert len(orders) == 6


def test_R3_which_failure_fails_the_level_is_a_race_S54() -> None:
    case = load_case(SCENARIOS / "D_dag" / "two_failures.expect.yaml")
    errors = {trace.error for trace in run_composite_schedules(case.tool, case.scenario, "all")}
    assert len(errors) == 2


def test_R5_parallel_final_steps_give_two_possible_outputs_S150() -> None:
    case = load_case(SCENARIOS / "O_output" / "tied.expect.yaml")
    explored = run_composite_schedules(case.tool, case.scenario, "all")
    assert {str(trace.output) for trace in explored} == {"{'from': 'left'}", "{'from': 'right'}"}


def test_a_limit_too_small_is_reported_as_not_exhaustive() -> None:
    explored = run_composite_schedules(PARALLEL, scenario(ANSWERS), "all", limit=1)
    assert not explored.exhaustive and explored.schedules == 1


def test_seeded_jitter_stays_inside_go_s_range_S91() -> None:
    case = load_case(SCENARIOS / "J_retries" / "schedule.expect.yaml")
    for seed in range(5):
        (trace,) = run_composite_schedules(case.tool, case.scenario, f"random:{seed}")
        starts = [call.start_ns for call in trace.calls]
        waits = [later - earlier for earlier, later in itertools.pairwise(starts)]
        centres = [1.0e9, 1.5e9, 2.25e9, 3.375e9]
        assert all(0.5 * c <= w <= 1.5 * c + 1 for w, c in zip(waits, centres, strict=True))
