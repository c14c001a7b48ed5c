"""``validate`` warns about a composite tool vMCP would drop for its annotations (S36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from transpiler.cli import main

CONFIG = """compositeTools:
- name: ro
  description: d
  annotations:
    readOnlyHint: true
  steps:
  - {id: a, tool: look.one}
"""


def validate(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str]:
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG)
    code = main(["validate", str(path), *extra])
    return code, capsys.readouterr().out


def test_S36_without_tools_every_step_tool_counts_as_declaring_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = validate(capsys, tmp_path)
    assert code == 0
    assert f"{tmp_path / 'c.yaml'}:5:5: warning[S36] (tool ro, P5)" in out
    assert "(readOnlyHint)" in out


def test_S36_a_tools_file_with_read_only_backends_lifts_the_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    declared = {"name": "look.one", "annotations": {"readOnlyHint": True}}
    tools.write_text(json.dumps({"tools": [declared]}))
    code, out = validate(capsys, tmp_path, "--tools", str(tools))
    assert code == 0 and "warning[S36]" not in out and "0 warning(s)" in out


def test_a_wrong_annotation_in_the_tools_file_exits_2_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.yaml"
    tools.write_text("tools:\n- name: look.one\n  annotations:\n    readOnlyHint: 1\n")
    code = main(["validate", str(tmp_path), "--tools", str(tools)])
    assert code == 2
    assert f"{tools}:4:19: tools file: tool look.one" in capsys.readouterr().err


COLLIDING = """compositeTools:
- name: nightly
  description: d
  steps:
  - {id: a, tool: export_assets}
- name: export_assets
  description: d
  steps:
  - {id: b, tool: cmdb.export}
"""


def test_S36_a_composite_named_like_a_backend_tool_hides_every_composite_tool(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """pkg/vmcp/core/core_vmcp.go accessibleComposites: one collision, no composite listed;
    ``check`` reports each tool as not listed (a listing difference), not as a behaviour."""
    path = tmp_path / "c.yaml"
    path.write_text(COLLIDING)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}:6:3: warning[S36] (tool export_assets, P5)" in out
    assert "1 warning(s)" in out
    assert main(["check", str(path), "--examples", "2", "--paths", "2", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    for name in ("nightly", "export_assets"):
        assert f"vMCP does not list {name} (composite tool names conflict" in out
