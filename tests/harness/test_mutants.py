"""Deliberate emitter bugs (mutants) must not survive the harness.

Each mutant edits the emitted script the way a plausible emitter bug would;
``check`` must find a scenario where the mutant differs from the workflow.
"""

from __future__ import annotations

import pytest

from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.emit.script import emit_script
from transpiler.harness.check import CheckOptions, check_tool

WORKFLOW = b"""
compositeTools:
- name: mutant_target
  description: Every construct a mutant below breaks
  parameters:
    type: object
    properties:
      who: {type: string}
      note: {type: string}
    required: [who]
  steps:
  - id: fetch
    tool: svc.fetch
    arguments: {who: "{{.params.who}}", note: "{{.params.note}}"}
    onError: {action: retry, retryCount: 2, retryDelay: 1s}
  - id: maybe
    tool: svc.maybe
    dependsOn: [fetch]
    condition: '{{eq .steps.fetch.output.state "ready"}}'
    defaultResults: {value: fallback}
  output:
    properties:
      value: {type: string, description: the value, value: "{{.steps.maybe.output.value}}"}
"""

MUTANTS = {
    "swapped branch": ("    if vmcp_condition(", "    if not vmcp_condition("),
    "dropped retry": ("max_attempts=3", "max_attempts=1"),
    "wrong default": ('{"value": "fallback"}', '{"value": "fallback!"}'),
    "lost <no value>": ('go_text(params.get("note", GO_MISSING))', 'params.get("note", "")'),
}


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW, "mutants.yaml").tools[0]


def test_the_unmutated_script_is_certified() -> None:
    assert check_tool(_tool(), CheckOptions(examples=60, paths=32)).verdict == "certified"


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_harness_kills_the_mutant(name: str) -> None:
    tool = _tool()
    script = emit_script(tool.effective, "mutants.yaml").script
    before, after = MUTANTS[name]
    assert before in script, f"the mutant {name!r} no longer applies to the emitted script"
    report = check_tool(
        tool, CheckOptions(examples=60, paths=32), script=script.replace(before, after, 1)
    )
    assert report.verdict == "differs", f"mutant {name!r} survived {report.scenarios} scenarios"
    assert report.counterexample is not None
