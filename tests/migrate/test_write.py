"""--write: atomic, idempotent, never without certification (or --force), originals kept."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.migrate.conftest import MANIFESTS, SMALL_CONFIG, run, snapshot
from transpiler.cli import main
from transpiler.emit.library import LIBRARY_NAME
from transpiler.harness.judging.verdict import Verdict
from transpiler.migrate.atomic import WriteError
from transpiler.migrate.runner import FileStatus

WriteFile = Callable[[str, str], Path]


@pytest.mark.parametrize("keep", [False, True], ids=["replace", "keep-composite"])
def test_a_second_write_changes_nothing(
    keep: bool, write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    write_file("k8s/all.yaml", MANIFESTS)
    first = run([tmp_path], write=True, keep_composite=keep)
    assert {f.status for f in first.files} == {FileStatus.REWRITTEN}
    after_first = snapshot(tmp_path)
    second = run([tmp_path], write=True, keep_composite=keep)
    assert snapshot(tmp_path) == after_first
    assert {f.status for f in second.files} == {FileStatus.UNCHANGED}
    assert second.complete
    scripted = yaml.safe_load(after_first["gw.yaml"])["scriptedTools"]
    assert [tool["name"] for tool in scripted] == ["echo_twice", "ping"]


def test_finishing_a_staged_migration_removes_the_composite_tools(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("k8s/all.yaml", MANIFESTS)
    run([tmp_path], write=True, keep_composite=True, backup_suffix=None)
    staged = list(yaml.safe_load_all((tmp_path / "k8s/all.yaml").read_text()))
    assert [d["kind"] for d in staged][1:] == [
        "VirtualMCPCompositeToolDefinition",
        "VirtualMCPScriptedToolDefinition",
    ]
    run([tmp_path], write=True, backup_suffix=None)
    finished = list(yaml.safe_load_all((tmp_path / "k8s/all.yaml").read_text()))
    assert [d["kind"] for d in finished] == ["VirtualMCPServer", "VirtualMCPScriptedToolDefinition"]
    config = finished[0]["spec"]["config"]
    assert "compositeTools" not in config and "compositeToolRefs" not in config
    assert config["scriptedToolRefs"] == [{"name": "shared-echo"}]


def test_uncertified_files_are_never_touched_without_force(
    write_file: WriteFile, tmp_path: Path, refute: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    before = snapshot(tmp_path)
    report = run([tmp_path], write=True)
    assert snapshot(tmp_path) == before
    assert report.files[0].status is FileStatus.REFUSED
    assert not report.complete
    assert {outcome.verdict for outcome in report.tools} == {Verdict.DIFFERS}


def test_force_writes_uncertified_tools(
    write_file: WriteFile, tmp_path: Path, refute: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    report = run([tmp_path], write=True, force=True)
    assert report.files[0].status is FileStatus.REWRITTEN
    assert "scriptedTools" in yaml.safe_load(path.read_text())
    assert (tmp_path / "gw.yaml.orig").read_text() == SMALL_CONFIG


def test_out_dir_leaves_the_inputs_untouched(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    inputs = tmp_path / "in"
    write_file("in/gw.yaml", SMALL_CONFIG)
    write_file("in/k8s/all.yaml", MANIFESTS)
    before = snapshot(inputs)
    out = tmp_path / "out"
    run([inputs], write=True, out_dir=out)
    assert snapshot(inputs) == before
    assert sorted(snapshot(out)) == [
        "gw.yaml",
        "gw.yaml.composite-baseline",
        "k8s/all.yaml",
        "k8s/all.yaml.composite-baseline",
    ]


def test_script_dir_writes_star_files_cited_relative_to_the_config(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    path = write_file("conf/gw.yaml", SMALL_CONFIG)
    scripts = tmp_path / "conf" / "workflows"
    report = run([path], write=True, script_dir=scripts)
    data = yaml.safe_load(path.read_text())
    cited = {tool["name"]: tool["scriptFile"] for tool in data["scriptedTools"]}
    assert cited == {"echo_twice": "workflows/echo_twice.star", "ping": "workflows/ping.star"}
    emitted = {o.name: o.emitted.script for o in report.tools if o.emitted is not None}
    for name, relative in cited.items():
        assert (path.parent / relative).read_text() == emitted[name]
    assert run([path], write=True, script_dir=scripts).files[0].status is FileStatus.UNCHANGED


def test_a_script_file_with_other_content_is_not_overwritten(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    theirs = write_file("workflows/ping.star", "# someone else's script\n")
    run([path], write=True, script_dir=tmp_path / "workflows")
    assert theirs.read_text() == "# someone else's script\n"
    cited = {t["name"]: t["scriptFile"] for t in yaml.safe_load(path.read_text())["scriptedTools"]}
    assert cited["ping"] == "workflows/ping-2.star"


def test_an_existing_backup_is_never_overwritten(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    write_file("gw.yaml.orig", "an older original\n")
    before = snapshot(tmp_path)
    with pytest.raises(WriteError, match="already exists"):
        run([tmp_path], write=True)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failure_mid_write_leaves_every_original_byte_identical(
    failing: str,
    write_file: WriteFile,
    tmp_path: Path,
    certify: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_file("a.yaml", SMALL_CONFIG)
    write_file("b.yaml", SMALL_CONFIG.replace("name: gw", "name: other"))
    before = snapshot(tmp_path)
    calls = {"count": 0}

    def fail_on_second(original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            calls["count"] += 1
            if calls["count"] == 2:
                raise OSError(28, "No space left on device")
            return original(*args, **kwargs)

        return wrapped

    if failing == "replace":
        monkeypatch.setattr(os, "replace", fail_on_second(os.replace))
    elif failing == "fsync":
        monkeypatch.setattr(os, "fsync", fail_on_second(os.fsync))
    else:
        monkeypatch.setattr(os, "fdopen", fail_on_second_write(os.fdopen, fail_on_second))
    with pytest.raises(WriteError, match="nothing was changed"):
        run([tmp_path], write=True)
    assert calls["count"] >= 2, "the failure was injected"
    assert snapshot(tmp_path) == before


def fail_on_second_write(
    fdopen: Callable[..., Any], wrap: Callable[[Callable[..., Any]], Callable[..., Any]]
) -> Callable[..., Any]:
    """``os.fdopen`` whose streams' ``write`` goes through ``wrap``."""

    class Stream:
        def __init__(self, stream: Any) -> None:
            self._stream = stream
            self.write = wrap(stream.write)

        def __enter__(self) -> Stream:
            return self

        def __exit__(self, *exc: object) -> None:
            self._stream.close()

        def __getattr__(self, name: str) -> Any:
            return getattr(self._stream, name)

    return lambda fd, mode: Stream(fdopen(fd, mode))


def test_file_modes_survive_a_rewrite(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    path.chmod(0o640)
    run([path], write=True, backup_suffix=None)
    assert path.stat().st_mode & 0o777 == 0o640


def test_exact_scripts_in_a_script_dir_load_the_library_check_finds(
    write_file: WriteFile, tmp_path: Path
) -> None:
    path = write_file("conf/gw.yaml", SMALL_CONFIG.split("  # Ping once.")[0])
    scripts = tmp_path / "conf" / "workflows"
    options = ["--engine", "rust", "--examples", "2"]
    written = ["--write", "--style", "exact", "--script-dir", str(scripts)]
    assert main(["migrate", str(path), *written, *options]) == 0
    assert "load(" in (scripts / "echo_twice.star").read_text()
    # Beside the scripts that load it, where check looks for a script's modules.
    assert (scripts / LIBRARY_NAME).is_file()
    assert not (path.parent / LIBRARY_NAME).exists()
    assert main(["check", str(path), *options]) == 0
