"""Findings: vMCP quirks on a tool's ordinary run, and which of them come from simulated values."""

from __future__ import annotations

from transpiler.config.loader import load_bytes
from transpiler.harness.running.check import Finding, findings
from transpiler.harness.scenarios.analysis import analyse

TOOLS = b"""
compositeTools:
- name: digest
  description: Findings of both kinds
  steps:
  - id: fetch
    tool: svc.fetch
  output:
    properties:
      counted:
        type: string
        description: a number the backend answers, printed into a string property
        value: "{{.steps.fetch.output.count}}"
      total:
        type: integer
        description: the same number, so the run's backend answers a number there
        value: "{{.steps.fetch.output.count}}"
      constant:
        type: object
        description: text that is never JSON
        value: "not json"
        default: {}
"""


def _findings() -> dict[str, Finding]:
    (tool,) = load_bytes(TOOLS, "digest.yaml").tools
    return {finding.site: finding for finding in findings(analyse(tool.effective))}


def test_a_finding_from_the_workflow_alone_is_stated_as_it_is() -> None:
    constant = _findings()["output.constant"]
    assert constant.unless is None
    assert "with the simulator's backend values only" not in constant.render()


def test_a_finding_from_the_simulator_s_values_names_values_where_it_does_not_fire() -> None:
    counted = _findings()["output.counted"]
    assert counted.unless == "numbers written as text"
    assert counted.render().endswith(
        "; with the simulator's backend values only, not with numbers written as text"
    )


LOOP = b"""
compositeTools:
- name: each
  description: A collection printed from a backend field, when it has one
  steps:
  - id: list
    tool: svc.list
  - id: visit
    type: forEach
    dependsOn: [tell]
    collection: "{{with .steps.list.output.items}}{{.}}{{else}}[]{{end}}"
    step:
      id: one
      tool: svc.visit
      arguments: {value: "{{.forEach.item}}"}
  - id: tell
    tool: svc.tell
    dependsOn: [list]
    arguments: {names: "{{.steps.list.output.names}} ({{len .steps.list.output.names}})"}
"""


def test_a_free_text_finding_names_a_text_under_which_the_workflow_runs() -> None:
    (tool,) = load_bytes(LOOP, "each.yaml").tools
    failing = next(f for f in findings(analyse(tool.effective)) if f.deviation == "template-error")
    assert failing.site == "collection" and failing.unless == "the text '[\"ok\"]'"
