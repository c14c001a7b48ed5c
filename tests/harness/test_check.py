"""The relation, the check engine's report, and the ``check`` command."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.loader import load_bytes
from transpiler.deviations import Deviation
from transpiler.gobuild import go_unavailable, toolchain
from transpiler.golang.duration import parse_duration
from transpiler.harness.judging.relation import difference
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.profile import CALL_TIMEOUT_NS
from transpiler.sim.scenario import load_scenario, scenario_from_document
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark

BROKEN = b"""
compositeTools:
- name: broken_fallback
  description: A workflow whose script will be edited to use the wrong default
  steps:
  - id: fetch
    tool: svc.fetch
    onError: {action: continue}
    defaultResults: {state: offline}
  output:
    properties:
      state: {type: string, description: state, value: "{{.steps.fetch.output.state}}"}
"""


def _run(script: str, world: Any) -> Trace:
    return run_starlark(script, scenario_from_document(world))


def test_the_relation_strips_each_hosts_wrapper_only() -> None:
    world: dict[str, Any] = {"backends": {}}
    halted = _run('def run(params):\n    fail("level execution failed: boom")\n', world)
    other = _run('def run(params):\n    fail("level execution failed: bang")\n', world)
    assert difference(halted, halted) is None
    found = difference(halted, other)
    assert found is not None and found.field == "error text"


def test_the_relation_compares_calls_as_a_multiset() -> None:
    world: dict[str, Any] = {"backends": {"a.x": {"results": [{"structuredContent": {}}]}}}
    call = '    call_tool("a.x", {"n": 1})\n'
    one = _run("def run(params):\n" + call + "    return {}\n", world)
    two = _run("def run(params):\n" + call * 2 + "    return {}\n", world)
    found = difference(one, two)
    assert found is not None and found.field == "calls"


@pytest.mark.parametrize("style", ["readable", "exact"])
def test_a_difference_is_shrunk_reported_and_certified_as_differs(style: str) -> None:
    tool = load_bytes(BROKEN, "broken.yaml").tools[0]
    options = CheckOptions(examples=40, paths=8, style=style)
    report = check_tool(tool, options)
    assert report.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), report.reason
    assert report.emitted is not None
    wrong = report.emitted.script.replace('{"state": "offline"}', '{"state": "online"}')
    bad = check_tool(tool, options, emitted=replace(report.emitted, script=wrong))
    assert bad.verdict is Verdict.DIFFERS and bad.counterexample is not None
    assert bad.certificate["verdict"] == "differs"
    assert set(bad.certificate) >= {
        "file",
        "tool",
        "yaml_sha256",
        "script_sha256",
        "style",
        "engines",
        "interpreters",
        "seed",
        "paths",
        "scenarios",
        "verdict",
        "declared",
        "observed",
        "findings",
        "deviations_requested",
    }


def test_check_command_reports_and_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = {name: tmp_path / name for name in ("r.json", "r.xml", "r.md")}
    code = main(
        [
            "check",
            str(CORPUS / "goldens"),
            "--examples",
            "10",
            "--paths",
            "8",
            "--jobs",
            "1",
            "--report-json",
            str(reports["r.json"]),
            "--junit",
            str(reports["r.xml"]),
            "--report-md",
            str(reports["r.md"]),
        ]
    )
    assert code == 0
    data = json.loads(reports["r.json"].read_text())
    assert data["passed"] == data["total"] == len(load_bytes(
        (CORPUS / "goldens" / "workflows.yaml").read_bytes(), "workflows.yaml"
    ).tools)
    assert reports["r.xml"].read_text().startswith("<testsuite")
    assert "| `release_notes` |" in reports["r.md"].read_text()
    lines = reports["r.md"].read_text().splitlines()
    interpreters = next(line for line in lines if line.startswith("Interpreters:"))
    for name, version in _default_interpreters().items():
        assert f"{name} `{version}`" in interpreters
        assert f'<property name="{name}" value="{version}" />' in reports["r.xml"].read_text()
    for tool in data["tools"]:
        assert tool["certificate"]["interpreters"] == _default_interpreters()
    assert main(["check", str(tmp_path / "missing.yaml")]) == 2


def _default_interpreters() -> dict[str, str]:
    """The versions ``check`` records by default: go.starlark.net's where it can run (./dev
    installs Go), else starlark-rust's."""
    if go_unavailable() is None:
        return {"go": toolchain().version, "go.starlark.net": toolchain().starlark}
    return {"starlark-pyo3": importlib.metadata.version("starlark-pyo3")}


