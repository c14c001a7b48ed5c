"""``index M "k"``: an absent key and a null value are two sites of ``missing-value``.

vMCP's ``index`` gives nil for both, but a script tells them apart (``m["k"]`` stops on an
absent key and gives ``None`` for a null one), as it does for a field read; so the readable
script ``emit`` writes passes. Where a script takes two choices at one site, the refusal
names the site and both choices.
"""

from __future__ import annotations

import pytest

from transpiler.config.loader import load_bytes
from transpiler.gobuild import go_available
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.sim.scenario import scenario_from_document

WORKFLOW = """
compositeTools:
  - name: copy_title
    description: Copy a user's title to the CRM
    parameters:
      type: object
      properties:
        email: {type: string}
      required: [email]
    steps:
      - id: user
        tool: directory.lookup
        arguments:
          email: "{{.params.email}}"
      - id: update
        tool: crm.update_contact
        dependsOn: [user]
        arguments:
          title: '{{index .steps.user.output.attributes "title"}}'
"""

#: The title is sent as ``""`` for one address and as ``None`` for every other: two choices
#: at the site of a null title.
TWO_WAYS = """\
# copy_title, ported by hand.
#
# Where it differs from vMCP (see docs/deviations.md):
#   - error-text: own failure texts
#   - missing-value: a missing title stops the script; a null one is sent as text
#   - value-text: maps print as Starlark text
#   - listing: no annotations

def run(params):
    user = call_tool("directory.lookup", {"email": params["email"]})
    title = user["attributes"]["title"]
    if title == None and params["email"] == "quiet":
        title = ""
    return call_tool("crm.update_contact", {"title": str(title)})
"""

ENGINES = ["rust", pytest.param("go", marks=pytest.mark.go)]


def _checked(engine: str, script: str | None = None, *documents: object) -> ToolReport:
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tool = load_bytes(WORKFLOW.encode(), "copy_title.yaml").tools[0]
    scenarios = tuple(scenario_from_document(document) for document in documents)
    options = CheckOptions(examples=16, paths=16, engines=(engine,), scenarios=scenarios)
    return check_tool(tool, options, script=script)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_emitted_script_passes(engine: str) -> None:
    report = _checked(engine)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason


def _null_title(email: str) -> dict[str, object]:
    return {
        "tool": "copy_title",
        "params": {"email": email},
        "backends": {
            "directory.lookup": {
                "results": [{"structuredContent": {"attributes": {"title": None}}}]
            },
            "crm.update_contact": {"results": [{"structuredContent": {}}]},
        },
    }


def test_two_choices_at_one_site_are_named() -> None:
    report = _checked("rust", TWO_WAYS, _null_title("loud"), _null_title("quiet"))
    assert report.verdict is Verdict.DIFFERS, report.reason
    assert report.counterexample is not None
    text = "\n".join(report.counterexample.advice)
    site = "missing-value at step update, arguments.title (null): earlier scenarios need"
    conflict = next((line for line in text.splitlines() if site in line), None)
    assert conflict is not None, text
    assert "none" in conflict and "empty" in conflict, conflict
