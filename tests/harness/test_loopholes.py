"""A declared class is a semantics, not an excuse: wrong edits of certified scripts are rejected.

Each case edits a hand-written script the gate passes (``corpus/goldens/handwritten``) in a
way a person might, so that it behaves differently from its workflow outside anything its
declared classes allow, and checks both engines reject it (issue 20's loopholes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.emit.test_readable import HANDWRITTEN, SPECIFIED
from transpiler.config.loader import load_paths
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.gobuild import go_available
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ENGINES, CheckOptions, ToolReport, check_tool

OPTIONS = CheckOptions(
    examples=20, paths=32, engines=ENGINES if go_available(needs_starlark=True) else ("rust",)
)


def checked(name: str, old: str = "", new: str = "") -> ToolReport:
    """The gate's report on the hand-written script ``name`` with ``old`` replaced by ``new``."""
    path, tool_name = SPECIFIED[name]
    tool = next(t for t in load_paths([REPO_ROOT / path]).tools if t.effective.name == tool_name)
    script = (HANDWRITTEN / f"{name}.star").read_text()
    assert old in script, old
    return check_tool(tool, OPTIONS, script=script.replace(old, new, 1))


EDITS = {
    # missing-value fires on every run (output.results is never there): it must not excuse
    # an argument dropped elsewhere, a skipped item or another tool called.
    "co-occurring class, argument dropped": (
        "scan_image_packages",
        '            "ecosystem": str(pkg["ecosystem"]),\n',
        "",
    ),
    "co-occurring class, first item skipped": (
        "scan_image_packages",
        "        for pkg in packages\n",
        "        for pkg in packages[1:]\n",
    ),
    "co-occurring class, another tool called": (
        "scan_image_packages",
        'call_tool("osv.query"',
        'call_tool("oci.get_image_packages"',
    ),
    "co-occurring class, wrong count": (
        "scan_image_packages",
        '"scanned": len(packages)',
        '"scanned": len(packages) + 1',
    ),
    # missing-value's variants are stop, empty text, None and the output's default: an
    # invented default is none of them.
    "invented default": (
        "deploy_with_approval",
        '(pr_number, merge["sha"])',
        '(pr_number, merge.get("sha", "HEAD"))',
    ),
    # number-text lets the number print as digits at its own site, nothing else.
    "a number decides the environment": (
        "deploy_with_approval",
        '"environment": str(approval.content["environment"]),',
        '"environment": "production" if pr_number >= 1000000 else '
        'str(approval.content["environment"]),',
    ),
    # skip-remaining's variant returns at once: a declined run that still deploys is wrong.
    "declined, then deployed": (
        "interactive_workflow",
        '        return {"action": "decline", "skipped": True}\n',
        '        call_tool("deploy_app", {})\n'
        '        return {"action": "decline", "skipped": True}\n',
    ),
    # the main path of a fromJson'd answer is reached.
    "fromJson main path: a call dropped": (
        "research_topic",
        '    call_tool("arxiv_download_paper", {"paper_id": paper_id})\n',
        "",
    ),
    "fromJson main path: another item read": (
        "research_topic",
        '["papers"][0]["id"]',
        '["papers"][-1]["id"]',
    ),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_wrong_edit_is_rejected(case: str) -> None:
    name, old, new = EDITS[case]
    report = checked(name, old, new)
    assert report.verdict is Verdict.DIFFERS, (case, report.verdict, report.reason)


@pytest.mark.parametrize("name", sorted({name for name, _, _ in EDITS.values()}))
def test_the_unedited_script_passes(name: str) -> None:
    report = checked(name)
    assert report.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), report.reason


FETCH = """\
compositeTools:
  - name: fetch_user
    description: Fetch a user
    steps:
      - id: fetch
        tool: user.get
        arguments: {user_id: "{{.params.user_id}}"}
    output:
      properties:
        name: {type: string, description: Name, value: "{{.steps.fetch.output.name}}"}
"""
HEADER = "".join(
    f"{line}\n"
    for line in (
        f"# {TITLE}",
        header_item(Deviation.ERROR_TEXT),
        header_item(Deviation.LISTING),  # THV-0051: the scripted tool lists no annotations
        header_item(Deviation.MISSING_VALUE),
        header_item(Deviation.OUTPUT_RENDERING),  # a number for the name is returned as it is
    )
)


def _fetch_user(script: str, tmp_path: Path) -> ToolReport:
    config = tmp_path / "fetch.yaml"
    config.write_text(FETCH)
    (tool,) = load_paths([config]).tools
    return check_tool(tool, OPTIONS, script=HEADER + script)


def test_a_parameter_no_schema_declares_is_still_sent(tmp_path: Path) -> None:
    """The ordinary run sends what templates read even without a parameter schema, so a script
    whose call is dropped cannot pass as one that stops at a parameter never given."""
    dropped = 'def run(params):\n    fetch = None\n    return {"name": fetch["name"]}\n'
    assert _fetch_user(dropped, tmp_path).verdict is Verdict.DIFFERS


