"""Names the input gives (``scriptFile:``, ``load()``) read nothing outside their folder.

docs/reference.md ("check", "Limits") and docs/migrate.md: a ``scriptFile`` is read from
its configuration's folder and below (THV-0051 states no rule; ours is the one
``load()`` follows); a module is a ``.star`` file inside a library folder,
never one a symbolic link places outside it. One rule, in ``check``,
``migrate``, ``run --library-path`` and the library alike: an escaping
``scriptFile`` leaves its composite tool not converted (exit 1, saying why),
an escaping module is no module (the run fails to load it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import transpiler
from tests.hostile.pairing import PAIRING, QUICK, check, copy, verdicts
from transpiler.cli import main
from transpiler.harness.judging.verdict import Verdict

OUTSIDE = "is outside the folder of its configuration"


def above(tmp_path: Path) -> Path:
    """``scriptFile: ../good.star``."""
    copy("good.star", tmp_path)
    return copy("script-file-above.yaml", tmp_path / "conf")


def absolute(tmp_path: Path) -> Path:
    """``scriptFile:`` the absolute path of a script beside the configuration."""
    script = copy("good.star", tmp_path / "conf")
    text = (PAIRING / "script-file-below.yaml").read_text()
    config = tmp_path / "conf" / "gw.yaml"
    config.write_text(text.replace("workflows/good.star", str(script)))
    return config


def linked_out(tmp_path: Path) -> Path:
    """``scriptFile: workflows/good.star``, a symbolic link to a script outside the folder."""
    outside = copy("good.star", tmp_path / "outside")
    (tmp_path / "conf" / "workflows").mkdir(parents=True)
    os.symlink(outside, tmp_path / "conf" / "workflows" / "good.star")
    return copy("script-file-below.yaml", tmp_path / "conf")


def endless(tmp_path: Path) -> Path:
    """``scriptFile: workflows/good.star``, a symbolic link to ``/dev/zero``: refused as a
    link out of the folder, before anything is read."""
    (tmp_path / "conf" / "workflows").mkdir(parents=True)
    os.symlink("/dev/zero", tmp_path / "conf" / "workflows" / "good.star")
    return copy("script-file-below.yaml", tmp_path / "conf")


ESCAPES = {"above": above, "absolute": absolute, "linked-out": linked_out, "endless": endless}


@pytest.mark.parametrize("layout", ESCAPES)
def test_check_refuses_a_script_file_outside_the_folder(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """../, an absolute path, a link out: not converted (exit 1), saying why."""
    config = ESCAPES[layout](tmp_path)
    code, out, _ = check(capsys, config, *QUICK)
    assert code == 1, out
    assert verdicts(out) == {"echo": "not-converted"} and OUTSIDE in out


@pytest.mark.parametrize("layout", ESCAPES)
def test_migrate_and_the_library_refuse_it_alike(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """migrate leaves the file (exit 1) and Config.check refuses the pair, with the same reason."""
    config = ESCAPES[layout](tmp_path)
    before = config.read_bytes()
    assert main(["migrate", str(config), "--write", "--examples", "1"]) == 1
    assert config.read_bytes() == before and OUTSIDE in capsys.readouterr().out
    outcome = transpiler.load(config).check("echo")
    assert outcome.verdict is Verdict.NOT_CONVERTED and OUTSIDE in outcome.reason


def test_a_script_file_below_the_folder_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The allowed form: a script file in a folder below the configuration's."""
    copy("good.star", tmp_path / "workflows")
    config = copy("script-file-below.yaml", tmp_path)
    code, out, _ = check(capsys, config, *QUICK)
    assert code == 0, out


def test_migrate_will_not_cite_a_script_dir_outside_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--script-dir`` above the configuration: exit 2, and nothing is written."""
    config = copy("echo.yaml", tmp_path / "conf")
    before = config.read_bytes()
    scripts = tmp_path / "scripts"
    arguments = ["migrate", str(config), "--write", "--examples", "1", "--paths", "2"]
    assert main([*arguments, "--script-dir", str(scripts)]) == 2
    assert "is outside the folder of" in capsys.readouterr().err
    assert config.read_bytes() == before and not scripts.exists()


def module_linked_out(tmp_path: Path) -> Path:
    """``loads-lib.yaml`` whose ``lib.star`` beside it is a link to a module outside."""
    config = copy("loads-lib.yaml", tmp_path / "conf")
    outside = tmp_path / "outside" / "lib.star"
    outside.parent.mkdir()
    outside.write_text('target = "svc.echo"\n')
    os.symlink(outside, tmp_path / "conf" / "lib.star")
    return config


def test_check_does_not_load_a_module_linked_from_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A module beside the script that links out is no module, library path given or not."""
    config = module_linked_out(tmp_path)
    for library in ([], ["--library-path", str(config.parent)]):
        code, out, _ = check(capsys, config, *QUICK, *library, "--counterexamples", tmp_path)
        assert code == 1 and "cannot load lib.star: no such module" in out, out


def test_run_does_not_load_it_either(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run --library-path follows the same rule as check."""
    config = module_linked_out(tmp_path)
    script = config.parent / "script.star"
    script.write_text('load("lib.star", "target")\n\ndef run(params):\n    return target\n')
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("params: {x: a}\n")
    arguments = ["run", str(script), "--form", "starlark", "--scenario", str(scenario)]
    assert main([*arguments, "--library-path", str(config.parent)]) == 0
    assert "cannot load lib.star: no such module" in capsys.readouterr().out


def test_a_module_that_is_not_a_star_file_is_no_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``load("lib.txt", ...)``: ``run --library-path`` offers ``.star`` files only, and so
    does ``check``."""
    config = copy("loads-lib.yaml", tmp_path)
    config.write_text(config.read_text().replace("lib.star", "lib.txt"))
    (tmp_path / "lib.txt").write_text('target = "svc.echo"\n')
    code, out, _ = check(capsys, config, *QUICK, "--counterexamples", tmp_path / "ce")
    assert code == 1 and "cannot load lib.txt: no such module" in out, out
