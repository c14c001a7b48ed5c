"""A forEach given more items than its ``maxIterations``: vMCP fails the step (S130), which
``onError: continue`` swallows (S131, S102), so the run goes on with the step ``failed`` and
no output. Both styles' scripts go on too, on each engine, and the gate passes them on that
scenario.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.emit.loop_runs import emitted_run, gate_report
from tests.starlark_runtime.conftest import ENGINES
from transpiler.composite import run_composite
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.emit import STYLES
from transpiler.golang.values import NIL_MAP
from transpiler.harness.judging.relation import difference
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import Trace

#: rotate_credentials with 101 services (its `verify` loop may take 100) and the
#: confirmation cancelled, which its `onCancel: continue` lets through.
OVER_LIMIT: dict[str, object] = {
    "tool": "rotate_credentials",
    "params": {"services": [f"s{n}" for n in range(101)]},
    "backends": {
        "vault.check_secret": {"results": [{"structuredContent": {"ok": True}}]},
        "vault.rotate_secret": {"results": [{"structuredContent": {"ok": True}}]},
    },
    "elicitations": [{"action": "cancel"}],
}

#: A loop whose status a later step reads, alone (its output unread) and beside another step
#: (the loop then runs in a function of its level, and returns its output).
LOOPS = """
compositeTools:
- name: scan_alone
  description: Scan each item, then report whether the scan completed
  parameters:
    type: object
    properties: {items: {type: array, items: {type: string}}}
    required: [items]
  steps:
  - id: scan
    type: forEach
    collection: "{{json .params.items}}"
    maxIterations: 2
    onError: {action: continue}
    defaultResults: {count: 0}
    step: {id: one, tool: scan.item, arguments: {name: "{{.forEach.item}}"}}
  - id: report
    tool: report.result
    dependsOn: [scan]
    arguments: {status: "{{.steps.scan.status}}"}
- name: scan_beside
  description: Scan each item beside another call, then report whether the scan completed
  parameters:
    type: object
    properties: {items: {type: array, items: {type: string}}}
    required: [items]
  steps:
  - id: scan
    type: forEach
    collection: "{{json .params.items}}"
    maxIterations: 2
    onError: {action: continue}
    defaultResults: {count: 0}
    step: {id: one, tool: scan.item, arguments: {name: "{{.forEach.item}}"}}
  - id: other
    tool: other.tool
  - id: report
    tool: report.result
    dependsOn: [scan, other]
    arguments: {status: "{{.steps.scan.status}}"}
"""


def _goes_on_like_vmcp(
    tool: LoadedTool, scenario: Scenario, loop: str, style: str, engine: str
) -> Trace:
    """vMCP fails ``loop`` and completes the run; the script (which defines no function it
    does not call) runs the same, and the gate passes it with this scenario among its own.
    The script's run."""
    composite = run_composite(tool.effective, scenario)
    assert composite.outcome == "success" and composite.steps is not None
    assert composite.steps[loop].status == "failed" and composite.steps[loop].output is NIL_MAP
    emitted, script = emitted_run(tool, scenario, style, engine)
    for function in re.findall(r"^def (\w+)\(", emitted.script, re.MULTILINE):
        assert function == "run" or emitted.script.count(f"{function}(") > 1, f"{function} unused"
    found = difference(composite, script)
    assert found is None, found.render()
    report = gate_report(tool, scenario, style, engine)
    if style == "exact" and "too many steps" in report.reason:
        # The exact style's Go emulation runs past THV-0051's step budget on a loop of a
        # hundred items (the generated scenarios hold lists at the limit): the gate says so.
        assert not report.passes(None)
        return script
    assert report.passes(None), report.reason
    return script


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("style", STYLES)
def test_a_loop_over_its_limit_under_continue_fails_and_the_run_goes_on(
    style: str, engine: str
) -> None:
    tools = load_paths([CORPUS / "goldens" / "workflows.yaml"]).tools
    tool = next(t for t in tools if t.effective.name == "rotate_credentials")
    _goes_on_like_vmcp(tool, scenario_from_document(OVER_LIMIT), "verify", style, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", ["scan_alone", "scan_beside"])
def test_a_later_step_reads_the_failed_status_of_a_loop_over_its_limit(
    name: str, style: str, engine: str, tmp_path: Path
) -> None:
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS)
    tool = next(t for t in load_paths([path]).tools if t.effective.name == name)
    answer = {"results": [{"structuredContent": {"ok": True}}]}
    scenario = scenario_from_document(
        {
            "tool": name,
            "params": {"items": ["a", "b", "c"]},
            "backends": {t: answer for t in ("scan.item", "other.tool", "report.result")},
        }
    )
    script = _goes_on_like_vmcp(tool, scenario, "scan", style, engine)
    assert [c.args for c in script.calls if c.tool == "report.result"] == [{"status": "failed"}]
