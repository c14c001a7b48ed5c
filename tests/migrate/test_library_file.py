"""``vmcp_compat.star`` beside migrated exact scripts: written once, never over another file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.migrate.conftest import MANIFESTS, SMALL_CONFIG, run, snapshot
from transpiler.cli import main
from transpiler.emit.library import LIBRARY_NAME, library_text
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.library_file import INLINED, LibraryStatus
from transpiler.migrate.runner import FileStatus

WriteFile = Callable[[str, str], Path]
EXACT = CheckOptions(style="exact")


def _scripts(path: Path) -> list[str]:
    return [tool["script"] for tool in yaml.safe_load(path.read_text())["scriptedTools"]]


def test_exact_scripts_get_the_library_beside_their_config_once(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    config = write_file("gw/gw.yaml", SMALL_CONFIG)
    first = run([tmp_path], write=True, check=EXACT)
    library = tmp_path / "gw" / LIBRARY_NAME
    assert first.written and first.complete
    assert first.library is not None and first.library.path == library
    assert library.read_text() == library_text()
    assert all(script.count(f'load("{LIBRARY_NAME}", ') == 1 for script in _scripts(config))
    after = snapshot(tmp_path)
    second = run([tmp_path], write=True, check=EXACT)
    assert second.library is None and snapshot(tmp_path) == after


def test_the_dry_run_says_it_would_write_the_library(
    write_file: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    before = snapshot(tmp_path)
    assert main(["migrate", str(tmp_path), "--style", "exact", "--no-diff"]) == 0
    out = capsys.readouterr().out
    assert f"== {tmp_path / LIBRARY_NAME}: would write the helper library" in out
    assert snapshot(tmp_path) == before


def test_library_dir_and_out_dir_choose_where_it_goes(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("in/gw.yaml", SMALL_CONFIG)
    chosen = run([tmp_path / "in"], write=True, check=EXACT, library_dir=tmp_path / "libs")
    assert chosen.library is not None and (tmp_path / "libs" / LIBRARY_NAME).is_file()
    write_file("in2/gw.yaml", SMALL_CONFIG)
    run([tmp_path / "in2"], write=True, check=EXACT, out_dir=tmp_path / "out")
    assert (tmp_path / "out" / "gw.yaml").is_file()
    assert (tmp_path / "out" / LIBRARY_NAME).read_text() == library_text()
    assert not (tmp_path / "in2" / LIBRARY_NAME).exists()


def test_an_identical_library_is_left_as_it_is(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    existing = write_file(LIBRARY_NAME, library_text())
    stamp = existing.stat().st_mtime_ns
    report = run([tmp_path], write=True, check=EXACT)
    assert report.written and report.library is not None
    assert report.library.status is LibraryStatus.SAME
    assert existing.stat().st_mtime_ns == stamp


def test_a_different_library_stops_every_write_unless_forced(
    write_file: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str], certify: list[str]
) -> None:
    write_file("gw.yaml", SMALL_CONFIG)
    write_file(LIBRARY_NAME, "# someone else's helpers\n")
    before = snapshot(tmp_path)
    args = ["migrate", str(tmp_path), "--style", "exact", "--write"]
    assert main([*args, "--no-diff"]) == 1
    out = capsys.readouterr().out
    assert "exists and differs from the helper library" in out
    assert "nothing written: the helper library is in the way" in out
    assert snapshot(tmp_path) == before
    assert main([*args, "--force"]) == 0
    out = capsys.readouterr().out
    assert f"-# someone else's helpers\n+# {LIBRARY_NAME}:" in out
    assert (tmp_path / LIBRARY_NAME).read_text() == library_text()
    assert (tmp_path / f"{LIBRARY_NAME}.orig").read_text() == "# someone else's helpers\n"
    assert b"scriptedTools:" in (tmp_path / "gw.yaml").read_bytes()


@pytest.mark.parametrize(
    "check",
    [CheckOptions(), CheckOptions(style="exact", inline_helpers=True)],
    ids=["readable", "inline"],
)
def test_scripts_that_load_nothing_need_no_library(
    check: CheckOptions, write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    config = write_file("gw.yaml", SMALL_CONFIG)
    report = run([tmp_path], write=True, check=check)
    assert report.library is None and not (tmp_path / LIBRARY_NAME).exists()
    assert not any("load(" in script for script in _scripts(config))


def test_kubernetes_manifests_inline_the_helpers_and_say_so(
    write_file: WriteFile, tmp_path: Path, certify: list[str]
) -> None:
    manifests = write_file("k8s/all.yaml", MANIFESTS)
    report = run([tmp_path], write=True, check=EXACT)
    assert {f.status for f in report.files} == {FileStatus.REWRITTEN}
    assert report.library is None and not (tmp_path / "k8s" / LIBRARY_NAME).exists()
    for outcome in report.tools:
        assert outcome.emitted is not None and outcome.emitted.modules == {}
        assert [r.text for r in outcome.remarks if r.kind == "note"] == [INLINED]
    documents = list(yaml.safe_load_all(manifests.read_text()))
    inline = documents[0]["spec"]["config"]["scriptedTools"][0]["script"]
    assert "load(" not in inline and "\ndef vmcp_result(" in inline
