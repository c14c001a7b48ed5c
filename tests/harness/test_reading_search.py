"""The reading search finds the per-site reading a correct script takes, or says what it tried.

A hand port may keep vMCP's ``<no value>`` where a field never exists and print every other
missing field as empty text: ``missing-value`` with vMCP's behaviour at some sites and
``empty`` at the others. The search once only added variants, so after it took ``empty`` at
every site of the class at once (the nearest run when most sites print empty text) it could
not take it back where the script keeps ``<no value>``, and refused a correct script with a
bare list of argument differences. A refusal must name what it tried; a search that met a
bound decides nothing (``incomplete``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpiler.composite import run_composite
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.deviations import Deviation
from transpiler.gobuild import go_available
from transpiler.harness.judging import readings
from transpiler.harness.judging.readings import VMCP_CHOICE, Readings
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.sim.scenario import scenario_from_document
from transpiler.starlark_runtime import run_starlark

#: Fields every answer of reports.get may hold, and fields no step record ever has (vMCP
#: prints ``<no value>`` for them in every run).
FIELDS = ("summary", "author", "team", "due")
NEVER = ("link", "reference")

WORKFLOW = f"""
compositeTools:
  - name: file_report
    description: File a report's summary in the tracker
    parameters:
      type: object
      properties:
        title: {{type: string, description: Report title}}
      required: [title]
    steps:
      - id: fetch
        tool: reports.get
        arguments: {{title: "{{{{.params.title}}}}"}}
      - id: file
        tool: tracker.create
        dependsOn: [fetch]
        arguments:
          title: "{{{{.params.title}}}}"
{"".join(f'          {f}: "{{{{.steps.fetch.output.{f}}}}}"{chr(10)}' for f in FIELDS)}\
{"".join(f'          {f}: "{{{{.steps.fetch.{f}}}}}"{chr(10)}' for f in NEVER)}\
"""

HEADER = """\
# file_report, ported by hand.
#
# Where it differs from vMCP (see docs/deviations.md):
#   - error-text: failures carry the script's own wording, not vMCP's
#   - missing-value: a missing field reads as empty text, where vMCP sends `<no value>`
#   - number-text: whole numbers of a million or more print as digits
#   - value-text: booleans, maps and lists print as Starlark text
#   - rust-engine: on starlark-rust only, some numbers differ
#   - listing: clients see no annotations

def text(value):
    return "" if value == None else str(value)