def test_a_stop_that_no_scenario_settles_is_still_reported(tmp_path: Path) -> None:
    """A script that stops where a parameter is missing takes missing-value's stop; that the
    failure's site is never settled does not hide the class from the verdict."""
    stops = (
        "def run(params):\n"
        '    fetch = call_tool("user.get", {"user_id": params["user_id"]})\n'
        '    return {"name": fetch["name"]}\n'
    )
    report = _fetch_user(stops, tmp_path)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason
    assert "missing-value" in report.observed and "missing-value" in report.witnesses


def test_the_certificate_says_what_the_workflow_reached(tmp_path: Path) -> None:
    """Coverage: each step's statuses, each elicitation's answers, and a note naming any step
    no scenario completed."""
    report = checked("deploy_with_approval")
    coverage = report.certificate["coverage"]
    assert set(coverage["steps"]) == {"merge", "approval", "deploy", "announce"}
    assert "completed" in coverage["steps"]["deploy"] and coverage["never_completed"] == []
    assert {"accept", "failed"} <= set(coverage["elicitation_answers"]["approval"])
    never = FETCH.replace(
        "        tool: user.get\n", '        tool: user.get\n        condition: "{{eq 1 2}}"\n'
    )
    config = tmp_path / "never.yaml"
    config.write_text(never)
    (tool,) = load_paths([config]).tools
    script = 'def run(params):\n    return {"name": "<no value>"}\n'
    options = replace(OPTIONS, target=THV_0051_ANNOTATIONS)  # an entry listed as vMCP lists it
    skipped = check_tool(tool, options, script=script)
    assert skipped.certificate["coverage"]["never_completed"] == ["fetch"]
    # A step no scenario completed: incomplete (exit 1), naming it and why, until the policy
    # accepts that gap by name.
    assert skipped.verdict is Verdict.INCOMPLETE and not skipped.passes(None)
    assert "fetch: skipped in every scenario" in skipped.reason
    assert "--accept-gap fetch_user/fetch" in skipped.reason
    accepted = check_tool(
        tool, replace(options, accept_gaps=frozenset({"fetch_user/fetch"})), script=script
    )
    assert accepted.verdict is Verdict.EQUIVALENT
    assert any("accepted gap" in note for note in accepted.notes)


LOOPHOLES = REPO_ROOT / "corpus" / "loopholes"


def _answer(scenario: dict[str, Any], tool: str) -> Any:
    """The first result ``tool`` gives in a scenario document."""
    return scenario["backends"][tool]["results"][0]


def _map_beside_boolean(scenario: dict[str, Any]) -> bool:
    record = _answer(scenario, "audit.get_record")["structuredContent"]
    values = [record.get("archived"), *record.get("labels", {}).values()]
    return isinstance(record.get("labels"), dict) and any(v is True for v in values)


def _numeric_id(scenario: dict[str, Any]) -> bool:
    payload = json.loads(_answer(scenario, "ci.get_build")["structuredContent"]["payload"])
    return isinstance(payload["id"], int | float) and not isinstance(payload["id"], bool)


def _falsy_urgent(scenario: dict[str, Any]) -> bool:
    ticket = _answer(scenario, "tickets.get")["structuredContent"]
    return "urgent" in ticket and not ticket["urgent"]


def _full_loop_failing(scenario: dict[str, Any]) -> bool:
    images = _answer(scenario, "registry.list_images")["structuredContent"]["images"]
    scan = _answer(scenario, "scanner.scan")
    return len(images) == 6 and ("isError" in scan or "transportError" in scan)


#: Each wrong script of ``corpus/loopholes`` and the kind of scenario that shows it, which the
#: generator once never made.
GAPS = {
    "audit_note": _map_beside_boolean,
    "announce_build": _numeric_id,
    "route_ticket": _falsy_urgent,
    "scan_release": _full_loop_failing,
}
#: The tools of ``corpus/loopholes`` with a right script.
RIGHT = [*sorted(GAPS), "publish_notes"]
BOTH = ["rust", pytest.param("go", marks=pytest.mark.go)]


def _checked_loophole(name: str, engine: str, script: Path) -> ToolReport:
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tools = load_paths([LOOPHOLES / "workflows.yaml"]).tools
    (tool,) = [t for t in tools if t.effective.name == name]
    return check_tool(tool, CheckOptions(engines=(engine,)), script=script.read_text())


@pytest.mark.parametrize("engine", BOTH)
@pytest.mark.parametrize("name", sorted(GAPS))
def test_a_wrong_script_the_generator_once_missed_differs(name: str, engine: str) -> None:
    report = _checked_loophole(name, engine, LOOPHOLES / f"{name}.star")
    assert report.counterexample is not None, (report.verdict, report.reason)
    # Where vMCP's schedules are too many to try them all, the refusal says so and decides
    # nothing: not a pass, and not a claim that no schedule of vMCP's does what the script does.
    bounded = report.counterexample.bound is not None
    expected = Verdict.INCOMPLETE if bounded else Verdict.DIFFERS
    assert report.verdict is expected, (report.verdict, report.reason)
    assert GAPS[name](report.counterexample.scenario.to_json()), report.reason


