"""Witnesses a person can read: each observed class's site, and vMCP's value there beside the
script's, read off the runs at that site (never another class's difference)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from transpiler.composite import run_composite
from transpiler.config.loader import load_paths
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.reporting.reports import markdown, witness_json
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool

#: Witnesses of behaviour: the entry lists vMCP's annotations, so none is a listing one.
OPTIONS = CheckOptions(examples=0, paths=64, target=THV_0051_ANNOTATIONS)

FILE_ISSUE = """\
compositeTools:
  - name: file_issue
    description: File an issue that carries a count
    parameters:
      type: object
      properties:
        count: {type: integer}
      required: [count]
    steps:
      - id: open_issue
        tool: github.create_issue
        arguments: {body: "count: {{.params.count}}"}
"""
FILE_ISSUE_SCRIPT = """\
def run(params):
    return call_tool("github.create_issue", {"body": "count: %d" % params["count"]})
"""

ISSUE_TITLE = """\
compositeTools:
  - name: issue_title
    description: The title of an issue
    steps:
      - id: fetch
        tool: github.get_issue
        arguments: {number: "1"}
    output:
      properties:
        title: {type: string, description: Title, value: "{{.steps.fetch.output.title}}"}
"""
ISSUE_TITLE_SCRIPT = """\
def run(params):
    issue = call_tool("github.get_issue", {"number": "1"})
    title = issue.get("title")
    return {"title": "" if title == None else str(title)}
"""

RELEASE = """\
compositeTools:
  - name: release
    description: Release once someone confirms
    steps:
      - id: confirm
        type: elicitation
        message: Release?
        schema: {type: object, properties: {ok: {type: boolean}}}
        onDecline: {action: skip_remaining}
      - id: deploy
        tool: ci.deploy
        dependsOn: [confirm]
        arguments: {ref: main}
    output:
      properties:
        url: {type: string, description: URL, value: "{{.steps.deploy.output.url}}"}
