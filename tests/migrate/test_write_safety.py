"""--write never loses an edit, writes through links, and recovers from interruptions.

Issue 13: items 6 (interrupted runs: leftovers and a rerun that failed on its
own backups), 7 (an edit made while ``--no-backup`` ran was lost) and 8 (a
link was replaced by a regular file and its target left unmigrated).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.migrate.conftest import SMALL_CONFIG, run, snapshot
from transpiler import pipeline
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ToolReport
from transpiler.migrate.atomic import TEMP_SUFFIX, WriteError
from transpiler.migrate.runner import FileStatus

WriteFile = Callable[[str, str], Path]
OTHER = SMALL_CONFIG.replace("name: gw", "name: other")


def migrated(path: Path) -> bool:
    return "scriptedTools" in yaml.safe_load(path.read_text())


def temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


@pytest.mark.parametrize("backup", [None, ".orig"], ids=["no-backup", "backup"])
def test_an_edit_made_while_checking_is_never_lost(
    backup: str | None, write_file: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    edited = SMALL_CONFIG + "# an edit made meanwhile\n"

    def check_and_edit(tool: Any, options: Any, **_: Any) -> ToolReport:
        path.write_text(edited)
        return ToolReport(tool.config.name, tool.origin.file, Verdict.EQUIVALENT, reason="stand-in")

    monkeypatch.setattr(pipeline, "check_tool", check_and_edit)
    with pytest.raises(WriteError, match="changed since migrate read it; nothing was changed"):
        run([path], write=True, backup_suffix=backup)
    assert path.read_text() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gw.yaml"]


def test_an_edit_made_during_the_renames_is_never_lost(
    write_file: WriteFile, tmp_path: Path, certify: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write_file("a.yaml", SMALL_CONFIG)
    second = write_file("b.yaml", OTHER)
    replace = os.replace

    def replace_then_edit(source: Any, target: Any) -> None:
        replace(source, target)
        if not second.read_text().endswith("# edited\n"):
            second.write_text(OTHER + "# edited\n")

    monkeypatch.setattr(os, "replace", replace_then_edit)
    with pytest.raises(WriteError, match=r"b\.yaml changed since migrate read it"):
        run([tmp_path], write=True, backup_suffix=None)
    assert first.read_text() == SMALL_CONFIG, "the rename already done was put back"
    assert second.read_text() == OTHER + "# edited\n"
    assert not temporaries(tmp_path)


def test_a_symbolic_link_is_written_through(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    target = write_file("real/gw.yaml", SMALL_CONFIG)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    report = run([link], write=True)
    assert report.files[0].status is FileStatus.REWRITTEN
    assert "symbolic link" in report.files[0].reason
    assert link.is_symlink() and link.resolve() == target
    assert migrated(target)
    assert (tmp_path / "link.yaml.orig").read_text() == SMALL_CONFIG
    assert run([link], write=True).files[0].status is FileStatus.UNCHANGED


def test_a_file_named_twice_through_a_link_is_rewritten_once(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    target = write_file("gw.yaml", SMALL_CONFIG)
    (tmp_path / "alias.yaml").symlink_to(target)
    report = run([tmp_path], write=True, backup_suffix=None)
    statuses = {result.path.name: result.status for result in report.files}
    assert statuses == {"alias.yaml": FileStatus.REWRITTEN, "gw.yaml": FileStatus.UNCHANGED}
    assert migrated(target) and (tmp_path / "alias.yaml").is_symlink()


def dead_pid() -> int:
    """The id of a process that has exited."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_rerun_after_a_kill_finishes_the_job(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    """What a SIGKILL during the renames leaves: a backup already linked, a temporary file."""
    done = write_file("done.yaml", SMALL_CONFIG)
    pending = write_file("pending.yaml", OTHER)
    run([done], write=True)
    write_file("pending.yaml.orig", OTHER)
    stale = write_file(f".pending.yaml.{dead_pid()}.abcd_123{TEMP_SUFFIX}", "half a migra")
    report = run([tmp_path], write=True)
    assert report.cleaned == (stale,)
    assert migrated(done) and migrated(pending)
    assert (tmp_path / "pending.yaml.orig").read_text() == OTHER
    assert not temporaries(tmp_path)
    assert {r.status for r in run([tmp_path], write=True).files} == {FileStatus.UNCHANGED}


def test_a_live_runs_temporary_files_are_left_alone(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    parent = os.getppid()
    busy = write_file(f".gw.yaml.{parent}.abcd_123{TEMP_SUFFIX}", "another run's")
    assert run([tmp_path], write=True).cleaned == ()
    assert busy.exists()


def test_any_failure_during_the_renames_puts_back_what_was_done(
    write_file: WriteFile, tmp_path: Path, certify: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_file("a.yaml", SMALL_CONFIG)
    write_file("b.yaml", OTHER)
    before = snapshot(tmp_path)
    replace = os.replace
    calls = {"count": 0}

    def interrupted_on_second(source: Any, target: Any) -> None:
        calls["count"] += 1
        if calls["count"] == 2:
            raise KeyboardInterrupt
        replace(source, target)

    monkeypatch.setattr(os, "replace", interrupted_on_second)
    with pytest.raises(KeyboardInterrupt):
        run([tmp_path], write=True)
    assert snapshot(tmp_path) == before
