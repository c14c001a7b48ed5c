"""Two places where a readable script once parted from vMCP without a class to say so.

- A condition whose text may be other than true or false: vMCP fails the step (S64, S65), and
  the script reads the text with the ``condition`` helper, which fails the same way; branches
  that both print other text fail the step every time, written as a ``fail``.
- A forEach over ``{{json X}}`` whose inner step prints a whole item: vMCP reads the items back
  from JSON text, so a map item prints with its keys sorted, and the script takes the items
  through JSON too.

Each runs as vMCP does on its scenario, on each engine, and the gate passes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emit.loop_runs import emitted_run, gate_report
from tests.starlark_runtime.conftest import ENGINES
from transpiler.composite import run_composite
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.harness.judging.relation import difference
from transpiler.sim.scenario import Scenario, scenario_from_document

TOOLS = """
compositeTools:
- name: notify_in_mode
  description: Notify when the mode says so; any other mode is a mistake
  parameters:
    type: object
    properties: {urgent: {type: boolean}, mode: {type: string}}
    required: [urgent, mode]
  steps:
  - id: notify
    tool: chat.post
    condition: "{{if .params.urgent}}true{{else}}{{.params.mode}}{{end}}"
  - id: log
    tool: audit.log
    dependsOn: [notify]
- name: notify_never
  description: A condition that prints yes or no, never true or false
  parameters:
    type: object
    properties: {urgent: {type: string}}
  steps:
  - id: notify
    tool: chat.post
    condition: "{{if .params.urgent}}yes{{else}}no{{end}}"
- name: tag_each
  description: Tag each record the inventory lists, sending the record as text
  steps:
  - id: records
    tool: inventory.list
  - id: tag
    type: forEach
    dependsOn: [records]
    collection: "{{json .steps.records.output.records}}"
    step: {id: one, tool: tags.put, arguments: {record: "{{.forEach.item}}"}}
"""

OK = {"results": [{"structuredContent": {"ok": True}}]}


def _tool(tmp_path: Path, name: str) -> LoadedTool:
    path = tmp_path / "tools.yaml"
    path.write_text(TOOLS)
    return next(t for t in load_paths([path]).tools if t.effective.name == name)


def _runs_like_vmcp(tool: LoadedTool, scenario: Scenario, engine: str) -> str:
    """The readable script runs ``scenario`` as vMCP does (but for the wording of a failure),
    and the gate passes it with that scenario among its own. The script."""
    composite = run_composite(tool.effective, scenario)
    emitted, script = emitted_run(tool, scenario, "readable", engine)
    assert script.outcome == composite.outcome
    if composite.outcome == "success":
        found = difference(composite, script)
        assert found is None, found.render()
    else:
        assert [c.tool for c in script.calls] == [c.tool for c in composite.calls]
    report = gate_report(tool, scenario, "readable", engine)
    assert report.passes(None), report.reason
    return emitted.script


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("mode", "calls"),
    [("true", ["chat.post", "audit.log"]), ("FALSE", ["audit.log"]), ("later", [])],
)
def test_a_condition_whose_text_is_neither_true_nor_false_fails_the_run(
    mode: str, calls: list[str], engine: str, tmp_path: Path
) -> None:
    tool = _tool(tmp_path, "notify_in_mode")
    scenario = scenario_from_document(
        {
            "tool": "notify_in_mode",
            "params": {"urgent": False, "mode": mode},
            "backends": {"chat.post": OK, "audit.log": OK},
        }
    )
    script = _runs_like_vmcp(tool, scenario, engine)
    assert 'if condition("notify", ' in script
    assert "condition-text" not in script  # the script reads the text as vMCP does
    composite = run_composite(tool.effective, scenario)
    assert [c.tool for c in composite.calls] == calls
    if not calls:
        assert "must evaluate to 'true' or 'false'" in (composite.error or "")


@pytest.mark.parametrize("engine", ENGINES)
def test_branches_that_print_neither_true_nor_false_always_fail(
    engine: str, tmp_path: Path
) -> None:
    tool = _tool(tmp_path, "notify_never")
    scenario = scenario_from_document(
        {"tool": "notify_never", "params": {"urgent": "now"}, "backends": {"chat.post": OK}}
    )
    composite = run_composite(tool.effective, scenario)
    assert composite.outcome == "error" and not composite.calls
    emitted, script = emitted_run(tool, scenario, "readable", engine)
    assert 'fail("the condition of step notify never prints true or false")' in emitted.script
    assert script.outcome == "error" and not script.calls


@pytest.mark.parametrize("engine", ENGINES)
def test_a_printed_map_item_has_its_keys_sorted_as_vmcp_reads_it_back(
    engine: str, tmp_path: Path
) -> None:
    tool = _tool(tmp_path, "tag_each")
    record = {"zone": "eu", "name": "db", "meta": {"y": 1, "x": None}}
    scenario = scenario_from_document(
        {
            "tool": "tag_each",
            "backends": {
                "inventory.list": {"results": [{"structuredContent": {"records": [record]}}]},
                "tags.put": OK,
            },
        }
    )
    emitted, script = emitted_run(tool, scenario, "readable", engine)
    assert 'json.decode(json.encode(records["records"]))' in emitted.script
    sent = [c.args["record"] for c in script.calls if c.tool == "tags.put"]
    if engine == "go":  # go.starlark.net's json.encode sorts keys, as vMCP's json does
        assert sent == ['{"meta": {"x": None, "y": 1}, "name": "db", "zone": "eu"}']
    report = gate_report(tool, scenario, "readable", engine)
    assert report.passes(None), report.reason
