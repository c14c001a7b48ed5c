"""``python -m transpiler validate``: output, exit codes, JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO_ROOT
from transpiler.cli import main

INVALID = CORPUS / "validation" / "invalid"


def test_example_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(CORPUS / "example")]) == 0
    out = capsys.readouterr().out
    assert "thv vmcp validate: passes" in out and "vmcp serve: passes" in out
    assert out.rstrip().splitlines()[-2].startswith("valid: 0 error(s), 0 warning(s), 4 tool(s)")


def test_invalid_file_marks_what_vmcp_reports(capsys: pytest.CaptureFixture[str]) -> None:
    path = INVALID / "p2-default-results.yaml"
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "thv vmcp validate: fails at P2 (config validation): invalid configuration:" in out
    marked = [line for line in out.splitlines() if line.startswith(" * ")]
    assert len(marked) == 1 and "[P2.S23.defaultResults]" in marked[0] and f"{path}:" in marked[0]


def test_validate_passes_but_serve_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(INVALID / "p3-inner-step-id.yaml")]) == 1
    out = capsys.readouterr().out
    assert "thv vmcp validate: passes" in out
    serve = "vmcp serve: fails at P3 (conversion to engine types, at vmcp serve): "
    assert serve + "failed to convert composite tool definitions:" in out


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--format", "json", str(INVALID / "p2-cycle.yaml")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    (unit,) = report["units"]
    verdicts = {v["phase"]: v for v in unit["verdicts"]}
    assert verdicts["P2"]["rule"] == "P2.S22a.cycle" and not verdicts["P2"]["passed"]
    assert verdicts["P4"]["rule"] == "P4.S34.cycle"
    reported = [d for d in unit["diagnostics"] if d["reported_by_vmcp"]]
    assert {d["rule"] for d in reported} == {"P2.S22a.cycle", "P4.S34.cycle"}


def test_kubernetes_phases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(CORPUS / "k8s")]) == 0
    out = capsys.readouterr().out
    assert (
        "kubectl apply: passes" in out and "operator: passes" in out and "vmcp serve: passes" in out
    )


def test_missing_path_is_unreadable(tmp_path: Path) -> None:
    assert main(["validate", str(tmp_path / "absent.yaml")]) == 2


def test_runs_as_a_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "transpiler", "validate", "corpus/example"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""


def test_output_does_not_depend_on_hash_seed() -> None:
    outputs = set()
    for seed in ("1", "2"):
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "transpiler",
                "validate",
                "--format",
                "json",
                "corpus",
                "../shared/upstream-corpus",
            ],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        )
        # 2: corpus/validation/invalid/p1-yaml-syntax.yaml is not YAML (docs/reference.md, exit
        # codes).
        assert completed.returncode == 2, completed.stderr
        outputs.add(completed.stdout)
    assert len(outputs) == 1


def test_every_phase_a_diagnostic_names_is_explained() -> None:
    from transpiler.diagnostics import PHASES, phase_text
    from transpiler.validate.rules import RULES

    named = {phase for phase, _ in RULES.values()}
    assert named <= set(PHASES), named - set(PHASES)
    assert phase_text("P1") == "P1 (config load)"