"""
# A declined run returns at once with an empty URL (skip-remaining's return, and then
# missing-value's empty text for the URL no step gave); a deployment without a URL gives the
# same empty text (one choice at the site, whatever the scenario).
RELEASE_SCRIPT = """\
def run(params):
    answer = elicit("Release?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    if answer.action == "decline":
        return {"url": ""}
    if answer.action != "accept":
        fail("cancelled")
    deploy = call_tool("ci.deploy", {"ref": "main"})
    url = deploy.get("url")
    return {"url": "" if url == None else str(url)}
"""


def _report(config: str, script: str, classes: tuple[Deviation, ...], tmp_path: Path) -> ToolReport:
    path = tmp_path / "tools.yaml"
    path.write_text(config)
    (tool,) = load_paths([path]).tools
    header = "\n".join([f"# {TITLE}", *(header_item(c) for c in classes)])
    return check_tool(tool, OPTIONS, script=f"{header}\n\n{script}")


def _checked(
    config: str, script: str, classes: tuple[Deviation, ...], tmp_path: Path
) -> ToolReport:
    report = _report(config, script, classes, tmp_path)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason
    assert set(report.witnesses) == set(classes), report.witnesses
    return report


def _site(report: ToolReport, deviation: Deviation) -> dict[str, Any]:
    """The witness's own fields: site, variant, what the values are and both values."""
    found = witness_json(report.witnesses[deviation])
    return {key: found[key] for key in ("site", "variant", "shows", "vmcp", "script")}


def test_number_text_shows_the_argument_at_its_site(tmp_path: Path) -> None:
    report = _checked(
        FILE_ISSUE, FILE_ISSUE_SCRIPT, (Deviation.ERROR_TEXT, Deviation.NUMBER_TEXT), tmp_path
    )
    site = _site(report, Deviation.NUMBER_TEXT)
    assert site["site"] == {"step": "open_issue", "place": "arguments.body"}
    assert site["variant"] == "digits"
    assert site["shows"] == "argument body of the call to github.create_issue"
    assert (site["vmcp"], site["script"]) in {
        ("count: 1e+06", "count: 1000000"),
        ("count: 1.5e+06", "count: 1500000"),
    }


def test_error_text_shows_the_outcome_and_failing_step(tmp_path: Path) -> None:
    report = _checked(
        FILE_ISSUE, FILE_ISSUE_SCRIPT, (Deviation.ERROR_TEXT, Deviation.NUMBER_TEXT), tmp_path
    )
    site = _site(report, Deviation.ERROR_TEXT)
    assert site["site"] == {"step": None, "place": "result"}
    assert site["variant"] == "own-text"
    assert site["shows"] == "the run's outcome"
    cause = "connection reset"  # the smallest failing scenario: a transport error
    assert site["vmcp"] == {
        "outcome": "error",
        "step": "open_issue",
        "error": "level execution failed: tool call failed: tool github.create_issue in step "
        f"open_issue: {cause}",
    }
    assert site["script"]["outcome"] == "error" and site["script"]["step"] == "open_issue"
    assert site["script"]["error"].startswith("call_tool: github.create_issue")


def test_missing_value_shows_the_output_field(tmp_path: Path) -> None:
    classes = (Deviation.ERROR_TEXT, Deviation.MISSING_VALUE, Deviation.VALUE_TEXT)
    report = _checked(ISSUE_TITLE, ISSUE_TITLE_SCRIPT, classes, tmp_path)
    assert _site(report, Deviation.MISSING_VALUE) == {
        "site": {"step": None, "place": "output.title"},
        "variant": "empty",
        "shows": "output field title",
        "vmcp": "<no value>",
        "script": "",
    }


def test_two_classes_in_one_scenario_each_get_their_own_values(tmp_path: Path) -> None:
    """The declined run shows skip-remaining (the deployment never runs) and missing-value
    (the URL no step gave prints empty): each class's witness holds its own site's values."""
    classes = (
        Deviation.ERROR_TEXT,
        Deviation.MISSING_VALUE,
        Deviation.SKIP_REMAINING,
        Deviation.VALUE_TEXT,
    )
    report = _checked(RELEASE, RELEASE_SCRIPT, classes, tmp_path)
    skipped, missing = (
        report.witnesses[Deviation.SKIP_REMAINING],
        report.witnesses[Deviation.MISSING_VALUE],
    )
    assert skipped.scenario.to_json() == missing.scenario.to_json()
    assert _site(report, Deviation.SKIP_REMAINING) == {
        "site": {"step": "confirm", "place": "onDecline"},
        "variant": "return",
        "shows": "the status of the steps after the answer",
        "vmcp": {"deploy": "completed"},
        "script": {"deploy": "skipped"},
    }
    assert _site(report, Deviation.MISSING_VALUE) == {
        "site": {"step": None, "place": "output.url"},
        "variant": "empty",
        "shows": "output field url",
        "vmcp": "<no value>",
        "script": "",
    }


def test_markdown_shows_the_values_side_by_side(tmp_path: Path) -> None:
    report = _checked(
        FILE_ISSUE, FILE_ISSUE_SCRIPT, (Deviation.ERROR_TEXT, Deviation.NUMBER_TEXT), tmp_path
    )
    witness = report.witnesses[Deviation.NUMBER_TEXT]
    assert witness.site is not None
    vmcp, script = witness.site.vmcp, witness.site.script
    text = markdown([report], None)
    assert (
        "number-text (digits) at step open_issue, arguments.body: argument body of the call to "
        f'github.create_issue\n  vMCP:   "{vmcp}"\n  script: "{script}"\n'
    ) in text
    assert "error-text (own-text) at result: the run's outcome\n  vMCP:   error at step " in text


def test_a_long_value_is_cut_saying_its_length(tmp_path: Path) -> None:
    long_body = FILE_ISSUE.replace('"count: {{', '"' + "x" * 300 + " count: {{")
    script = FILE_ISSUE_SCRIPT.replace('"count: %d"', '"' + "x" * 300 + ' count: %d"')
    report = _checked(long_body, script, (Deviation.ERROR_TEXT, Deviation.NUMBER_TEXT), tmp_path)
    witness = report.witnesses[Deviation.NUMBER_TEXT]
    assert witness.site is not None and len(witness.site.vmcp) > 300
    text = markdown([report], None)
    assert '  vMCP:   "' + "x" * 100 in text
    assert f"… ({len(json.dumps(witness.site.vmcp))} characters)\n" in text
    assert "x" * 300 not in text
    assert witness_json(witness)["vmcp"] == witness.site.vmcp  # the JSON report has it all


POST_NOTE = """\
compositeTools:
  - name: post_note
    description: Post a ticket's note as JSON
    steps:
      - id: fetch
        tool: tickets.get
        arguments: {id: "1"}
      - id: post
        tool: chat.post
        dependsOn: [fetch]
        arguments:
          body: "{{json .steps.fetch.output.note}}"
          empty: '{{if eq .steps.fetch.output.note "<none>"}}yes{{else}}no{{end}}'
"""
POST_NOTE_SCRIPT = """\
def run(params):
    note = call_tool("tickets.get", {"id": "1"})["note"]
    empty = "yes" if note == "<none>" else "no"
    return call_tool("chat.post", {"body": json.encode(note), "empty": empty})
"""


def test_json_text_shows_its_own_site(tmp_path: Path) -> None:
    """json-text's witness names the site where vMCP's encoding and the script's differ, with
    both values."""
    classes = (Deviation.ERROR_TEXT, Deviation.JSON_TEXT, Deviation.MISSING_VALUE)
    path = tmp_path / "tools.yaml"
    path.write_text(POST_NOTE)
    (tool,) = load_paths([path]).tools
    header = "\n".join([f"# {TITLE}", *(header_item(c) for c in classes)])
    report = check_tool(tool, OPTIONS, script=f"{header}\n\n{POST_NOTE_SCRIPT}")
    assert Deviation.JSON_TEXT in report.witnesses, report.reason
    site = _site(report, Deviation.JSON_TEXT)
    assert site["site"] == {"step": "post", "place": "arguments.body"}
    assert site["variant"] == "encode"
    assert site["shows"] == "argument body of the call to chat.post"
    assert "\\u003c" in site["vmcp"] and "<" in site["script"]


def test_two_choices_at_one_site_in_two_scenarios_differ(tmp_path: Path) -> None:
    """One choice per site, the same in every scenario: a script that prints a missing URL as
    empty text when the release was declined but as vMCP's `<no value>` when the deployment
    gave none takes two choices at `output.url`, which no one reading explains."""
    two_ways = RELEASE_SCRIPT.replace(
        '"" if url == None else str(url)', '"<no value>" if url == None else str(url)'
    )
    assert two_ways != RELEASE_SCRIPT
    classes = (
        Deviation.ERROR_TEXT,
        Deviation.MISSING_VALUE,
        Deviation.SKIP_REMAINING,
        Deviation.VALUE_TEXT,
    )
    assert _report(RELEASE, two_ways, classes, tmp_path).verdict is Verdict.DIFFERS


TYPED = """\
compositeTools:
  - name: typed
    description: Send typed values to a backend that declares their types
    parameters:
      type: object
      properties:
        count: {type: integer}
        ratio: {type: number}
        on: {type: boolean}
      required: [count, ratio, on]
    steps:
      - id: send
        tool: svc.typed
        arguments: {count: "{{.params.count}}", ratio: "{{.params.ratio}}", on: "{{.params.on}}"}
"""
TYPED_SCHEMA = {
    "svc.typed": {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
        },
    }
}


