"""A decline or cancel a ``continue`` handler passes is the workflow's declared path: a script
that stops there (at the answer's missing content, or by treating it as abort) is refused,
where ``missing-value``'s other variants still excuse how it reads that content."""

from __future__ import annotations

from pathlib import Path

from tests.harness.test_loopholes import OPTIONS
from transpiler.config.loader import load_paths
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ToolReport, check_tool

WORKFLOW = """\
compositeTools:
  - name: rotate_key
    description: Ask whether to rotate a key, and whether to tell the owner
    parameters:
      type: object
      properties:
        key: {type: string}
      required: [key]
    steps:
      - id: ask
        type: elicitation
        message: "Rotate {{.params.key}}?"
        schema:
          type: object
          properties:
            tell: {type: boolean}
        onDecline: {action: continue}
        onCancel: {action: continue}
      - id: tell
        tool: mail.send
        dependsOn: [ask]
        condition: "{{eq .steps.ask.output.content.tell true}}"
        arguments: {subject: "{{.params.key}} rotated"}
    output:
      properties:
        answer: {type: string, description: The answer, value: "{{.steps.ask.output.action}}"}
"""
HEADER = "".join(
    f"{line}\n"
    for line in (
        f"# {TITLE}",
        header_item(Deviation.ERROR_TEXT),
        header_item(Deviation.LISTING),
        header_item(Deviation.MISSING_VALUE),
        header_item(Deviation.CONDITION_TEXT),  # an answer's `tell` may be any JSON value
        header_item(Deviation.TEMPLATE_ERROR),
    )
)
SCHEMA = '{"type": "object", "properties": {"tell": {"type": "boolean"}}}'
ASK = f'    ask = elicit("Rotate %s?" % params["key"], {SCHEMA})\n'
TELL = '        call_tool("mail.send", {"subject": "%s rotated" % params["key"]})\n'
RETURN = '    return {"answer": ask.action}\n'


def _checked(reads_tell: str, tmp_path: Path, before_tell: str = "") -> ToolReport:
    config = tmp_path / "rotate.yaml"
    config.write_text(WORKFLOW)
    (tool,) = load_paths([config]).tools
    script = (
        f"{HEADER}def run(params):\n{ASK}{before_tell}    if {reads_tell} == True:\n{TELL}{RETURN}"
    )
    return check_tool(tool, OPTIONS, script=script)


def test_a_script_that_stops_at_a_continued_answers_content_is_refused(tmp_path: Path) -> None:
    report = _checked('ask.content["tell"]', tmp_path)
    assert report.verdict is Verdict.DIFFERS, report.reason


def test_a_script_that_treats_a_continued_decline_as_abort_is_refused(tmp_path: Path) -> None:
    abort = '    if ask.action != "accept":\n        fail("ask: the user answered " + ask.action)\n'
    report = _checked('ask.content["tell"]', tmp_path, before_tell=abort)
    assert report.verdict is Verdict.DIFFERS, report.reason


def test_reading_the_content_as_none_or_stopping_on_an_accepted_answer_passes(
    tmp_path: Path,
) -> None:
    """``none`` still applies at the read; ``stop`` still applies where an accepted answer
    lacks the field (the workflow's own gap, not its declared path)."""
    read = '(ask.content["tell"] if ask.action == "accept" else None)'
    report = _checked(read, tmp_path)
    assert report.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), report.reason
    lenient = _checked('(ask.content or {}).get("tell")', tmp_path)
    assert lenient.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), lenient.reason
