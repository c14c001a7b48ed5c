"""A tool with two scripts is checked against neither.

docs/reference.md ("check") pairs each composite tool with "the scripted tool of the same
name beside it"; inputs/scripted.py: a scripted tool vMCP (the target,
thv-0051) would not take is kept with vMCP's reason. Two scripted tools of one
name, ``script:`` given twice
(a key yaml.v3 refuses to see twice), ``script:`` with ``scriptFile:``
(THV-0051 makes them exclusive), ``scriptedTools:`` given twice, two scripted
definitions of one namespace and name: each is refused as duplicate composite
tools and duplicate keys already are (not converted, exit 1, naming the
lines), in ``check``, ``migrate`` and the library alike, never "the first one
wins" in silence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import transpiler
from tests.hostile.pairing import PAIRING, QUICK, check, copy, verdicts
from transpiler.cli import main
from transpiler.harness.judging.verdict import Verdict

#: Each configuration (its first script is right, its second wrong) and what the refusal says.
TWICE = {
    "two-of-one-name.yaml": "scripted tool echo is defined 2 times (",
    "script-twice.yaml": 'line 29: mapping key "script" already defined at line 23',
    "script-and-file.yaml": "script and scriptFile are mutually exclusive",
    "scripted-tools-twice.yaml": 'mapping key "scriptedTools" already defined at line 15',
    "definitions-twice.yaml": "scripted tool echo is defined 2 times (",
}


def laid_out(name: str, folder: Path) -> Path:
    """``name`` copied into ``folder`` with the script files it may cite."""
    copy("wrong.star", folder)
    copy("good.star", folder)
    return copy(name, folder)


@pytest.mark.parametrize("name", TWICE)
def test_check_refuses_both_scripts(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check: not converted (exit 1), saying why, though the first script is right."""
    config = laid_out(name, tmp_path)
    code, out, _ = check(capsys, config, *QUICK, "--counterexamples", tmp_path / "ce")
    assert code == 1, out
    assert verdicts(out) == {"echo": "not-converted"}
    assert TWICE[name] in out


@pytest.mark.parametrize("name", TWICE)
def test_migrate_leaves_the_file_and_says_why(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """migrate --write: the composite tool is kept, the file untouched, the reason printed."""
    config = laid_out(name, tmp_path)
    before = config.read_bytes()
    assert main(["migrate", str(config), "--write", "--examples", "1"]) == 1
    assert config.read_bytes() == before
    assert TWICE[name] in capsys.readouterr().out


@pytest.mark.parametrize("name", TWICE)
def test_the_library_refuses_both_scripts(name: str, tmp_path: Path) -> None:
    """Config.check: the same refusal as the command."""
    outcome = transpiler.load(laid_out(name, tmp_path)).check("echo")
    assert outcome.verdict is Verdict.NOT_CONVERTED and TWICE[name] in outcome.reason


def test_a_baseline_tool_with_two_scripted_tools_of_its_name_pairs_with_neither(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A baseline's composite tool and two scripted tools of its name in two files: no pick."""
    migrated = tmp_path / "migrated"
    copy("migrated-good.yaml", migrated, "a.yaml")
    copy("migrated-wrong.yaml", migrated, "b.yaml")
    code, out, _ = check(capsys, migrated, "--baseline", PAIRING / "echo.yaml", *QUICK)
    assert code == 1 and verdicts(out) == {"echo": "not-converted"}
    assert "scripted tool echo is defined 2 times" in out