def test_the_tools_file_is_what_the_backends_advertise(tmp_path: Path) -> None:
    """With ``--tools``, the scenarios' backends advertise those inputSchemas, so vMCP coerces
    the arguments by them (as the script written against them expects): the emitted script
    passes, and argument-coercion's witness is the text vMCP could not parse."""
    path = tmp_path / "tools.yaml"
    path.write_text(TYPED)
    (tool,) = load_paths([path]).tools
    options = replace(OPTIONS, tool_schemas=TYPED_SCHEMA)
    report = check_tool(tool, options)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason
    site = _site(report, Deviation.ARGUMENT_COERCION)
    assert site["variant"] == "as-is"
    assert site["site"]["place"].startswith("arguments.")
    assert isinstance(site["vmcp"], str) and not isinstance(site["script"], str)


DEPLOY_STATUS = """\
compositeTools:
  - name: deploy_status
    description: The status a deployment reports
    steps:
      - id: deploy
        tool: argocd.sync_application
        arguments: {application: api}
      - id: announce
        tool: slack.post_message
        dependsOn: [deploy]
        arguments: {text: "status: {{.steps.deploy.output.status}}"}
    output:
      properties:
        status:
          type: string
          description: Sync status
          value: "{{.steps.deploy.output.status}}"
          default: unknown
"""
# The status printed as Starlark prints it (value-text), and returned as the backend gave it
# (output-rendering: not rendered to text and parsed back), so value-text's variant changes
# nothing the script returns.
DEPLOY_STATUS_SCRIPT = """\
def run(params):
    deploy = call_tool("argocd.sync_application", {"application": "api"})
    call_tool("slack.post_message", {"text": "status: %s" % deploy["status"]})
    return {"status": deploy.get("status", "unknown")}
"""


def test_vmcp_s_value_is_vmcp_s_behaviour_for_every_class_at_the_site(tmp_path: Path) -> None:
    classes = (
        Deviation.ERROR_TEXT,
        Deviation.MISSING_VALUE,
        Deviation.OUTPUT_RENDERING,
        Deviation.VALUE_TEXT,
    )
    report = _report(DEPLOY_STATUS, DEPLOY_STATUS_SCRIPT, classes, tmp_path)
    witness = report.witnesses[Deviation.OUTPUT_RENDERING]
    (tool,) = load_paths([tmp_path / "tools.yaml"]).tools
    vmcp = run_composite(tool.effective, witness.scenario).client_result["structuredContent"]
    assert witness.site is not None and witness.site.place == "output.status"
    assert witness.site.vmcp == vmcp["status"]
    assert _site(report, Deviation.OUTPUT_RENDERING)["vmcp"] == "true"
