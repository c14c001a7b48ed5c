"""One gate: ``check`` and the hook apply the same policy, the nearest ``vmcp-transpile.yaml``
from each path up to the repository root, and name it on every run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.cli.common import EXIT_INPUT
from transpiler.policy import find_policy

#: A policy a run shows it applied: its engine is not the default one.
POLICY = "engines: [rust]\nexamples: 2\npaths: 4\n"


@pytest.fixture()
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the example configuration two folders down, the policy at its
    root, as the current directory."""
    root = tmp_path / "gateway"
    (root / "vmcp" / "team").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", root / "vmcp" / "team" / "config.yaml")
    (root / "vmcp-transpile.yaml").write_text(POLICY)
    monkeypatch.chdir(root)
    monkeypatch.setenv("TRANSPILER_CACHE", str(tmp_path / "cache"))
    return root


def _policy_line(capsys: pytest.CaptureFixture[str]) -> str:
    (line,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("policy")]
    return line


def test_check_applies_the_policy_at_the_repository_root_and_names_it(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "vmcp/team/config.yaml", "--jobs", "1"]) == 0
    assert _policy_line(capsys) == "policy: vmcp-transpile.yaml; engine: rust"
    assert main(["check", "vmcp", "--jobs", "1"]) == 0
    assert _policy_line(capsys) == "policy: vmcp-transpile.yaml; engine: rust"


def test_the_hook_applies_the_policy_check_applies_and_names_it(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "vmcp/", "--jobs", "1"]) == 0
    by_check = _policy_line(capsys)
    assert main(["hook", "vmcp/", "vmcp/team/config.yaml"]) == 0
    assert _policy_line(capsys) == by_check == "policy: vmcp-transpile.yaml; engine: rust"


def test_the_nearest_policy_wins(repository: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repository / "vmcp" / "team" / "vmcp-transpile.yaml").write_text("examples: 1\npaths: 2\n")
    main(["hook", "vmcp/team/config.yaml", "--engine", "rust"])
    assert _policy_line(capsys) == "policy: vmcp/team/vmcp-transpile.yaml; engine: rust"
    assert find_policy(["vmcp/team"]) == Path("vmcp/team/vmcp-transpile.yaml")


def test_the_walk_stops_at_the_repository_root(repository: Path) -> None:
    (repository.parent / "vmcp-transpile.yaml").write_text("examples: 1\n")
    (repository / "vmcp-transpile.yaml").unlink()
    assert find_policy(["vmcp/team/config.yaml"]) is None


def test_outside_a_repository_only_the_folder_is_searched(tmp_path: Path) -> None:
    (tmp_path / "vmcp").mkdir()
    (tmp_path / "vmcp-transpile.yaml").write_text("examples: 1\n")
    assert find_policy([str(tmp_path / "vmcp")]) is None
    assert find_policy([str(tmp_path)]) is not None


def test_one_run_applies_one_policy(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = repository / "other"
    other.mkdir()
    shutil.copy(repository / "vmcp" / "team" / "config.yaml", other / "config.yaml")
    (other / "vmcp-transpile.yaml").write_text("examples: 1\n")
    assert main(["check", "vmcp/team/config.yaml", "other/config.yaml"]) == EXIT_INPUT
    error = capsys.readouterr().err
    assert "vmcp/team/config.yaml and other/config.yaml are governed by different policies" in error
    assert "(vmcp-transpile.yaml, other/vmcp-transpile.yaml)" in error
    # A folder holding a policy of its own further down would leave it unapplied.
    assert main(["check", "."]) == EXIT_INPUT
    assert "other/vmcp-transpile.yaml governs the files below it, but . " in capsys.readouterr().err
    # The hook runs check once per policy: both configurations, each under its own.
    assert main(["hook", "vmcp/team/config.yaml", "other/config.yaml", "--engine", "rust"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("policy")]
    assert lines == [
        "policy: other/vmcp-transpile.yaml; engine: rust",
        "policy: vmcp-transpile.yaml; engine: rust",
    ]
