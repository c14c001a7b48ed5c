"""The script reader follows the ways a script passes a value on.

``for i, x in enumerate(xs)`` makes ``x`` each item of ``xs``; ``a or b`` is the
one read either side gives (``answer.content or {}``); ``retry(f)`` gives what
``f`` returns. A probe that changes a value the script branches on is itself a
base for the other probes, so a read only that branch makes (a default taken
from another answer's field, behind a backend's answer) meets its probes. A
list parameter also holds one item twice, so a script that drops duplicates
shows it. A value the script makes a whole number (``int(x)``, ``"%d" % x``)
meets a fraction.
"""

from __future__ import annotations

from tests.harness.edits import edited_report
from transpiler.config.loader import load_bytes
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions
from transpiler.harness.scenarios.scriptreads import ELICITATION, ITEMS, PARAMS, Read, script_reads


def test_an_enumerated_item_is_an_item_of_what_is_enumerated() -> None:
    reads = script_reads(
        "def run(params):\n"
        '    for i, t in enumerate(params["tickets"]):\n'
        '        call_tool("t.label", {"id": t["id"].strip(), "at": i})\n'
    )
    assert reads.transformed[Read(PARAMS, ("tickets", ITEMS, "id"))] == [(" ", " ")]


def test_either_side_of_or_is_the_read_it_gives() -> None:
    reads = script_reads(
        "def run(params):\n"
        '    answer = elicit("Why?", {})\n'
        '    call_tool("audit.log", {"reason": (answer.content or {}).get("reason")})\n'
    )
    assert Read(ELICITATION, ("reason",)) in reads.reads


def test_a_retried_call_reads_its_tool() -> None:
    reads = script_reads(
        "def run(params):\n"
        '    fetched = retry(lambda: call_tool("git.fetch", {}), max_attempts=3)\n'
        '    return fetched.get("url", "none")\n'
    )
    assert Read("git.fetch", ("url",)) in reads.defaulted


WORKFLOW = b"""
compositeTools:
- name: mirror
  description: Mirror a repository and say so when the webhook fails
  parameters:
    type: object
    properties:
      repo: {type: string}
    required: [repo]
  steps:
  - id: fetch
    tool: git.fetch
    arguments: {repo: "{{.params.repo}}"}
  - id: hook
    tool: hooks.fire
    dependsOn: [fetch]
    arguments: {repo: "{{.params.repo}}"}
    onError: {action: continue}
    defaultResults: {delivered: false}
  - id: alert
    tool: chat.post
    dependsOn: [hook]
    condition: "{{not .steps.hook.output.delivered}}"
    arguments: {text: "webhook failed; head {{.steps.fetch.output.head}}"}
"""


def test_a_field_read_only_behind_an_answer_s_branch_meets_its_probes() -> None:
    (tool,) = load_bytes(WORKFLOW, "mirror.yaml").tools
    options = CheckOptions(examples=0, engines=("rust",))
    before, after = '% fetch["head"]', '% fetch.get("url", fetch["head"])'
    assert edited_report(tool, options, before, after).verdict is Verdict.DIFFERS


LABELS = b"""
compositeTools:
- name: label_all
  description: Label each ticket
  parameters:
    type: object
    properties:
      tickets: {type: array, items: {type: string}}
    required: [tickets]
  steps:
  - id: label
    type: forEach
    collection: "{{json .params.tickets}}"
    step: {id: one, tool: tracker.label, arguments: {ticket: "{{.forEach.item}}"}}
"""


def test_a_list_parameter_holds_one_item_twice() -> None:
    (tool,) = load_bytes(LABELS, "labels.yaml").tools
    options = CheckOptions(examples=0, engines=("rust",))
    before = 'label_items = params["tickets"]'
    after = 'label_items = {t: None for t in params["tickets"]}.keys()'
    assert edited_report(tool, options, before, after).verdict is Verdict.DIFFERS


def test_a_value_made_a_whole_number_is_read() -> None:
    reads = script_reads(
        "def run(params):\n"
        '    s = call_tool("health.get", {})\n'
        '    return "%s: %5.1f%% of %d (%i)" % (s["name"], s["ratio"], s["total"], int(s["n"]))\n'
    )
    assert reads.whole == [Read("health.get", ("total",)), Read("health.get", ("n",))]


PAGE = b"""
compositeTools:
- name: page_when_unhealthy
  description: Page with the score when a service is unhealthy
  steps:
  - id: health
    tool: svc.health
    onError: {action: continue}
    defaultResults: {score: 0, healthy: false}
  - id: page
    tool: pager.trigger
    dependsOn: [health]
    condition: "{{not .steps.health.output.healthy}}"
    arguments: {summary: "score {{.steps.health.output.score}}"}
  output:
    properties:
      score: {type: integer, description: the score, value: "{{.steps.health.output.score}}"}
"""


def test_a_number_printed_as_a_whole_number_meets_a_fraction() -> None:
    (tool,) = load_bytes(PAGE, "page.yaml").tools
    options = CheckOptions(examples=0, engines=("rust",))
    before, after = '"score %s" % health["score"]', '"score %d" % health["score"]'
    assert edited_report(tool, options, before, after).verdict is Verdict.DIFFERS
