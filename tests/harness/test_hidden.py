"""``check`` on a composite tool vMCP hides: what vMCP does and the two ways out, never advice
that leads nowhere (a class to declare, on a script nobody has yet)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CORPUS
from transpiler.cli import main

SMALL = ["--examples", "4", "--paths", "4"]
HIDDEN = (CORPUS / "listing" / "hidden.yaml").read_text()


def _check(tmp_path: Path, config: Path) -> tuple[int, dict[str, object]]:
    report = tmp_path / "report.json"
    code = main(["check", str(config), *SMALL, "--report-json", str(report)])
    tools = {tool["tool"]: tool for tool in json.loads(report.read_text())["tools"]}
    return code, tools["force_release"]


def test_before_migration_the_advice_can_be_acted_on(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(HIDDEN)
    code, tool = _check(tmp_path, config)
    reason = str(tool["reason"])
    assert code == 1 and tool["verdict"] == "unchecked"
    assert "vMCP hides force_release" in reason
    assert "every call of it is answered not found" in reason
    assert "remove `readOnlyHint: true` (line 8)" in reason and "or retire it" in reason
    assert "header" not in reason  # no script exists yet: nothing to declare anything in


def test_declaring_the_difference_still_points_at_the_two_ways_out(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    script = (
        "# Where it differs from vMCP (see docs/deviations.md):\n"
        "#   - listing\n#   - listing-safety\n#   - error-text\n"
        'def run(params):\n    return call_tool("github.create_branch", {"name": "release"})\n'
    )
    indented = "".join(f"      {line}\n" for line in script.splitlines())
    config.write_text(
        HIDDEN + "scriptedTools:\n  - name: force_release\n    description: Cut a release branch\n"
        f"    script: |\n{indented}"
    )
    code, tool = _check(tmp_path, config)
    reason = str(tool["reason"])
    assert code == 1 and tool["verdict"] == "unchecked"
    assert "Two ways out" in reason and "or retire it" in reason
