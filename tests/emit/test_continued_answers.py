"""An elicitation whose decline or cancel a ``continue`` handler passes: the run goes on, and
later reads of the answer's content find a missing field, as vMCP's do (they never stop)."""

from __future__ import annotations

import pytest

from tests.emit.loop_runs import emitted_run, gate_report
from tests.starlark_runtime.conftest import ENGINES
from transpiler.composite import run_composite
from transpiler.config.loader import LoadedTool, load_bytes
from transpiler.sim.scenario import Scenario, scenario_from_document

TOOL = """
compositeTools:
- name: prune_tags
  description: Ask whether to prune old tags, then announce it if asked to
  parameters:
    type: object
    properties:
      repo: {type: string}
    required: [repo]
  steps:
  - id: ask
    type: elicitation
    message: "Prune the old tags of {{.params.repo}}?"
    schema:
      type: object
      properties:
        announce: {type: boolean}
    onDecline: {action: continue}
    onCancel: {action: continue}
  - id: announce
    tool: chat.post
    dependsOn: [ask]
    condition: "{{eq .steps.ask.output.content.announce true}}"
    arguments: {text: "old tags of {{.params.repo}} pruned"}
  output:
    properties:
      answer: {type: string, description: The answer, value: "{{.steps.ask.output.action}}"}
      announce:
        type: boolean
        description: Whether to announce
        value: "{{.steps.ask.output.content.announce}}"
        default: false
"""


def _tool() -> LoadedTool:
    load = load_bytes(TOOL.encode(), "prune.yaml")
    assert not load.errors, [d.render() for d in load.errors]
    return load.tools[0]


def _answered(action: str) -> Scenario:
    return scenario_from_document(
        {
            "params": {"repo": "acme/web"},
            "backends": {"chat.post": {"results": [{"structuredContent": {}}]}},
            "elicitations": [{"action": action}],
        }
    )


@pytest.mark.parametrize("action", ["decline", "cancel"])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_continued_answer_without_content_goes_on_as_in_vmcp(action: str, engine: str) -> None:
    tool, scenario = _tool(), _answered(action)
    vmcp = run_composite(tool.effective, scenario)
    assert vmcp.outcome == "success", vmcp.error
    _, script = emitted_run(tool, scenario, "readable", engine)
    assert script.outcome == vmcp.outcome
    assert script.output == vmcp.output == {"answer": action, "announce": False}
    assert [c.tool for c in script.calls] == [c.tool for c in vmcp.calls] == []
    report = gate_report(tool, scenario, "readable", engine)
    assert report.passes(None), report.reason
