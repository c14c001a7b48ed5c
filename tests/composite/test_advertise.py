"""The advertise/call gate (S36): floor, merge, contradiction, routing and name collision."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.composite.helpers import tool
from transpiler.composite.advertise import (
    Advertised,
    BackendCatalog,
    Hidden,
    HiddenBecause,
    annotations_to_mcp,
    derive_floor,
    find_contradiction,
    gate,
    merge_annotations,
    not_found_error,
    step_tool_references,
)
from transpiler.composite.routing import RoutingTable, RoutingTarget
from transpiler.config.model import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
SAFE_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

TWO_STEPS = """
name: pair
description: d
steps:
- {id: a, tool: github.read}
- {id: b, tool: github.write}
"""

LOOP = """
name: loop
description: d
steps:
- {id: a, tool: github.read}
- id: each
  type: forEach
  collection: "{{json .steps.a.output.items}}"
  step: {type: tool, tool: slack.post}
"""


def catalog(annotations: dict[str, ToolAnnotations | None]) -> BackendCatalog:
    return BackendCatalog(RoutingTable.of_names(annotations), annotations)


def hints(annotations: ToolAnnotations | None) -> object:
    return annotations_to_mcp(annotations)


def test_S36_floor_is_read_only_only_when_every_step_tool_is() -> None:
    assert hints(derive_floor([READ_ONLY, READ_ONLY])) == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": False,
    }
    mixed = derive_floor([READ_ONLY, SAFE_WRITE])
    assert mixed is not None and mixed.read_only_hint is False


def test_S36_floor_is_destructive_and_open_world_when_a_step_tool_declares_nothing() -> None:
    assert hints(derive_floor([READ_ONLY, None])) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    silent = ToolAnnotations(read_only_hint=True)
    assert hints(derive_floor([silent])) == {
        "readOnlyHint": True,
        "destructiveHint": True,
        "openWorldHint": True,
    }


def test_S36_idempotent_is_never_derived_and_no_tool_steps_give_no_floor() -> None:
    idempotent = ToolAnnotations(idempotent_hint=True, read_only_hint=True)
    floor = derive_floor([idempotent])
    assert floor is not None and floor.idempotent_hint is None
    assert derive_floor([]) is None


def test_S36_merge_lets_explicit_hints_and_a_non_empty_title_win() -> None:
    floor = derive_floor([None])
    explicit = ToolAnnotations(title="Deploy", idempotent_hint=True, read_only_hint=False)
    assert hints(merge_annotations(floor, explicit)) == {
        "title": "Deploy",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": True,
    }
    assert merge_annotations(None, None) is None
    assert hints(merge_annotations(None, ToolAnnotations(title=""))) == {}


def test_S36_contradiction_for_each_of_the_three_hints() -> None:
    unknown = derive_floor([None])
    cases = {
        "readOnlyHint": ToolAnnotations(read_only_hint=True),
        "destructiveHint": ToolAnnotations(destructive_hint=False),
        "openWorldHint": ToolAnnotations(open_world_hint=False),
    }
    for hint, explicit in cases.items():
        found = find_contradiction(explicit, unknown)
        assert found is not None and found.hint == hint
        assert found.message.startswith(f"annotations declare {hint}=")


def test_S36_more_conservative_hints_and_idempotent_never_contradict() -> None:
    safe = derive_floor([READ_ONLY])
    cautious = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, open_world_hint=True, idempotent_hint=False
    )
    assert find_contradiction(cautious, safe) is None
    assert find_contradiction(ToolAnnotations(idempotent_hint=True), derive_floor([None])) is None
    assert find_contradiction(ToolAnnotations(read_only_hint=True), None) is None


def test_S36_step_tool_references_include_forEach_inner_steps() -> None:
    assert step_tool_references(tool(LOOP)) == ("github.read", "slack.post")


def test_S36_a_tool_with_an_unroutable_forEach_inner_step_is_hidden() -> None:
    verdicts = gate([tool(LOOP)], catalog({"github.read": READ_ONLY}))
    hidden = verdicts["loop"]
    assert isinstance(hidden, Hidden) and hidden.because is HiddenBecause.UNROUTABLE
    assert "slack.post" in hidden.detail


def test_S36_routing_tries_the_exact_key_then_workload_dot_capability() -> None:
    routing = RoutingTable(
        {
            "github_read": RoutingTarget("github", "read"),
            "a.b": RoutingTarget("x", "y"),
        }
    )
    assert routing.resolve("github_read") == "github_read"
    assert routing.resolve("github.read") == "github_read"
    assert routing.resolve("a.b") == "a.b"
    assert routing.resolve("x.y") == "a.b"
    assert routing.resolve(".read") is None
    assert routing.resolve("github.read.more") is None
    assert routing.resolve("") is None


def test_S36_split_is_at_the_first_dot() -> None:
    routing = RoutingTable({"k": RoutingTarget("w", "c.d")})
    assert routing.resolve("w.c.d") == "k"


def test_S36_one_name_collision_hides_every_composite() -> None:
    other = tool("name: other\ndescription: d\nsteps: [{id: a, tool: github.read}]")
    clash = tool("name: github.write\ndescription: d\nsteps: [{id: a, tool: github.read}]")
    verdicts = gate([other, clash], catalog({"github.read": READ_ONLY, "github.write": None}))
    for name in ("other", "github.write"):
        verdict = verdicts[name]
        assert isinstance(verdict, Hidden) and verdict.because is HiddenBecause.NAME_COLLISION


def test_S36_an_unroutable_composite_takes_no_part_in_the_name_check() -> None:
    other = tool("name: other\ndescription: d\nsteps: [{id: a, tool: github.read}]")
    clash = tool("name: github.read\ndescription: d\nsteps: [{id: a, tool: missing}]")
    verdicts = gate([other, clash], catalog({"github.read": READ_ONLY}))
    assert isinstance(verdicts["other"], Advertised)
    assert isinstance(verdicts["github.read"], Hidden)
    assert verdicts["github.read"].because is HiddenBecause.UNROUTABLE


def test_S36_explicit_read_only_over_silent_backends_is_dropped() -> None:
    composite = tool(TWO_STEPS + "annotations: {readOnlyHint: true}\n")
    verdict = gate([composite], catalog({"github.read": None, "github.write": None}))["pair"]
    assert isinstance(verdict, Hidden)
    assert verdict.because is HiddenBecause.ANNOTATION_CONTRADICTION
    assert verdict.hint == "readOnlyHint"


def test_S36_advertised_annotations_are_the_floor_merged_with_explicit_ones() -> None:
    composite = tool(TWO_STEPS + "annotations: {title: Pair, idempotentHint: true}\n")
    verdict = gate([composite], catalog({"github.read": READ_ONLY, "github.write": SAFE_WRITE}))
    advertised = verdict["pair"]
    assert isinstance(advertised, Advertised)
    assert hints(advertised.annotations) == {
        "title": "Pair",
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_S36_a_tool_without_tool_steps_advertises_its_explicit_annotations_only() -> None:
    ask = tool(
        "name: ask\ndescription: d\nannotations: {readOnlyHint: true}\n"
        "steps: [{id: q, type: elicitation, message: ok?, schema: {type: object}}]"
    )
    verdict = gate([ask], catalog({}))["ask"]
    assert isinstance(verdict, Advertised)
    assert hints(verdict.annotations) == {"readOnlyHint": True}


def test_S36_a_hidden_tool_is_answered_not_found() -> None:
    assert not_found_error("deploy") == 'not found: tool "deploy"'


optional_bool = st.none() | st.booleans()
step_annotations = st.none() | st.builds(
    ToolAnnotations,
    read_only_hint=optional_bool,
    destructive_hint=optional_bool,
    idempotent_hint=optional_bool,
    open_world_hint=optional_bool,
)


@given(st.lists(step_annotations, min_size=1), step_annotations)
def test_S36_one_more_step_tool_never_makes_the_floor_safer(
    steps: list[ToolAnnotations | None], extra: ToolAnnotations | None
) -> None:
    before, after = derive_floor(steps), derive_floor([*steps, extra])
    assert before is not None and after is not None
    assert bool(after.read_only_hint) <= bool(before.read_only_hint)
    assert bool(after.destructive_hint) >= bool(before.destructive_hint)
    assert bool(after.open_world_hint) >= bool(before.open_world_hint)


@given(step_annotations, st.lists(step_annotations, max_size=4))
def test_S36_what_passes_the_check_is_never_safer_than_the_floor(
    explicit: ToolAnnotations | None, steps: list[ToolAnnotations | None]
) -> None:
    floor = derive_floor(steps)
    if find_contradiction(explicit, floor) is not None or floor is None:
        return
    merged = merge_annotations(floor, explicit)
    assert merged is not None
    assert not (merged.read_only_hint and not floor.read_only_hint)
    assert not (merged.destructive_hint is False and floor.destructive_hint)
    assert not (merged.open_world_hint is False and floor.open_world_hint)
