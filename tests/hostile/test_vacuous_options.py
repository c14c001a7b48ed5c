"""Options that would look at nothing certify nothing.

docs/reference.md ("check"): it exits 1 "when ``--paths 0`` (or ``paths: 0``) would run
no outcome combination, or when a tool ran no scenario (``unchecked``)". A
pass is a claim that scenarios ran: a script that calls another tool and
returns that tool's output must never pass because none did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import transpiler
from tests.hostile.pairing import PAIRING, check, copy, verdicts
from transpiler.cli import main
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions

#: Every spelling of "look at nothing": the policy's keys, the flags, and the two mixed.
SPELLINGS = [
    ("examples: 0\npaths: 0\n", []),
    ("paths: 0\n", []),
    ("paths: 0\n", ["--examples", "0"]),
    ("examples: 0\n", ["--paths", "0"]),
    (None, ["--paths", "0"]),
    (None, ["--examples", "0", "--paths", "0"]),
]


@pytest.mark.parametrize(("policy", "flags"), SPELLINGS)
def test_no_scenario_gives_unchecked_never_a_pass(
    policy: str | None, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check: a wrong script with nothing run is ``unchecked`` (exit 1), with the reason."""
    config = copy("beside-wrong.yaml", tmp_path)
    if policy is not None:
        (tmp_path / "vmcp-transpile.yaml").write_text(policy)
    code, out, _ = check(capsys, config, *flags, "--jobs", "1", "--counterexamples", tmp_path)
    assert code == 1, out
    assert verdicts(out) == {"echo": "unchecked"}
    assert "nothing would be certified" in out


@pytest.mark.parametrize(("policy", "flags"), SPELLINGS)
def test_migrate_writes_nothing_it_did_not_check(
    policy: str | None, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """migrate --write: a tool no scenario checked is not migrated (exit 1, file untouched)."""
    config = copy("echo.yaml", tmp_path)
    if policy is not None:
        (tmp_path / "vmcp-transpile.yaml").write_text(policy)
    before = config.read_bytes()
    assert main(["migrate", str(config), "--write", *flags]) == 1
    assert config.read_bytes() == before
    assert "unchecked" in capsys.readouterr().out


def test_the_library_gives_unchecked_too() -> None:
    """Config.check with options that run nothing: ``unchecked``, and it does not pass."""
    config = transpiler.load(PAIRING / "beside-wrong.yaml")
    for options in (CheckOptions(paths=0), CheckOptions(paths=0, examples=0)):
        outcome = config.check("echo", options=options)
        assert outcome.verdict is Verdict.UNCHECKED and not outcome.passes(None)
