"""The path scenarios reach values readers do not expect: other kinds of free texts and numbers
(inside JSON text too), fields only a variable reads present but falsy, and a full forEach
whose inner call fails."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import REPO_ROOT
from transpiler.config.loader import load_bytes, load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.happy import OTHER_KINDS, expected, reshapes
from transpiler.harness.scenarios.paths import FALSY, combinations, tool_answers, unexpected_answers
from transpiler.harness.scenarios.shapes import tool_shapes

LOOPHOLES = REPO_ROOT / "corpus" / "loopholes" / "workflows.yaml"


def _tool(name: str) -> CompositeToolConfig:
    return next(t.effective for t in load_paths([LOOPHOLES]).tools if t.effective.name == name)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    return "map" if isinstance(value, dict) else "number" if isinstance(value, int) else "text"


def test_free_texts_take_each_other_kind_in_turn_beside_each_other() -> None:
    """Each free text takes each kind once, and two at one site are never of one kind at
    once: a map beside a boolean, a number beside a map..."""
    call = expected(analyse(_tool("audit_note")))
    assert call.answers["audit.get_record"] == [
        {"labels": {"team": "fetch.labels.team"}, "archived": "fetch.archived"}
    ]
    reshaped = call.reshaped["audit.get_record"]
    assert len(reshaped) == len(OTHER_KINDS) <= len(reshapes())
    team = [_kind(body["labels"]["team"]) for body in reshaped]
    archived = [_kind(body["archived"]) for body in reshaped]
    assert sorted(team) == sorted(archived) == sorted(OTHER_KINDS)
    assert all(a != b for a, b in zip(team, archived, strict=True))


def test_json_text_holds_other_kinds_too() -> None:
    """A ``fromJson`` path the shape takes as text holds a number (a numeric id), and one it
    takes as a number holds the number's text."""
    reshaped = expected(analyse(_tool("announce_build"))).reshaped["ci.get_build"]
    ids = [json.loads(body["payload"])["id"] for body in reshaped]
    assert 1234 in ids and True in ids and {"key": "ok"} in ids
    counted = load_bytes(
        b"""compositeTools:
  - name: count_builds
    description: Say whether many builds ran
    steps:
      - id: fetch
        tool: ci.stats
      - id: say
        tool: chat.post
        dependsOn: [fetch]
        condition: '{{gt (fromJson .steps.fetch.output.stats).count 3}}'
        arguments: {text: many}
""",
        "count.yaml",
    ).tools[0]
    call = expected(analyse(counted.effective))
    assert call.answers["ci.stats"] == [{"stats": json.dumps({"count": 3.0})}]
    assert {"stats": json.dumps({"count": "3"})} in call.reshaped["ci.stats"]


def test_fields_only_a_variable_reads_come_present_but_falsy() -> None:
    tool = _tool("route_ticket")
    analysis = analyse(tool)
    call = expected(analysis)
    assert "urgent" not in call.answers["tickets.get"][0]  # the walk cannot follow `$t.urgent`
    answers = unexpected_answers(tool_shapes(analysis), "tickets.get", call.answers["tickets.get"])
    given = [a["results"][0]["structuredContent"] for a in answers]
    for falsy in FALSY:
        assert {**call.answers["tickets.get"][0], "urgent": falsy} in given


def test_a_full_for_each_meets_each_failure_of_its_inner_tool() -> None:
    """Beyond the combinations one outcome from the expected run: a collection of each other
    length (three, maxIterations, one more) with each failure of the loop's inner tool."""
    tool = _tool("scan_release")
    analysis = analyse(tool)
    shapes, call = tool_shapes(analysis), expected(analysis)
    assert shapes.loops == [("registry.list_images", "scanner.scan")]
    chosen, total, _ = combinations(
        shapes, tool.name, call.params, 64, 0, call.answers, call.reshaped
    )
    assert total > 64 and len(chosen) == 64
    met = set()
    for scenario in chosen:
        backends = scenario.to_json()["backends"]
        listed = backends["registry.list_images"]["results"][0].get("structuredContent", {})
        scan = backends["scanner.scan"]["results"][0]
        if isinstance(listed.get("images"), list) and "structuredContent" not in scan:
            met.add((len(listed["images"]), json.dumps(scan, sort_keys=True)))
    # (an answer past the step's deadline is no failure of the tool: one length meets it)
    failures = {
        json.dumps(f["results"][0], sort_keys=True)
        for f in _failures(tool)
        if "delay" not in f["results"][0]
    }
    assert {(n, f) for n in (1, 3, 6, 7) for f in failures} <= met


def _failures(tool: CompositeToolConfig) -> list[dict[str, Any]]:
    from transpiler.harness.scenarios.paths import tool_failures

    analysis = analyse(tool)
    shapes = tool_shapes(analysis)
    first = tool_answers(shapes, "scanner.scan", expected(analysis).answers["scanner.scan"])[0]
    return tool_failures(shapes, "scanner.scan", first)
