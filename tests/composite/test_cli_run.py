"""``python -m transpiler run --form composite``: traces out, clear errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.composite.corpus import SCENARIOS
from transpiler.cli import main

SECTION = SCENARIOS / "O_output"
TOOLS = str(SECTION / "tools.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prints_the_trace_of_the_scenario_s_tool(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--form", "composite", TOOLS, "--scenario", str(SECTION / "last_step.scenario.yaml")
    )
    trace = json.loads(out)
    assert code == 0 and trace["form"] == "composite" and trace["output"] == {"from": "slow"}


def test_a_failing_workflow_still_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(SECTION / "default_error.scenario.yaml")
    code, out, _ = run(capsys, "--form", "composite", TOOLS, "--scenario", scenario)
    assert code == 0 and json.loads(out)["outcome"] == "error"


def test_schedule_all_prints_a_list_and_says_whether_it_was_exhaustive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = str(SECTION / "tied.scenario.yaml")
    code, out, err = run(
        capsys, "--form", "composite", TOOLS, "--scenario", scenario, "--schedule", "all"
    )
    outputs = {json.dumps(trace["output"]) for trace in json.loads(out)}
    assert code == 0 and len(outputs) == 2 and "every schedule" in err


def test_tool_option_overrides_the_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(SECTION / "tied.scenario.yaml")
    code, _, err = run(
        capsys, "--form", "composite", TOOLS, "--tool", "nope", "--scenario", scenario
    )
    assert code == 2 and "no composite tool named 'nope'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenario", "/nonexistent.yaml"], "cannot read scenario"),
        (
            ["--scenario", str(SECTION / "tied.scenario.yaml"), "--schedule", "sometimes"],
            "unknown schedule",
        ),
    ],
)
def test_unreadable_input_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "--form", "composite", TOOLS, *argv)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_a_config_vmcp_would_refuse_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("compositeTools:\n- name: t\n  description: d\n  steps: []\n")
    code, _, err = run(
        capsys,
        "--form",
        "composite",
        str(config),
        "--tool",
        "t",
        "--scenario",
        str(SECTION / "tied.scenario.yaml"),
    )
    assert code == 2 and "vMCP would not run 't'" in err


def test_the_starlark_form_reports_an_unreadable_script(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "--form", "starlark", "x.star", "--scenario", str(SECTION / "tied.scenario.yaml")
    )
    assert code == 2 and "cannot read script x.star" in err


def test_a_hidden_tool_is_answered_not_found_and_runs_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    section = SCENARIOS / "B_advertise"
    scenario = str(section / "name_collision.scenario.yaml")
    tools = str(section / "tools.yaml")
    code, out, _ = run(capsys, "--form", "composite", tools, "--scenario", scenario)
    trace = json.loads(out)
    assert code == 0 and trace["outcome"] == "error" and trace["calls"] == []
    assert trace["client_result"] == {
        "content": [{"type": "text", "text": 'not found: tool "plain"'}],
        "isError": True,
    }
