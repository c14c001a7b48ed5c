"""The relation, the check engine's report, and the ``check`` command."""

from __future__ import annotations

import importlib.metadata
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.loader import load_bytes
from transpiler.harness.check import CheckOptions, check_tool
from transpiler.harness.relation import difference
from transpiler.harness.verdict import Verdict
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
    assert data["passed"] == data["total"] == 3
    assert reports["r.xml"].read_text().startswith("<testsuite")
    assert "| `release_notes` |" in reports["r.md"].read_text()
    pyo3 = importlib.metadata.version("starlark-pyo3")
    assert f"Interpreters: starlark-pyo3 `{pyo3}`." in reports["r.md"].read_text()
    assert f'<property name="starlark-pyo3" value="{pyo3}" />' in reports["r.xml"].read_text()
    for tool in data["tools"]:
        assert tool["certificate"]["interpreters"] == {"starlark-pyo3": pyo3}
    assert main(["check", str(tmp_path / "missing.yaml")]) == 2


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
    from transpiler.harness.reports import save_counterexample

    saved = Path(save_counterexample(bad.counterexample, tmp_path / "ce", bad.tool))
    assert load_scenario(saved).to_json() == bad.counterexample.scenario.to_json()
