"""What ``check`` and ``migrate`` write, and where (issue 13, items 6-10).

A dry run writes nothing anywhere the user did not name; file names made
from input stay inside their directory; writes go through links, never lose
an edit made meanwhile, and an interrupted run leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, REPO_ROOT
from transpiler import pipeline
from transpiler.cli import main
from transpiler.emit import emit_tool
from transpiler.emit.report import EmitResult

TRAVERSAL = """\
compositeTools:
  - name: ../../../../outside/x
    description: A tool whose name climbs out of the directory
    steps:
      - id: a
        tool: svc.echo
"""


def calling_the_wrong_tool(*args: Any, **kwargs: Any) -> EmitResult:
    """The emitted script, broken so that it differs (a counterexample to save)."""
    emitted = emit_tool(*args, **kwargs)
    return replace(emitted, script=emitted.script.replace('"svc.echo"', '"svc.other"'))


def snapshot(*roots: Path) -> dict[str, bytes]:
    """Every file (and directory) under ``roots`` with its content."""
    found: dict[str, bytes] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            found[str(path)] = path.read_bytes() if path.is_file() else b"<dir>"
    return found


def test_counterexample_names_stay_in_their_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pipeline, "emit_tool", calling_the_wrong_tool)
    work = tmp_path / "a" / "b" / "c" / "d"
    work.mkdir(parents=True)
    config = work / "config.yaml"
    config.write_text(TRAVERSAL)
    saved_in = work / "ce"
    command = ["check", str(config), "--examples", "3", "--jobs", "1"]
    assert main([*command, "--counterexamples", str(saved_in)]) == 1
    assert "scenario saved to" in capsys.readouterr().out
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != config]
    # DIR/FILE/TOOL.ENGINE.scenario.yaml, each name made safe
    assert written and all(p.parent.parent == saved_in for p in written), written
    assert not (tmp_path / "outside").exists()


@pytest.mark.parametrize("command", ["migrate", "check"])
def test_a_dry_run_writes_nothing(command: str, tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(CORPUS / "example", inputs)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    before = snapshot(tmp_path)
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("HYPOTHESIS")
    }
    environment["PYTHONPATH"] = str(REPO_ROOT)
    completed = subprocess.run(
        [sys.executable, "-m", "transpiler", command, str(inputs), "--examples", "3"]
        + (["--jobs", "2"] if command == "check" else []),
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert snapshot(tmp_path) == before
