"""Code behind a branch meets every other outcome: the enumeration reaches it.

A step whose condition compares two backend answers runs only where those
answers meet; a step behind one elicitation answer runs only on that answer.
A script wrong only there (a default, a parameter's default, a retry count, a
sequential loop in place of vMCP's parallel one) must be refused by the outcome
combinations alone (no random scenarios), in either style.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.harness.edits import edited_report
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.happy import expected

#: ``alert`` runs only when the spending reaches the budget (two answers compared), and
#: then reads the budget's ``defaultResults`` when ``budget`` fails, and its owner (which
#: an answer may lack).
COMPARED = b"""
compositeTools:
- name: budget_alert
  description: Alert when spending reaches the budget
  parameters:
    type: object
    properties:
      team: {type: string}
      level: {type: string, default: info}
    required: [team]
  steps:
  - id: spend
    tool: costs.spend
    arguments: {team: "{{.params.team}}"}
  - id: budget
    tool: costs.budget
    arguments: {team: "{{.params.team}}"}
    onError: {action: continue}
    defaultResults: {cap: 500.0, owner: nobody}
  - id: alert
    tool: chat.alert
    dependsOn: [spend, budget]
    condition: '{{ge .steps.spend.output.total .steps.budget.output.cap}}'
    arguments:
      text: "{{.params.team}} spent {{.steps.spend.output.total}}"
      level: "{{.params.level}}"
      owner: "{{.steps.budget.output.owner}}"
    onError: {action: retry, retryCount: 2, retryDelay: 1s}
    defaultResults: {id: none}
  output:
    properties:
      alerted: {type: string, description: the alert, value: "{{.steps.alert.output.id}}"}
      spent: {type: number, description: the spending, value: "{{.steps.spend.output.total}}"}
"""

#: ``prune`` deletes each tag only when the user answers ``prune`` (the first literal is
#: ``keep``), all at once.
ANSWERED = b"""
compositeTools:
- name: prune_tags
  description: Ask, then prune a repository's old tags
  parameters:
    type: object
    properties:
      repo: {type: string}
    required: [repo]
  steps:
  - id: tags
    tool: git.tags
    arguments: {repo: "{{.params.repo}}"}
  - id: ask
    type: elicitation
    dependsOn: [tags]
    message: "Prune {{len .steps.tags.output.names}} tags of {{.params.repo}}?"
    schema: {type: object, properties: {mode: {type: string, enum: [keep, prune]}}}
    onDecline: {action: abort}
    onCancel: {action: abort}
  - id: keep
    tool: git.protect
    dependsOn: [ask]
    condition: '{{eq .steps.ask.output.content.mode "keep"}}'
    arguments: {repo: "{{.params.repo}}"}
  - id: prune
    type: forEach
    dependsOn: [ask]
    condition: '{{eq .steps.ask.output.content.mode "prune"}}'
    collection: "{{json .steps.tags.output.names}}"
    itemVar: tag
    step:
      id: delete_tag
      tool: git.delete_tag
      arguments: {repo: "{{.params.repo}}", tag: "{{.forEach.tag}}"}
    defaultResults: {count: 0}
  output:
    properties:
      pruned: {type: integer, description: pruned tags, value: "{{.steps.prune.output.count}}"}
"""

WORKFLOWS = {"compared": COMPARED, "answered": ANSWERED}

#: (workflow, style, what the emitted script holds, the wrong edit).
MUTANTS = {
    "default read behind the comparison": (
        "compared",
        "readable",
        '"cap": 500,',
        '"cap": 600,',
    ),
    "invented default for a field read only behind the comparison": (
        "compared",
        "readable",
        'str(budget["owner"])',
        'str(budget.get("owner", "nobody"))',
    ),
    "exact: invented default for a field read only behind the comparison": (
        "compared",
        "exact",
        'go_text(go_map_get(budget, "owner"))',
        'go_text(budget.get("owner", "nobody"))',
    ),
    "parameter default behind the comparison": (
        "compared",
        "readable",
        'params.get("level", "info")',
        'params.get("level", "warn")',
    ),
    "exact: default read behind the comparison": (
        "compared",
        "exact",
        '"cap": 500.0,',
        '"cap": 501.0,',
    ),
    "exact: retries behind the comparison": (
        "compared",
        "exact",
        "max_attempts=3",
        "max_attempts=2",
    ),
    "loop made sequential behind the answer": (
        "answered",
        "readable",
        "parallel([\n                lambda tag=tag: call_tool(",
        "list([\n                call_tool(",
    ),
}
OPTIONS = CheckOptions(examples=0, engines=("rust",))


def _tool(name: str) -> LoadedTool:
    return load_bytes(WORKFLOWS[name], f"{name}.yaml").tools[0]


def test_compared_reads_take_values_at_each_others_boundary() -> None:
    call = expected(analyse(_tool("compared").effective))
    # The budget's cap is a number like the spending it is compared with, and the
    # spending meets it (ordinary and default) and goes past it.
    total = call.answers["costs.spend"][0]["total"]
    cap = call.answers["costs.budget"][0]["cap"]
    assert isinstance(cap, float) and cap != total
    assert {new for old, new in call.compared if old == total} >= {cap, 500}


@pytest.mark.parametrize(
    ("style", "name"), [("readable", "compared"), ("exact", "compared"), ("readable", "answered")]
)
def test_the_emitted_script_passes(style: str, name: str) -> None:
    report = check_tool(_tool(name), replace(OPTIONS, style=style))
    assert report.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), report.reason


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_wrong_script_behind_the_branch_is_told_apart(mutant: str) -> None:
    name, style, before, after = MUTANTS[mutant]
    tool = _tool(name)
    # As ``check`` emits it (its header declares what the listing differs in).
    report = edited_report(tool, replace(OPTIONS, style=style), before, after)
    # Told apart, or (a loop's schedules past the search's bound) refused undecided.
    assert report.verdict in (Verdict.DIFFERS, Verdict.INCOMPLETE), f"{mutant!r} survived"
    assert report.counterexample is not None


#: ``scale`` runs only when the load is over the parameter's threshold.
OVER = b"""
compositeTools:
- name: scale_when_busy
  description: Scale a service when its load passes a threshold
  parameters:
    type: object
    properties:
      service: {type: string}
      threshold: {type: number, default: 80}
    required: [service]
  steps:
  - id: load
    tool: metrics.load
    arguments: {service: "{{.params.service}}"}
  - id: scale
    tool: k8s.scale
    dependsOn: [load]
    condition: '{{gt .steps.load.output.percent .params.threshold}}'
    arguments: {service: "{{.params.service}}"}
"""


def test_a_comparison_rounded_to_whole_numbers_is_told_apart() -> None:
    (tool,) = load_bytes(OVER, "over.yaml").tools
    before = 'load_2["percent"] > params.get("threshold", 80)'
    after = 'load_2["percent"] >= params.get("threshold", 80) + 1'
    assert edited_report(tool, OPTIONS, before, after).verdict is Verdict.DIFFERS