"""

#: What a port may send for a field that never exists: vMCP's text, or a variant's value.
KEPT = {VMCP_CHOICE: '"<no value>"', "empty": '""'}
ENGINES = ["rust", pytest.param("go", marks=pytest.mark.go)]


def port(never: Sequence[str], missing: str = "text") -> str:
    """A hand port of ``file_report``: each field that never exists sent as ``never`` says (a
    Starlark expression), each other one printed by ``missing`` (empty text when missing)."""
    sent = [f'        "{f}": {missing}(fetch.get("{f}")),' for f in FIELDS]
    sent += [f'        "{f}": {value},' for f, value in zip(NEVER, never, strict=True)]
    return (
        HEADER
        + "def run(params):\n"
        + '    fetch = call_tool("reports.get", {"title": params["title"]})\n'
        + '    return call_tool("tracker.create", {\n'
        + '        "title": params["title"],\n'
        + "\n".join(sent)
        + "\n    })\n"
    )


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW.encode(), "file_report.yaml").tools[0]


def _checked(script: str, engine: str, examples: int = 10, paths: int = 16) -> ToolReport:
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    options = CheckOptions(examples=examples, paths=paths, engines=(engine,))
    return check_tool(_tool(), options, script=script)


#: Every field of reports.get missing at once: four sites print empty text, two keep vMCP's.
ALL_MISSING = {
    "tool": "file_report",
    "params": {"title": "q3"},
    "backends": {
        "reports.get": {"results": [{"structuredContent": {}}]},
        "tracker.create": {"results": [{"structuredContent": {"id": 1}}]},
    },
}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_variant_taken_at_every_site_of_its_class_is_taken_back_where_the_script_keeps_vmcp(
    engine: str,
) -> None:
    """The first scenario the search sees has every field missing: ``empty`` at every site of
    ``missing-value`` at once comes nearest, and the two sites that keep ``<no value>`` must go
    back to vMCP's behaviour from there."""
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tool = _tool().effective
    scenario = scenario_from_document(ALL_MISSING)
    script = run_starlark(port([KEPT[VMCP_CHOICE]] * 2), scenario, engine=engine)
    search = Readings(tool, frozenset({Deviation.MISSING_VALUE}))
    found = search.match(scenario, run_composite(tool, scenario), False, script, engine)
    assert found is not None, search.refusal and search.refusal.lines()
    taken = {site[2]: choice for site, choice in found.used.items()}
    assert {taken.get(f"arguments.{f}", VMCP_CHOICE) for f in NEVER} == {VMCP_CHOICE}
    assert {taken[f"arguments.{f}"] for f in FIELDS} == {"empty"}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_hand_port_that_keeps_no_value_in_two_templates_passes(engine: str) -> None:
    report = _checked(port([KEPT[VMCP_CHOICE]] * 2), engine)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason
    assert Deviation.MISSING_VALUE in report.witnesses


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    never=st.lists(st.sampled_from(sorted(KEPT)), min_size=len(NEVER), max_size=len(NEVER)),
    missing=st.sampled_from(["text", "kept"]),
)
def test_any_one_choice_per_site_passes(engine: str, never: list[str], missing: str) -> None:
    """Each site takes its own choice, the same in every scenario: vMCP's text or empty text
    where a field never exists; empty text, or vMCP's own text, for every other missing
    field."""
    script = port([KEPT[choice] for choice in never], missing)
    script += '\ndef kept(value):\n    return "<no value>" if value == None else str(value)\n'
    report = _checked(script, engine, examples=5, paths=8)
    assert report.passes(None), report.reason


@pytest.mark.parametrize("engine", ENGINES)
def test_a_refusal_names_each_site_and_the_choices_tried_there(engine: str) -> None:
    """``n/a`` where a field never exists is no choice of any site: refused, with the nearest
    reading and every choice tried at each site, that one's included."""
    report = _checked(port(['"n/a"', KEPT[VMCP_CHOICE]]), engine)
    assert report.verdict is Verdict.DIFFERS, report.reason
    example = report.counterexample
    assert example is not None and example.bound is None
    assert any("no reading explains it" in line for line in example.advice), example.advice
    (tried,) = [line for line in example.advice if line.startswith("tried from there")]
    assert "step file, arguments.link (" in tried
    for choice in ("vmcp", "stop", "empty", "none", "default"):
        assert choice in tried.split("arguments.link (")[1].split(")")[0]
    (calls,) = [d for d in example.differences if d.field == "calls"]
    assert '"n/a"' in calls.script and '"link": "<no value>"' in calls.composite


def test_a_refusal_with_no_site_says_only_vmcp_is_allowed() -> None:
    """A script declaring no class with variants: nothing was tried, and the refusal says why."""
    script = "".join(
        line for line in port(['""', '""']).splitlines(keepends=True) if "missing-value" not in line
    )
    assert "missing-value" not in script
    report = _checked(script, "rust")
    assert report.verdict is Verdict.DIFFERS
    assert report.counterexample is not None
    assert any("only vMCP's behaviour" in line for line in report.counterexample.advice)


def test_a_search_that_meets_its_bound_decides_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """With too few runs to go from vMCP's behaviour to the script's reading, the verdict is
    incomplete and names the bound, never differs."""
    monkeypatch.setattr(readings, "RUNS_PER_READING", 2)
    report = _checked(port([KEPT[VMCP_CHOICE]] * 2), "rust")
    assert report.verdict is Verdict.INCOMPLETE, report.reason
    assert report.counterexample is not None
    assert "readings.RUNS_PER_READING" in (report.counterexample.bound or "")
    assert "RUNS_PER_READING" in report.reason
    assert not report.passes(None)
