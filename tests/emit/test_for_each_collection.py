"""A forEach whose collection, read from a backend's answer, is not a list: vMCP fails the step
(S130), which stops the run, or under ``onError: continue`` leaves the step ``failed`` and
goes on (S131, S102); a null collection is no items. Both styles' scripts do the same on
each engine (a map's keys are no items to loop over), and the gate passes them on those
scenarios.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.emit.loop_runs import emitted_run, gate_report
from tests.starlark_runtime.conftest import ENGINES
from transpiler.composite import run_composite
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.emit import STYLES
from transpiler.harness.judging.relation import difference
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import Trace

#: A loop over the items a backend lists: one that stops the run, one that goes on (its
#: status read by a later step), and one that goes on beside another call (the loop then
#: runs in a function of its level).
LOOPS = """
compositeTools:
- name: scan_abort
  description: Scan each listed item, then report how many
  steps:
  - id: list
    tool: list.items
  - id: scan
    type: forEach
    collection: "{{json .steps.list.output.items}}"
    maxIterations: 3
    dependsOn: [list]
    step: {id: one, tool: scan.item, arguments: {position: "{{.forEach.index}}"}}
  - id: report
    tool: report.result
    dependsOn: [scan]
    arguments: {count: "{{.steps.scan.output.count}}"}
- name: scan_alone
  description: Scan each listed item, then report whether the scan completed
  steps:
  - id: list
    tool: list.items
  - id: scan
    type: forEach
    collection: "{{json .steps.list.output.items}}"
    maxIterations: 3
    dependsOn: [list]
    onError: {action: continue}
    defaultResults: {count: 0}
    step: {id: one, tool: scan.item, arguments: {position: "{{.forEach.index}}"}}
  - id: report
    tool: report.result
    dependsOn: [scan]
    arguments: {status: "{{.steps.scan.status}}"}
- name: scan_beside
  description: Scan each listed item beside another call, then report whether it completed
  steps:
  - id: list
    tool: list.items
  - id: scan
    type: forEach
    collection: "{{json .steps.list.output.items}}"
    maxIterations: 3
    dependsOn: [list]
    onError: {action: continue}
    defaultResults: {count: 0}
    step: {id: one, tool: scan.item, arguments: {position: "{{.forEach.index}}"}}
  - id: other
    tool: other.tool
    dependsOn: [list]
  - id: report
    tool: report.result
    dependsOn: [scan, other]
    arguments: {status: "{{.steps.scan.status}}"}
"""
#: Collections that are not lists: a map (whose keys a plain loop would take for items) and
#: a number (which no loop takes).
NOT_LISTS: dict[str, Any] = {"map": {"z": 1, "y": 2}, "number": 5}


def _tool(name: str, tmp_path: Path) -> LoadedTool:
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS)
    return next(t for t in load_paths([path]).tools if t.effective.name == name)


def _listing(name: str, items: Any) -> Scenario:
    """``name`` run with ``list.items`` answering ``items``, every other tool ``ok``."""
    answer = {"results": [{"structuredContent": {"ok": True}}]}
    backends = {t: answer for t in ("scan.item", "other.tool", "report.result")}
    listed = {"results": [{"structuredContent": {"items": items}}]}
    return scenario_from_document({"tool": name, "backends": {**backends, "list.items": listed}})


def _run_both(tool: LoadedTool, scenario: Scenario, style: str, engine: str) -> tuple[Trace, Trace]:
    """vMCP's run and the script's; the gate passes the script with this scenario among its
    own."""
    composite = run_composite(tool.effective, scenario)
    _, script = emitted_run(tool, scenario, style, engine)
    report = gate_report(tool, scenario, style, engine)
    assert report.passes(None), report.reason
    return composite, script


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("shape", sorted(NOT_LISTS))
def test_a_collection_that_is_not_a_list_stops_the_run_before_any_call(
    shape: str, style: str, engine: str, tmp_path: Path
) -> None:
    tool = _tool("scan_abort", tmp_path)
    composite, script = _run_both(tool, _listing("scan_abort", NOT_LISTS[shape]), style, engine)
    assert composite.outcome == "error"
    assert composite.error is not None and "must resolve to a JSON array" in composite.error
    assert script.outcome == "error"
    assert [c.tool for c in script.calls] == [c.tool for c in composite.calls] == ["list.items"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", ["scan_alone", "scan_beside"])
@pytest.mark.parametrize(
    ("shape", "status"), [("map", "failed"), ("number", "failed"), ("null", "completed")]
)
def test_under_continue_a_collection_not_a_list_fails_the_step_and_null_is_no_items(
    shape: str, status: str, name: str, style: str, engine: str, tmp_path: Path
) -> None:
    tool = _tool(name, tmp_path)
    items = NOT_LISTS.get(shape)
    composite, script = _run_both(tool, _listing(name, items), style, engine)
    assert composite.outcome == "success" and composite.steps is not None
    assert composite.steps["scan"].status == status
    found = difference(composite, script)
    assert found is None, found.render()
    assert not [c for c in script.calls if c.tool == "scan.item"]
    assert [c.args for c in script.calls if c.tool == "report.result"] == [{"status": status}]
