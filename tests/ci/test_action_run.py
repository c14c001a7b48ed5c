"""The GitHub Action's shell steps, run here with stand-ins for what a runner provides.

A runner gives each ``run:`` step its ``env:`` (with ``${{ inputs.* }}`` and
``${{ github.action_path }}`` filled in) and files behind ``GITHUB_OUTPUT``,
``GITHUB_STEP_SUMMARY`` and ``GITHUB_ENV``. Here: the ``uses:`` steps
(setup-python, setup-go) are the runner's and are not run; the install step is
not run either (this suite's environment already has the project installed);
the Go steps are skipped with ``engine: rust``, as the action's own ``if:``
says (they need the module proxy, which this machine cannot reach). What is
run is the gate itself: the check step, as the runner would run it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPUS, REPO_ROOT
from transpiler.cli import main

_EXPRESSION = re.compile(r"\$\{\{\s*([a-z_.-]+)\s*\}\}")
_SKIP_IF_RUST = "inputs.engine != 'rust'"


class _NoDuplicates(yaml.SafeLoader):
    """A loader that refuses a key given twice in one mapping (as GitHub's parser does)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        repeated = {key for key in keys if keys.count(key) > 1}
        assert not repeated, f"line {node.start_mark.line + 1}: {sorted(repeated)} given twice"
        return super().construct_mapping(node, deep=deep)


def _action() -> dict[str, Any]:
    loaded = yaml.load((REPO_ROOT / "action.yml").read_text(), Loader=_NoDuplicates)
    assert isinstance(loaded, dict)
    return loaded


def _filled(text: str, inputs: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "github.action_path":
            return str(REPO_ROOT)
        assert name.startswith("inputs."), f"an expression the stand-in does not fill: {name}"
        return inputs[name.removeprefix("inputs.")]

    return _EXPRESSION.sub(value, text)


def run_action(work: Path, given: dict[str, str]) -> tuple[int, str, dict[str, Path]]:
    """Run the action's shell steps in ``work``; the last step's exit code, stdout, and the
    runner's files."""
    action = _action()
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    files = {name: work / f"{name}.txt" for name in ("output", "summary", "env")}
    for path in files.values():
        path.write_text("")
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_OUTPUT": str(files["output"]),
        "GITHUB_STEP_SUMMARY": str(files["summary"]),
        "GITHUB_ENV": str(files["env"]),
        "RUNNER_TEMP": str(work / "runner-temp"),
    }
    code, out = 0, ""
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("name") == "Install vmcp-transpile":
            continue
        condition = step.get("if")
        if condition is not None:
            assert condition == _SKIP_IF_RUST, f"a condition the stand-in cannot judge: {condition}"
            if inputs["engine"] == "rust":
                continue
        env = {key: _filled(str(value), inputs) for key, value in step.get("env", {}).items()}
        finished = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=work,
            env={**environment, **env},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        code, out = finished.returncode, finished.stdout
        if code != 0 and step.get("id") != "check":
            pytest.fail(f"step {step.get('name')} failed: {finished.stderr}")
    return code, out, files


@pytest.fixture()
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A work tree with the example migrated (composite tools kept beside the scripts)."""
    monkeypatch.setenv("TRANSPILER_CACHE", str(tmp_path / "cache"))
    work = tmp_path / "gateway"
    work.mkdir()
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", work / "vmcp-config.yaml")
    code = main(["migrate", str(work), "--write", "--keep-composite", "--examples", "2"])
    assert code == 0
    return work


FAST = "--examples 3 --paths 8 --jobs 1"


def test_the_action_passes_a_sound_migration_and_fills_the_runner_s_files(
    gateway: Path,
) -> None:
    code, out, files = run_action(gateway, {"paths": ".", "engine": "rust", "args": FAST})
    assert code == 0, out
    assert files["output"].read_text() == "exit-code=0\n"
    summary = files["summary"].read_text()
    assert "tool(s) pass" in summary and "sync_inventory" in summary
    assert (gateway / "vmcp-transpile-junit.xml").read_text().startswith("<testsuite")
    assert "::error" not in out


def test_the_action_fails_a_broken_script_with_an_annotation_at_its_line(gateway: Path) -> None:
    config = gateway / "vmcp-config.yaml"
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    config.write_text(text[:scripted] + text[scripted:].replace('"json"', '"csv"'))
    code, out, files = run_action(gateway, {"paths": ".", "engine": "rust", "args": FAST})
    assert code == 1
    assert files["output"].read_text() == "exit-code=1\n"
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    (error,) = [line for line in errors if "sync_inventory" in line]
    assert error.startswith("::error file=vmcp-config.yaml,") and re.search(r",line=\d+::", error)
    assert 'arguments.format of the call to cmdb.export_assets (step pull' in error
    assert 'vMCP:   "json"' in error and 'script: "csv"' in error
    # The scenario is saved in the folder the action uploads, with the command that replays it.
    (saved,) = (gateway / "vmcp-transpile-counterexamples").rglob("*.scenario.yaml")
    relative = str(saved.relative_to(gateway))
    assert f"scenario saved to {relative}" in error
    replay = next(part for part in error.split("%0A") if part.startswith("replay: "))
    words = shlex.split(replay.removeprefix("replay: "))
    assert words[words.index("--scenario") + 1] == relative and words[0] == "python"
    replayed = subprocess.run(
        [sys.executable, *words[1:]], cwd=gateway, capture_output=True, text=True, check=True
    )
    assert 'arguments.format of the call to cmdb.export_assets (step pull' in replayed.stdout
    assert 'script: "csv"' in replayed.stdout
    (upload,) = [s for s in _action()["runs"]["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["with"]["path"] == "${{ inputs.counterexamples }}"
    assert upload["if"].startswith("${{ !cancelled()")  # it runs after a failed check too
