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


def test_starlark_form_runs_the_scripted_tool_a_migration_wrote(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    section = SCENARIOS / "C_params"
    config = tmp_path / "tools.yaml"
    config.write_text((section / "tools.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["migrate", str(config), "--write"]) == 0
    capsys.readouterr()
    scenario = str(section / "defaults_applied.scenario.yaml")
    code, out, _ = run(capsys, "--form", "starlark", str(config), "--scenario", scenario)
    trace = json.loads(out)
    composite_run = ("--form", "composite", str(section / "tools.yaml"), "--scenario", scenario)
    _, composite, _ = run(capsys, *composite_run)
    assert code == 0 and trace["form"] == "starlark"
    assert trace["output"] == json.loads(composite)["output"]


def test_starlark_form_takes_the_entry_s_script_file_and_timeout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "slow.star").write_text(
        'def run(params):\n    return call_tool("slow.tool", {})\n', encoding="utf-8"
    )
    config = tmp_path / "config.yaml"
    config.write_text(
        "scriptedTools:\n  - name: slow\n    timeout: 1s\n    scriptFile: slow.star\n",
        encoding="utf-8",
    )
    scenario = tmp_path / "slow.scenario.yaml"
    scenario.write_text(
        "tool: slow\nbackends:\n  slow.tool:\n    results:\n"
        "    - structuredContent: {done: true}\n      delay: 5s\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--form", "starlark", str(config), "--scenario", str(scenario))
    timed_out = json.loads(out)
    code_long, out_long, _ = run(
        capsys, "--form", "starlark", str(config), "--scenario", str(scenario), "--timeout", "1m"
    )
    assert code == code_long == 0
    assert timed_out["outcome"] == "error" and json.loads(out_long)["output"] == {"done": True}


def test_starlark_form_on_a_composite_only_config_names_the_other_form(
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = str(SECTION / "last_step.scenario.yaml")
    code, out, err = run(capsys, "--form", "starlark", TOOLS, "--scenario", scenario)
    assert code == 2 and not out
    assert "no scripted tool" in err and "--form composite runs it" in err


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
