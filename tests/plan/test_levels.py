"""networkx levels equal Go's Kahn levels (S50) on generated DAGs, duplicate dependsOn included."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transpiler.config.model import WorkflowStepConfig
from transpiler.plan import PlanError, execution_levels


def go_kahn(steps: list[WorkflowStepConfig]) -> list[set[str]]:
    """vMCP's buildExecutionLevels, transcribed plainly: in-degrees count every dependsOn entry."""
    in_degree = {step.id: len(step.depends_on) for step in steps}
    dependents: dict[str, list[str]] = {step.id: [] for step in steps}
    for step in steps:
        for dependency in step.depends_on:
            dependents[dependency].append(step.id)
    done: set[str] = set()
    levels: list[set[str]] = []
    while len(done) < len(steps):
        level = {
            step_id for step_id, degree in in_degree.items() if degree == 0 and step_id not in done
        }
        if not level:
            raise PlanError("circular dependency detected")
        for step_id in level:
            done.add(step_id)
            for dependent in dependents[step_id]:
                in_degree[dependent] -= 1
        levels.append(level)
    return levels


@st.composite
def dags(draw: st.DrawFn) -> list[WorkflowStepConfig]:
    count = draw(st.integers(min_value=1, max_value=25))
    ids = [f"s{i}" for i in range(count)]
    order = draw(st.permutations(ids))
    steps = []
    for position, step_id in enumerate(order):
        earlier = order[:position]
        deps = draw(st.lists(st.sampled_from(earlier), max_size=5)) if earlier else []
        steps.append(WorkflowStepConfig(id=step_id, tool="svc.t", depends_on=tuple(deps)))
    return draw(st.permutations(steps))


@given(dags())
def test_levels_match_go_kahn(steps: list[WorkflowStepConfig]) -> None:
    ours = execution_levels(steps)
    assert [set(level) for level in ours] == go_kahn(steps)
    position = {step.id: index for index, step in enumerate(steps)}
    assert all(list(level) == sorted(level, key=position.__getitem__) for level in ours)


@given(dags())
def test_level_is_one_more_than_deepest_dependency(steps: list[WorkflowStepConfig]) -> None:
    level_of = {
        step: index for index, level in enumerate(execution_levels(steps)) for step in level
    }
    for step in steps:
        expected = 1 + max((level_of[d] for d in step.depends_on), default=-1)
        assert level_of[step.id] == expected


@pytest.mark.parametrize(
    "deps",
    [{"a": ("a",)}, {"a": ("b",), "b": ("a",)}, {"a": ("ghost",)}],
    ids=["self", "two", "unknown"],
)
def test_no_order(deps: dict[str, tuple[str, ...]]) -> None:
    steps = [WorkflowStepConfig(id=step_id, depends_on=d) for step_id, d in deps.items()]
    with pytest.raises(PlanError):
        execution_levels(steps)
    if "ghost" not in str(deps):
        with pytest.raises(PlanError):
            go_kahn(steps)