def test_a_saved_counterexample_replays_with_run(tmp_path: Path) -> None:
    config = tmp_path / "broken.yaml"
    config.write_bytes(BROKEN.replace(b"state}}", b"state}}-x"))
    tool = load_bytes(config.read_bytes(), str(config)).tools[0]
    emitted = check_tool(tool, CheckOptions(examples=0, paths=1)).emitted
    assert emitted is not None
    wrong = emitted.script.replace('{"state": "offline"}', '{"state": "x"}')
    options = CheckOptions(examples=20, paths=4)
    bad = check_tool(tool, options, emitted=replace(emitted, script=wrong))
    assert bad.counterexample is not None
    from transpiler.harness.reporting.reports import save_counterexample

    saved = Path(save_counterexample(bad.counterexample, tmp_path / "ce", str(config), bad.tool))
    assert saved.is_relative_to(tmp_path / "ce")
    assert load_scenario(saved).to_json() == bad.counterexample.scenario.to_json()


CONTENT_READER = b"""
compositeTools:
- name: content_reader
  description: One step prints another step's whole record, content included
  steps:
  - id: first
    tool: svc.first
  - id: second
    tool: svc.second
    dependsOn: [first]
    arguments: {prev: "{{index .steps \\"first\\"}}"}
"""


def test_a_tool_whose_content_is_read_never_answers_with_structured_content() -> None:
    """Domain: a script sees structuredContent or content items, never both, so scenarios
    for a tool whose step's ``.content`` is read carry content items only."""
    from random import Random

    from transpiler.harness.scenarios.analysis import analyse
    from transpiler.harness.scenarios.generate import scenarios
    from transpiler.harness.scenarios.happy import happy_scenario
    from transpiler.harness.scenarios.paths import combinations
    from transpiler.harness.scenarios.shapes import tool_shapes

    tool = load_bytes(CONTENT_READER, "content.yaml").tools[0].effective
    shapes = tool_shapes(analyse(tool))
    assert shapes.content_tools == {"svc.first"}
    rng = Random(7)
    drawn = [scenarios(shapes, tool.parameters, tool.name).draw(rng) for _ in range(200)]
    combined, _, _ = combinations(shapes, tool.name, {}, 50, 7)
    worlds = [*drawn, *combined, happy_scenario(analyse(tool))]

    def answers(tool_name: str) -> list[dict[str, Any]]:
        return [r for w in worlds for r in w.to_json()["backends"][tool_name]["results"]]

    assert not any("structuredContent" in r for r in answers("svc.first"))
    assert any("structuredContent" in r for r in answers("svc.second"))
    assert check_tool(
        load_bytes(CONTENT_READER, "content.yaml").tools[0], CheckOptions(examples=50)
    ).passes(None)


def test_sampled_paths_start_with_the_one_where_everything_succeeds() -> None:
    from transpiler.harness.scenarios.analysis import analyse
    from transpiler.harness.scenarios.paths import combinations, tool_answers
    from transpiler.harness.scenarios.shapes import tool_shapes

    tool = load_bytes(CONTENT_READER, "content.yaml").tools[0].effective
    shapes = tool_shapes(analyse(tool))
    for seed in range(5):
        chosen, total, _ = combinations(shapes, tool.name, {}, 3, seed)
        assert total > 3 and len(chosen) == 3
        first = chosen[0].to_json()["backends"]
        assert first == {t: tool_answers(shapes, t)[0] for t in shapes.tools}
    assert combinations(shapes, tool.name, {}, 0, 1)[0] == []


def test_certificates_are_identical_for_the_same_seed() -> None:
    """The same pairs and seed give the same certificates, whatever the hash seed and the
    worker count (scenarios are drawn from the seed alone)."""
    from tests.conftest import outputs_across_hash_seeds

    program = (
        "import contextlib, io, json, os, tempfile\n"
        "from pathlib import Path\n"
        "from transpiler.cli import main\n"
        "out = Path(tempfile.mkdtemp()) / 'r.json'\n"
        "jobs = '1' if os.environ['PYTHONHASHSEED'] == '0' else '2'\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['check', 'corpus/example', '--examples', '30', '--seed', '11', '--jobs', jobs,\n"
        "          '--report-json', str(out), '--counterexamples', str(out.parent)])\n"
        "print(json.dumps([t['certificate'] for t in json.loads(out.read_text())['tools']],\n"
        "                 sort_keys=True))\n"
    )
    outputs = outputs_across_hash_seeds(program, ("0", "1", "77"))
    assert len(outputs) == 1
    assert '"scenarios": ' in next(iter(outputs))


