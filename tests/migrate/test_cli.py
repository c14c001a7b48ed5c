"""``python -m transpiler migrate``: dry run by default, diff and summary, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.migrate.conftest import SMALL_CONFIG, snapshot
from transpiler.cli import main

WriteFile = Callable[[str, str], Path]


def test_dry_run_prints_the_diff_and_the_summary_and_writes_nothing(
    write_file: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    before = snapshot(tmp_path)
    assert main(["migrate", str(path)]) == 0
    out = capsys.readouterr().out
    assert snapshot(tmp_path) == before
    assert "-compositeTools:\n+scriptedTools:\n" in out
    assert f"== {path}: would be rewritten" in out
    assert f"{path}:7: echo_twice: converted, equivalent" in out
    assert "dry run, nothing written" in out


def test_check_exits_1_while_changes_are_pending(
    write_file: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    """``--check`` is a dry run with a "changes pending" exit: 1 while a file would be written,
    0 once the migration is written."""
    path = write_file("gw.yaml", SMALL_CONFIG)
    before = snapshot(tmp_path)
    assert main(["migrate", str(path), "--check", "--no-diff"]) == 1
    assert "changes pending" in capsys.readouterr().err
    assert snapshot(tmp_path) == before
    assert main(["migrate", str(path), "--write", "--no-backup", "--no-diff"]) == 0
    capsys.readouterr()
    assert main(["migrate", str(path), "--check", "--no-diff"]) == 0
    assert "changes pending" not in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main(["migrate", str(path), "--check", "--write"])
    assert refused.value.code == 2


def test_output_is_deterministic(
    write_file: WriteFile, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    outputs = []
    for _ in range(2):
        main(["migrate", str(path), "--format", "json"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    report = json.loads(outputs[0])
    assert [tool["status"] for tool in report["tools"]] == ["equivalent", "equivalent"]


def test_exit_codes(write_file: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    assert main(["migrate", str(path), "--out", "elsewhere"]) == 2
    assert "--out DIR writes files" in capsys.readouterr().err
    assert main(["migrate", str(path) + ".missing"]) == 2
    assert main(["migrate", str(path), "--fix", "no-such-quirk"]) == 2


def test_tools_that_differ_exit_1_with_the_reason(
    write_file: WriteFile, capsys: pytest.CaptureFixture[str], refute: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    assert main(["migrate", str(path), "--no-diff", "--write"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "differs from the workflow" in out
    assert path.read_text() == SMALL_CONFIG


def test_every_warning_cites_file_line_and_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    config = tmp_path / "race.yaml"
    config.write_text(
        "compositeTools:\n"
        "  - name: racy\n    description: reads a step it does not wait for\n    steps:\n"
        "      - id: a\n        tool: t\n"
        '      - id: b\n        tool: t\n        arguments: {x: "{{.steps.a.output.v}}"}\n'
    )
    main(["migrate", str(config), "--no-diff"])
    warnings = [
        line.strip() for line in capsys.readouterr().out.splitlines() if ": warning" in line
    ]
    assert warnings, "the race is reported"
    assert all(line.startswith(f"{config}:") and "(step " in line for line in warnings)


def test_the_bundled_example_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    main(["migrate", str(CORPUS / "example"), "--no-diff"])
    out = capsys.readouterr().out
    for name in ("deploy_with_approval", "investigate_incident", "scan_image_packages"):
        assert f": {name}: converted" in out


def test_unreadable_invalid_and_bom_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    (tmp_path / "bad.yaml").write_text("compositeTools:\n  - name: [\n")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00")
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + SMALL_CONFIG.encode())
    assert main(["migrate", str(tmp_path), "--no-diff", "--write", "--no-backup"]) == 2
    out = capsys.readouterr().out
    assert f"== {tmp_path / 'bad.yaml'}: unreadable" in out
    assert f"{tmp_path / 'bad.yaml'}:3: yaml: line 2:" in out
    assert f"== {tmp_path / 'binary.yaml'}: unreadable" in out
    assert bom.read_bytes().startswith(b"\xef\xbb\xbf# The team gateway.\n")
    assert b"scriptedTools:" in bom.read_bytes()


def test_json_configs_are_reported_not_converted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    config = tmp_path / "gw.json"
    config.write_text(
        '{"compositeTools": [{"name": "ping", "description": "Ping", '
        '"steps": [{"id": "p", "tool": "ping"}]}]}\n'
    )
    assert main(["migrate", str(config), "--no-diff"]) == 1
    assert "ping: not converted: migrate cannot rewrite its YAML: the tool is written in flow" in (
        capsys.readouterr().out
    )


def _git(repository: Path, *arguments: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "-C", str(repository), *identity, *arguments], check=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="LOUD SKIP: git is missing")
def test_git_is_the_backup_of_a_committed_file(
    write_file: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    """In a git work tree, a file git holds as it is gets no `.orig` (git is its backup); a file
    with uncommitted changes keeps one, and `--backup` asks for one anyway."""
    committed = write_file("committed.yaml", SMALL_CONFIG)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "committed.yaml")
    _git(tmp_path, "commit", "-qm", "composite")
    edited = write_file("edited.yaml", SMALL_CONFIG)  # never committed
    assert main(["migrate", str(committed), str(edited), "--write", "--no-diff"]) == 0
    assert not (tmp_path / "committed.yaml.orig").exists()
    assert (tmp_path / "edited.yaml.orig").read_text() == SMALL_CONFIG
    again = write_file("again.yaml", SMALL_CONFIG)
    _git(tmp_path, "add", "again.yaml")
    _git(tmp_path, "commit", "-qm", "another")
    assert main(["migrate", str(again), "--write", "--no-diff", "--backup", ".bak"]) == 0
    assert (tmp_path / "again.yaml.bak").read_text() == SMALL_CONFIG
    capsys.readouterr()