@pytest.mark.parametrize("engine", BOTH)
@pytest.mark.parametrize("name", RIGHT)
def test_the_same_tool_done_right_passes(name: str, engine: str) -> None:
    report = _checked_loophole(name, engine, LOOPHOLES / "right" / f"{name}.star")
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason


def _result(scenario: dict[str, Any], tool: str) -> Any:
    """What ``tool``'s first result carries in a scenario document (JSON text decoded)."""
    return _answer(scenario, tool)["structuredContent"]


def _payload(scenario: dict[str, Any]) -> Any:
    return json.loads(_result(scenario, "ci.get_build")["payload"])


def _answered(scenario: dict[str, Any], name: str, value: Any) -> bool:
    return any(
        a.get("content", {}).get(name) == value and type(a["content"][name]) is type(value)
        for a in scenario.get("elicitations", [])
    )


def _images(scenario: dict[str, Any]) -> list[Any]:
    images: list[Any] = _result(scenario, "registry.list_images")["images"]
    return images


#: Wrong edits of the right scripts of ``corpus/loopholes``, each needing a kind of scenario
#: the generator once never made: (tool, the right script's text replaced, by what, what the
#: counterexample shows).
WRONG_EDITS: dict[str, tuple[str, str, str, Callable[[dict[str, Any]], bool]]] = {
    "branches on a field no template reads": (
        "route_ticket",
        '    channel = "urgent" if urgent else "triage"\n',
        '    channel = "urgent" if urgent or ticket.get("priority") == "P1" else "triage"\n',
        lambda s: _result(s, "tickets.get").get("priority") == "P1",
    ),
    "takes a text the script compares with as false": (
        "route_ticket",
        '    channel = "urgent" if urgent else "triage"\n',
        '    channel = "urgent" if urgent and urgent != "no" else "triage"\n',
        lambda s: _result(s, "tickets.get").get("urgent") == "no",
    ),
    "an enum's second value handled apart": (
        "publish_notes",
        '"where": str(answer.content["target"]),',
        '"where": "wiki" if answer.content["target"] == "blog" else answer.content["target"],',
        lambda s: _answered(s, "target", "blog"),
    ),
    "a boolean answer no template reads, false": (
        "publish_notes",
        '    if answer.action != "accept":\n',
        '    if answer.action != "accept" or answer.content.get("draft") == False:\n',
        lambda s: _answered(s, "draft", False),
    ),
    "invents a default for a field inside JSON text": (
        "announce_build",
        'show(payload["id"])',
        'show(payload.get("id", params["build"]))',
        lambda s: "id" not in _payload(s),
    ),
    "a number inside JSON text cut to a whole one": (
        "announce_build",
        "    return json.encode(value)\n",
        "    return json.encode(int(value) if type(value) == \"float\" else value)\n",
        lambda s: isinstance(_payload(s).get("id"), float),
    ),
    "scans each image once": (
        "scan_release",
        "        for image in images\n",
        "        for image in {str(i[\"name\"]): i for i in images}.values()\n",
        lambda s: len(_images(s)) == 2 and _images(s)[0] == _images(s)[1],
    ),
    "json without HTML escapes": (
        "publish_notes",
        '    return text.replace("<", "\\\\u003c")',
        '    return text.replace("<", "<")',
        lambda s: "<" in json.dumps(_result(s, "changes.list")),
    ),
    "a map's keys printed in insertion order": (
        "audit_note",
        "    return json.encode(value)\n",
        '    return "{" + ",".join(["%s:%s" % (json.encode(k), json.encode(value[k])) '
        'for k in value]) + "}" if type(value) == "dict" else json.encode(value)\n',
        lambda s: list(_result(s, "audit.get_record").get("labels", {}))[-1:] == ["0"],
    ),
}


@pytest.mark.parametrize("engine", BOTH)
@pytest.mark.parametrize("case", sorted(WRONG_EDITS))
def test_a_wrong_edit_of_a_right_script_differs(case: str, engine: str) -> None:
    name, old, new, shows = WRONG_EDITS[case]
    right = (LOOPHOLES / "right" / f"{name}.star").read_text()
    assert old in right, old
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tools = load_paths([LOOPHOLES / "workflows.yaml"]).tools
    (tool,) = [t for t in tools if t.effective.name == name]
    report = check_tool(tool, CheckOptions(engines=(engine,)), script=right.replace(old, new, 1))
    assert report.verdict is Verdict.DIFFERS, (report.verdict, report.reason)
    assert report.counterexample is not None
    assert shows(report.counterexample.scenario.to_json()), report.reason