DEEP_ANSWER_READER = b"""
compositeTools:
- name: deep_reader
  description: Reads a field twelve levels down an elicitation answer
  steps:
  - id: ask
    type: elicitation
    message: Which?
    schema: {type: object, properties: {a: {type: string}}}
  - id: use
    tool: svc.use
    dependsOn: [ask]
    arguments: {v: "{{.steps.ask.output.content.a.b.c.d.e.f.g.h.i.j.k.l}}"}
"""


def _depth(value: Any) -> int:
    """Levels below ``value`` (a scalar or an empty container is 0)."""
    children = value.values() if isinstance(value, dict) else value
    if not isinstance(value, dict | list) or not value:
        return 0
    return 1 + max(_depth(child) for child in children)


def test_drawn_values_nest_no_deeper_than_hypothesis_would() -> None:
    """The bulk draws cover the strategy's values: ``recursive`` stops where hypothesis's does
    (three levels for six leaves), and elicitation answers stay within vMCP's 10 levels."""
    from random import Random

    from transpiler.composite.elicitation import _depth_problem
    from transpiler.harness.scenarios.analysis import analyse
    from transpiler.harness.scenarios.generate import JSON_VALUES, _within_depth, scenarios
    from transpiler.harness.scenarios.shapes import tool_shapes

    rng = Random(3)
    depths = {_depth(JSON_VALUES.draw(rng)) for _ in range(3000)}
    assert max(depths) == 3
    tool = load_bytes(DEEP_ANSWER_READER, "deep.yaml").tools[0].effective
    generator = scenarios(tool_shapes(analyse(tool)), tool.parameters, tool.name)
    answers = [
        answer["content"]
        for _ in range(300)
        for answer in generator.draw(rng).to_json()["elicitations"]
        if answer["action"] == "accept"
    ]
    assert answers and max(_depth(content) for content in answers) <= 10
    deep: Any = "leaf"
    for key in "lkjihgfedcba":
        deep = {key: deep}
    assert _depth(deep) == 12 and _depth(_within_depth(deep)) == 10
    assert _depth_problem(deep) is not None and _depth_problem(_within_depth(deep)) is None


def test_an_exact_for_each_under_abort_declares_the_parallel_cap() -> None:
    """maxParallel 2 under abort: when an iteration fails, vMCP has started two calls and a
    script's parallel() up to ten; the exact style declares parallel-cap and the harness shows
    it (it claimed "timing only" before)."""
    from transpiler.config.loader import load_paths

    tools = load_paths([CORPUS / "scenarios" / "N_for_each" / "tools.yaml"]).tools
    loop = next(t for t in tools if t.config.name == "for_each_parallel")
    report = check_tool(loop, CheckOptions(examples=60, style="exact", engines=("rust",)))
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT
    assert set(report.witnesses) == {Deviation.PARALLEL_CAP}


