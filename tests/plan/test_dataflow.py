"""Dataflow edges from every template site, and the races they reveal (R2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.loader import load_bytes, load_paths
from transpiler.plan import ToolPlan, plan_tool

HEADER = "compositeTools:\n  - name: t\n    description: d\n    steps:\n"


def plan(steps: str, extra: str = "") -> ToolPlan:
    load = load_bytes((HEADER + steps + extra).encode(), "p.yaml")
    assert not load.errors
    return plan_tool(load.tools[0])


def test_every_template_site_is_read() -> None:
    result = plan(
        "      - id: a\n        tool: svc.a\n"
        "      - id: b\n        type: forEach\n        dependsOn: [a]\n"
        "        collection: '{{json .steps.a.output.items}}'\n"
        "        step: {id: i, tool: svc.i, arguments: {x: '{{.steps.a.output.k}}'}}\n"
        "      - id: c\n        tool: svc.c\n        dependsOn: [b]\n"
        "        condition: '{{.steps.b.output.count}}'\n        defaultResults: {}\n"
        '        arguments:\n          nested: {deep: [\'{{index .steps "a" "output" "z"}}\']}\n'
        "      - id: d\n        type: elicitation\n        dependsOn: [c]\n"
        "        message: 'ok {{.steps.c.output.y}}?'\n        schema: {type: object}\n",
        "    output:\n      properties:\n"
        "        r: {type: string, description: r, value: '{{.steps.d.output.action}}'}\n",
    )
    sites = {(e.reader, e.step, e.site) for e in result.dataflow}
    assert sites == {
        ("b", "a", "collection"),
        ("b", "a", "step.arguments.x"),
        ("c", "b", "condition"),
        ("c", "a", "arguments.nested.deep[0]"),
        ("d", "c", "message"),
        ("output", "d", "r"),
    }
    assert result.warnings == ()
    assert result.levels == (("a",), ("b",), ("c",), ("d",))


def test_read_without_dependency_races() -> None:
    result = plan(
        "      - id: a\n        tool: svc.a\n      - id: b\n        tool: svc.b\n"
        "        arguments: {x: '{{.steps.a.output.x}}'}\n"
    )
    assert [(w.rule, w.step) for w in result.warnings] == [("W.R2.race", "b")]
    assert result.warnings[0].location.line == 9


def test_dynamic_read_may_touch_any_step() -> None:
    result = plan(
        "      - id: a\n        tool: svc.a\n      - id: b\n        tool: svc.b\n"
        "      - id: c\n        tool: svc.c\n        dependsOn: [a]\n"
        "        arguments: {x: '{{index .steps .params.which}}'}\n"
    )
    assert {(e.step, e.dynamic) for e in result.dataflow} == {("a", True), ("b", True)}
    assert [(w.rule, w.message.split(" but ")[1].split(":")[0]) for w in result.warnings] == [
        ("W.R2.implicitOrder", "c does not depend on b")
    ]


def test_unknown_step_read() -> None:
    result = plan(
        "      - id: a\n        tool: svc.a\n        arguments: {x: '{{.steps.nope.output}}'}\n"
    )
    assert [w.rule for w in result.warnings] == ["W.plan.unknownStep"]


def test_cycle_has_no_levels() -> None:
    result = plan("      - id: a\n        tool: svc.a\n        dependsOn: [a]\n")
    assert result.levels == ()
    assert [w.rule for w in result.warnings] == ["PLAN.noOrder"]


def test_example_plans(capsys: pytest.CaptureFixture[str]) -> None:
    example = CORPUS / "example"
    assert main(["plan", str(example)]) == 0
    out = capsys.readouterr().out
    assert "level 0: fetch_logs, fetch_metrics, fetch_alerts" in out
    assert "level 1: summarize" in out
    assert main(["plan", str(example), "--tool", "scan_image_packages", "--format", "json"]) == 0
    text = capsys.readouterr().out
    assert '"levels": [\n        [\n          "list_packages"' in text
    assert main(["plan", str(example), "--tool", "no_such_tool"]) == 1


def test_plan_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        assert main(["plan", str(CORPUS / "example"), "--format", "json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert len(load_paths([CORPUS / "example"]).tools) == 4
