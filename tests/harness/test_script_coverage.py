"""Coverage of the script: which call sites of host builtins and which lines its scenarios
reached, and a call site none reached leaves the verdict ``incomplete`` until accepted."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.emit_templates.starlark import ENGINES, GO_SKIP
from transpiler.cli import main
from transpiler.config.loader import load_paths
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.config.units import LoadedTool
from transpiler.emit.library import LIBRARY_NAME, library_text
from transpiler.gobuild import go_available
from transpiler.harness.coverage.coverage import ScriptCoverage
from transpiler.harness.coverage.scriptmap import script_map
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool
from transpiler.sim.scenario import scenario_from_document
from transpiler.starlark_runtime import SCRIPT_FILENAME, run_starlark

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
#: Coverage of behaviour: the entry lists vMCP's annotations, so no listing class shows.
OPTIONS = CheckOptions(examples=20, paths=16, target=THV_0051_ANNOTATIONS)
HEADER = (
    "# Where it differs from vMCP (see docs/deviations.md):\n"
    "#   - error-text: the script's own wording\n"
    "#   - step-timeout: no deadline of its own for step pull\n"
)
#: sync_inventory's hand-written script with a branch no scenario takes: line 6 calls a tool
#: only for a parameter the tool does not have.
DEAD_BRANCH = HEADER + (
    "def run(params):\n"
    '    if params.get("never_set_by_any_scenario") == "x":\n'
    '        call_tool("cmdb.export_assets", {"format": "csv"})\n'
    "    return retry(\n"
    '        lambda: call_tool("cmdb.export_assets", {"format": "json", '
    '"include_retired": False}),\n'
    "        max_attempts=4,\n"
    '        delay="2s",\n'
    "    )\n"
)


def _sync_inventory() -> LoadedTool:
    return next(t for t in load_paths([EXAMPLE]).tools if t.effective.name == "sync_inventory")


def _script_coverage(report: ToolReport) -> dict[str, Any]:
    coverage: dict[str, Any] = report.certificate["coverage"]["script"]
    return coverage


@pytest.mark.parametrize("engine", ENGINES)
def test_a_call_site_no_scenario_reaches_makes_the_verdict_incomplete(engine: str) -> None:
    options = replace(OPTIONS, engines=(engine,))
    report = check_tool(_sync_inventory(), options, script=DEAD_BRANCH)
    assert report.verdict is Verdict.INCOMPLETE and not report.passes(None)
    assert 'line:6: call_tool `call_tool("cmdb.export_assets", {"format": "csv"})`' in (
        report.reason
    )
    assert "--accept-gap sync_inventory/line:6" in report.reason
    coverage = _script_coverage(report)
    assert coverage["never_reached"] == [
        {
            "at": "line:6",
            "builtin": "call_tool",
            "text": 'call_tool("cmdb.export_assets", {"format": "csv"})',
        }
    ]
    reached = {site["at"]: site["scenarios"] for site in coverage["call_sites"]}
    assert reached["line:6"] == {}
    assert reached["line:7"] == reached["line:8"] == {engine: report.scenarios}
    accepted = check_tool(
        _sync_inventory(),
        replace(options, accept_gaps=frozenset({"sync_inventory/line:6"})),
        script=DEAD_BRANCH,
    )
    assert accepted.verdict is Verdict.EQUIVALENT_EXCEPT and accepted.passes(None)
    assert any(note.startswith("accepted gap sync_inventory/line:6") for note in accepted.notes)


def test_the_certificate_and_the_reports_carry_the_script_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "sync.star"
    script.write_text(DEAD_BRANCH)
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    arguments = [
        "check",
        str(EXAMPLE),
        "--script",
        str(script),
        "--tool",
        "sync_inventory",
        "--examples",
        "10",
        "--paths",
        "8",
        "--target",
        str(THV_0051_ANNOTATIONS),
        "--counterexamples",
        str(tmp_path / "ce"),
        "--report-json",
        str(report),
        "--report-md",
        str(markdown),
    ]
    assert main(arguments) == 1
    (tool,) = json.loads(report.read_text())["tools"]
    assert tool["verdict"] == "incomplete"
    coverage = tool["certificate"]["coverage"]["script"]
    assert [site["at"] for site in coverage["call_sites"]] == ["line:6", "line:7", "line:8"]
    assert coverage["lines"]["statements"] == 4
    assert coverage["lines"]["shown_run"] == [4, 5, 7]
    assert coverage["lines"]["not_shown_run"] == [6]
    text = markdown.read_text()
    row = re.search(r"^\| \*\*(PASS|FAIL)\*\* \| `sync_inventory` \|", text, re.M)
    assert row is not None and "| 2/3 |" in text
    assert "Call sites of the script no scenario reached:" in text
    assert '- `line:6` `call_tool`: `call_tool("cmdb.export_assets", {"format": "csv"})`' in text
    # The policy accepts the gap by the same name.
    (tmp_path / "vmcp-transpile.yaml").write_text("accept_gaps: [sync_inventory/line:6]\n")
    config = tmp_path / "vmcp-config.yaml"
    config.write_bytes(EXAMPLE.read_bytes())
    arguments[1] = str(config)
    assert main(arguments) == 0
    assert "accepted gap sync_inventory/line:6" in json.dumps(json.loads(report.read_text()))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_positions_the_engines_report_are_the_call_sites_of_the_parse(engine: str) -> None:
    """Every call a run makes lands on a listed site (starlark-rust by its line, go.starlark.net
    by its parenthesis, counted in characters), through calls across lines, inside brackets,
    after wide characters, of a parenthesised name, in lambdas and in a loaded module."""
    module = 'def helper(x):\n    return try_call_tool("t.x", {"x": x})\n'
    script = (
        'load("lib.star", "helper")\n'
        "def run(params):\n"
        '    log("ééé"); call_tool("t.x", {})\n'
        '    (call_tool) ("t.x", {"n": 4})\n'
        "    both = parallel([\n"
        '        lambda: call_tool("t.x", {"n": 1}),\n'
        '        lambda: call_tool (\n            "t.x", {"n": 2}),\n'
        "    ])\n"
        '    got = [elicit("ok?", {}), call_tool\n        ("t.x", {"n": 3})]\n'
        '    return {"r": retry(lambda: helper(1), max_attempts=2)}\n'
    )
    world = {"backends": {"t.x": {"results": [{"structuredContent": {"ok": True}}]}}}
    trace = run_starlark(
        script, scenario_from_document(world), engine=engine, modules={"lib.star": module}
    )
    assert trace.outcome == "success", trace.error
    mapped = script_map(script, {"lib.star": module}, SCRIPT_FILENAME)
    coverage = ScriptCoverage(mapped)
    coverage.add(engine, trace.reach)
    assert not coverage.unlisted and not coverage.never_reached()
    assert len(mapped.sites) == 10 and all(site.reachable for site in mapped.sites)
    assert [s.where(SCRIPT_FILENAME) for s in mapped.sites][-1] == "lib.star:2"


def test_only_calls_of_the_builtins_themselves_are_call_sites() -> None:
    """A name the file or an enclosing function binds is not the builtin; a module's function
    no reachable part names is listed but not expected to run."""
    module = (
        "def used(x):\n    return inner(x)\n"
        'def inner(x):\n    return call_tool("t.x", x)\n'
        'def unused():\n    return elicit("never asked", {})\n'
    )
    script = (
        'load("lib.star", alias = "used")\n'
        "def log(message):\n    return message\n"
        "def run(params, retry = None):\n"
        '    log("mine")\n'
        '    retry("not the builtin")\n'
        '    f = lambda parallel: parallel("a parameter")\n'
        "    return alias(params)\n"
    )
    mapped = script_map(script, {"lib.star": module}, SCRIPT_FILENAME)
    assert [(s.where(SCRIPT_FILENAME), s.builtin, s.reachable) for s in mapped.sites] == [
        ("lib.star:4", "call_tool", True),
        ("lib.star:6", "elicit", False),
    ]


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("def run(params):\n    return {}  # a NUL \x00 in a comment\n", "a NUL byte on line 2"),
        ("def run(params):\n    return {1 +}\n", "parser"),
        ("def run(params):\n        x = 1\n\treturn {}\n", "parser"),
    ],
)
def test_a_script_the_parser_cannot_read_records_nothing_and_says_why(
    source: str, why: str
) -> None:
    mapped = script_map(source, {}, SCRIPT_FILENAME)
    assert not mapped.sites and not mapped.statements
    (unread,) = mapped.unread
    assert unread.file == SCRIPT_FILENAME and why in unread.why


def test_a_lone_carriage_return_is_read_as_vmcp_reads_it() -> None:
    """go.starlark.net ends a comment at a lone carriage return: the call after it is code,
    and a call site of the map."""
    source = 'def run(params):\n    return {}  # a note\r    log("after the note")\n'
    mapped = script_map(source, {}, SCRIPT_FILENAME)
    assert not mapped.unread
    assert [(s.line, s.builtin) for s in mapped.sites] == [(3, "log")]


def test_a_script_the_parser_cannot_read_is_incomplete_not_a_pass() -> None:
    """Its call sites are unknown, so none can be shown reached: the verdict says so, names
    the file and why, and passes only once that gap is accepted by name."""
    # go.starlark.net reads a tab as the next stop of 8; Python's parser refuses the mix
    script = HEADER + (
        "def run(params):\n"
        "        attempts = 4\n"
        "\treturn retry(\n"
        '        lambda: call_tool("cmdb.export_assets", {"format": "json", '
        '"include_retired": False}),\n'
        "        max_attempts=attempts,\n"
        '        delay="2s",\n'
        "    )\n"
    )
    report = check_tool(_sync_inventory(), OPTIONS, script=script)
    assert report.verdict is Verdict.INCOMPLETE and not report.passes(None), report.reason
    assert "the parser could not read the script's call sites in script.star:unread" in (
        report.reason
    )
    assert "--accept-gap sync_inventory/script.star:unread" in report.reason
    coverage = _script_coverage(report)
    assert coverage["call_sites"] == [] and coverage["unread"]
    if go_available(needs_starlark=True):
        # starlark-rust refuses tabs: the script runs on go.starlark.net, which reads them
        assert report.engines == ("go",), report.engines
        accepted = check_tool(
            _sync_inventory(),
            replace(OPTIONS, accept_gaps=frozenset({"sync_inventory/script.star:unread"})),
            script=script,
        )
        assert accepted.passes(None), accepted.reason
        assert any("accepted gap sync_inventory/script.star:unread" in n for n in accepted.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_lines_are_those_a_stack_or_an_error_shows(engine: str) -> None:
    """The statements on a stack at a builtin call or where an error arose, those before them
    in their blocks and those enclosing them, and the top level: the same on both engines."""
    script = (
        "LIMIT = 3\n"  # 1
        "def pick(result, key):\n"  # 2
        "    found = result[key]\n"  # 3
        "    return found\n"  # 4
        "def run(params):\n"  # 5
        "    total = 0\n"  # 6
        "    for n in range(LIMIT):\n"  # 7
        "        total += n\n"  # 8
        '        result = call_tool("t.x", {})\n'  # 9
        "    if total > 100:\n"  # 10
        '        log("never")\n'  # 11
        '    return {"r": pick(result, "missing")}\n'  # 12
    )
    world = {"backends": {"t.x": {"results": [{"structuredContent": {"ok": True}}]}}}
    trace = run_starlark(script, scenario_from_document(world), engine=engine)
    assert trace.outcome == "error"
    coverage = ScriptCoverage(script_map(script, {}, SCRIPT_FILENAME))
    coverage.add(engine, trace.reach)
    lines = coverage.to_json()["lines"]
    assert lines["shown_run"] == [1, 2, 3, 5, 6, 7, 8, 9, 10, 12]
    assert lines["not_shown_run"] == [4, 11]
    assert [site["at"] for site in coverage.to_json()["never_reached"]] == ["line:11"]


@pytest.mark.parametrize("engine", ENGINES)
def test_calls_of_one_builtin_on_one_line_are_told_apart_on_go_only(engine: str) -> None:
    """starlark-rust's stack gives a caller's line, not its column: there, two calls of one
    builtin on one line are reached together."""
    script = (
        "def run(params):\n"
        '    r = call_tool("t.x", {}) if True else call_tool("t.x", {"never": 1})\n'
        "    return r\n"
    )
    world = {"backends": {"t.x": {"results": [{"structuredContent": {"ok": True}}]}}}
    trace = run_starlark(script, scenario_from_document(world), engine=engine)
    coverage = ScriptCoverage(script_map(script, {}, SCRIPT_FILENAME))
    coverage.add(engine, trace.reach)
    never = [site.paren for site in coverage.never_reached()]
    assert never == ([] if engine == "rust" else [(2, 52)])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_builtin_called_by_another_name_is_an_unlisted_call(engine: str) -> None:
    script = 'ask = log\ndef run(params):\n    ask("hi")\n    return {}\n'
    trace = run_starlark(script, scenario_from_document({}), engine=engine)
    coverage = ScriptCoverage(script_map(script, {}, SCRIPT_FILENAME))
    coverage.add(engine, trace.reach)
    assert coverage.to_json()["unlisted_calls"] == [
        {"at": f"{SCRIPT_FILENAME}:3", "builtin": "log", "scenarios": {engine: 1}}
    ]


@GO_SKIP
@pytest.mark.go
def test_both_engines_reach_the_same_call_sites_and_lines() -> None:
    tool = _sync_inventory()
    report = check_tool(tool, replace(OPTIONS, engines=("rust", "go")), script=DEAD_BRANCH)
    for site in _script_coverage(report)["call_sites"]:
        assert site["scenarios"].get("rust") == site["scenarios"].get("go"), site


FORMS = {"readable": ("readable", False), "exact": ("exact", False), "inline": ("exact", True)}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_corpus_scripts_leave_no_call_site_unreached(form: str) -> None:
    """Every emitted script of corpus/example and corpus/goldens (the goldens are those
    scripts) reaches each reachable call site on every engine, and every call lands on a
    listed site."""
    style, inline = FORMS[form]
    engines = ("rust", "go") if go_available(needs_starlark=True) else ("rust",)
    options = CheckOptions(
        examples=20, paths=32, engines=engines, style=style, inline_helpers=inline
    )
    for tool in load_paths([EXAMPLE, CORPUS / "goldens" / "workflows.yaml"]).tools:
        report = check_tool(tool, options)
        gap = report.verdict is Verdict.INCOMPLETE and report.counterexample is None
        assert not gap, f"{report.tool}: {report.reason}"
        coverage = _script_coverage(report)
        assert coverage["unlisted_calls"] == [] and coverage["unread"] == [], report.tool


def test_the_parser_reads_every_script_of_the_corpus_and_the_helper_library() -> None:
    library = library_text()
    for path in sorted(CORPUS.rglob("*.star")):
        mapped = script_map(path.read_text(), {LIBRARY_NAME: library}, SCRIPT_FILENAME)
        assert mapped.unread == () and mapped.statements, path
        assert all(site.reachable for site in mapped.sites if site.file == SCRIPT_FILENAME)