def test_no_progress_bar_in_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Off a terminal (a CI log), check prints no progress bar: only the report's lines."""
    code = main(
        [
            "check",
            str(CORPUS / "goldens"),
            "--examples",
            "10",
            "--paths",
            "8",
            "--jobs",
            "1",
            "--counterexamples",
            str(tmp_path),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.out
    assert "[#" not in captured.err and "[." not in captured.err, captured.err


def test_counterexamples_go_to_the_cache_not_the_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --counterexamples, a differing scenario is saved under the cache directory
    (outside the work tree) and its path printed; nothing is written where check runs."""
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TRANSPILER_CACHE", str(cache))
    script = work / "wrong.star"
    script.write_text('def run(params):\n    return call_tool("cmdb.export_assets", {})\n')
    config = CORPUS / "example" / "vmcp-config.yaml"
    options = ["--examples", "4", "--paths", "4", "--jobs", "1"]
    pair = ["--tool", "sync_inventory", "--script", str(script)]
    code = main(["check", str(config), *pair, *options])
    out = capsys.readouterr().out
    assert code == 1
    saved = sorted((cache / "counterexamples").rglob("*.yaml"))
    engine = "go" if go_unavailable() is None else "rust"  # the default
    assert [path.name for path in saved] == [f"sync_inventory.{engine}.scenario.yaml"]
    assert f"scenario saved to {saved[0]}" in out
    assert sorted(path.name for path in work.iterdir()) == ["wrong.star"]


def test_saved_scenarios_are_kept_apart_by_repository_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two repositories, or two files of one, each with a tool of one name: each differing
    scenario keeps its own file in the cache (none overwrites another)."""
    monkeypatch.setenv("TRANSPILER_CACHE", str(tmp_path / "cache"))
    options = ["--examples", "4", "--paths", "4", "--jobs", "1", "--tool", "sync_inventory"]
    printed = []
    for repository in ("one", "two"):
        work = tmp_path / repository
        for folder in ("a", "b"):
            (work / folder).mkdir(parents=True)
            shutil.copy(CORPUS / "example" / "vmcp-config.yaml", work / folder / "c.yaml")
        script = work / "wrong.star"
        script.write_text(f'def run(params):\n    return call_tool("cmdb.{repository}", {{}})\n')
        monkeypatch.chdir(work)
        for folder in ("a", "b"):
            code = main(["check", f"{folder}/c.yaml", "--script", str(script), *options])
            assert code == 1
            lines = capsys.readouterr().out.splitlines()
            printed += [line.split("saved to ")[1] for line in lines if "saved to" in line]
    saved = sorted((tmp_path / "cache" / "counterexamples").rglob("*.yaml"))
    assert len(saved) == len(set(printed)) == 4
    assert sorted(str(path) for path in saved) == sorted(printed)


TIMED = b"""
compositeTools:
- name: timed_sync
  description: One call a step allows thirty seconds
  timeout: 2m
  steps:
  - id: pull
    tool: cmdb.export
    timeout: 30s
"""


def test_a_step_timeout_is_declared_witnessed_and_a_finding() -> None:
    """A step's timeout has no counterpart in a script: the header declares step-timeout, a
    scenario where the call runs past it witnesses it, and the tool has a finding."""
    (timed,) = load_bytes(TIMED, "timed.yaml").tools
    report = check_tool(timed, CheckOptions(examples=20))
    assert Deviation.STEP_TIMEOUT in report.declared
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT
    witness = report.witnesses[Deviation.STEP_TIMEOUT]
    assert witness.site is not None and witness.site.place == "timeout"
    assert "context deadline exceeded" in str(witness.site.vmcp)
    assert "deadline" not in str(witness.site.script)
    assert [(f.deviation, f.step) for f in report.findings] == [(Deviation.STEP_TIMEOUT, "pull")]


def test_a_script_that_does_not_declare_a_step_timeout_differs_naming_it() -> None:
    (timed,) = load_bytes(TIMED, "timed.yaml").tools
    script = (
        "# Where it differs from vMCP (see docs/deviations.md):\n"
        "#   - error-text\n\n"
        'def run(params):\n    return call_tool("cmdb.export", {})\n'
    )
    report = check_tool(timed, CheckOptions(examples=20), script=script)
    assert report.verdict is Verdict.DIFFERS
    assert "step-timeout" in report.reason


def test_what_a_script_does_when_its_call_is_cut_is_checked_under_a_shorter_step_timeout() -> None:
    """The step allows thirty seconds, the script's call five minutes (and the tool thirty): a
    scenario answers past five minutes, so a script that makes up a result when its call is
    cut differs."""
    (timed,) = load_bytes(TIMED.replace(b"timeout: 2m", b"timeout: 30m"), "timed.yaml").tools
    script = (
        "# Where it differs from vMCP (see docs/deviations.md):\n"
        "#   - error-text\n"
        "#   - step-timeout\n\n"
        "def run(params):\n"
        '    found = try_call_tool("cmdb.export", {})\n'
        "    if found.ok:\n"
        "        return found.output\n"
        '    if "deadline" in found.error or "timeout" in found.error:\n'
        '        return {"rows": []}\n'
        "    fail(found.error)\n"
    )
    report = check_tool(timed, CheckOptions(examples=20), script=script)
    assert report.verdict is Verdict.DIFFERS, report.reason
    assert report.counterexample is not None
    (answers,) = report.counterexample.scenario.to_json()["backends"].values()
    delays = [parse_duration(answer["delay"]) for answer in answers["results"] if "delay" in answer]
    assert max(delays) > CALL_TIMEOUT_NS
