"""Deep nesting gives vMCP's verdict, or a named deviation, never a silent disagreement (issue 14).

vMCP reads YAML 10,000 levels deep (yaml.v3) and fails an argument expansion
past depth 100 at run time (S80). The transpiler reads 200 levels: a tool
with 150 nested argument maps is valid, fails at run time exactly as in
vMCP, and is not converted with that reason; past 200 levels every command
exits 2 and says the limit is the transpiler's, a deviation from vMCP.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.composite.cases import check, load_run_case
from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.composite import run_composite
from transpiler.config.yamlv3 import MAX_DEPTH

CASE = CORPUS / "hostile" / "deep-arguments-150.yaml"
CHEAP = {
    "validate": [],
    "check": ["--examples", "1", "--jobs", "1"],
    "migrate": ["--examples", "1"],
}


def nested(levels: int, leaf: Any, key: str | None = "k") -> Any:
    value = leaf
    for _ in range(levels):
        value = {key: value} if key is not None else [value]
    return value


def codes(path: Path, style: str = "readable") -> dict[str, int]:
    return {
        command: main([command, str(path), *options, *(["--style", style] if options else [])])
        for command, options in CHEAP.items()
    }


def test_the_150_level_case_gets_vmcps_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = load_run_case(CASE)
    trace = run_composite(case.tool, case.scenario)
    assert check(trace, case.expect) == [], trace.dumps()
    config = tmp_path / "deep.yaml"
    config.write_text(
        yaml.safe_dump({"compositeTools": [yaml.safe_load(CASE.read_text())["config"]]})
    )
    assert codes(config) == {"validate": 0, "check": 1, "migrate": 1}
    out = capsys.readouterr().out
    reason = (
        "arguments nest deeper than 100 levels: vMCP fails the step at run time with "
        "`template expansion depth limit exceeded: 100`, which the emitter does not reproduce"
    )
    assert out.count(reason) == 2  # check and migrate name it
    assert "step deep (" in out


@pytest.mark.parametrize("key", ["k", None], ids=["maps", "lists"])
def test_past_the_limit_every_command_names_the_deviation(
    key: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "deeper.json"
    step = {"id": "a", "tool": "svc.echo", "arguments": {"v": nested(MAX_DEPTH, "x", key)}}
    tool = {"name": "t", "description": "d", "steps": [step]}
    config.write_text(json.dumps({"compositeTools": [tool]}))
    assert codes(config) == {"validate": 2, "check": 2, "migrate": 2}
    out = capsys.readouterr()
    deviation = (
        f"error[LIMIT.depth] (load): nesting deeper than {MAX_DEPTH} levels: the transpiler reads "
        "no deeper (a deviation from vMCP, whose YAML reader yaml.v3 allows 10,000 levels"
    )
    assert (out.out + out.err).count(deviation) >= 2
    assert "not judged (an input cannot be read, see above)" in out.out
    assert "nested too deeply to process" not in out.err


def at_the_limit(shape: str) -> dict[str, Any]:
    """A valid tool whose YAML nests exactly MAX_DEPTH levels in one place."""
    tool: dict[str, Any] = {
        "name": "t",
        "description": "d",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        "steps": [{"id": "a", "tool": "svc.echo", "arguments": {"v": "{{.params.x}}"}}],
    }
    document: dict[str, Any] = {"compositeTools": [tool]}
    if shape == "arguments":  # compositeTools, item, steps, item, arguments, v: 6 levels
        tool["steps"][0]["arguments"] = {"v": nested(MAX_DEPTH - 6, "{{.params.x}}", None)}
    elif shape == "defaults":
        tool["steps"][0]["onError"] = {"action": "continue"}
        tool["steps"][0]["defaultResults"] = {"d": nested(MAX_DEPTH - 6, 1)}
    else:
        document["operational"] = {"x": nested(MAX_DEPTH - 2, 1)}
    return document


@pytest.mark.parametrize("style", ["readable", "exact"])
@pytest.mark.parametrize("shape", ["arguments", "defaults", "elsewhere"])
def test_at_the_limit_every_command_answers(
    shape: str, style: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "limit.yaml"
    config.write_text(yaml.safe_dump(at_the_limit(shape)))
    found = codes(config, style)
    out = capsys.readouterr()
    assert "LIMIT.depth" not in out.out + out.err and "too deeply" not in out.err
    # Arguments deeper than vMCP expands are refused in either style; the exact style also
    # refuses defaults that would nest one statement past its limit, the readable one writes them.
    if shape == "elsewhere" or (shape, style) == ("defaults", "readable"):
        assert found == {"validate": 0, "check": 0, "migrate": 0}
    else:
        assert found == {"validate": 0, "check": 1, "migrate": 1}
        assert re.search(
            r"not converted: the emitter cannot express it( exactly)?: step a \(", out.out
        )
