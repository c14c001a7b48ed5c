"""``--baseline-git REV`` reads the baseline the revision really holds, or stops.

docs/reference.md ("check"): ``--baseline-git REV`` reads BASE as git revision REV holds
PATH, and exit 2 means an input cannot be read. An unset CI variable (an empty
revision or path) must not drop the baseline and leave nothing to check; a
symbolic link in the revision is followed inside the revision, as a checkout
would follow it, never read as the configuration's text, and a link that
leaves the repository or leads nowhere is an unreadable input.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hostile.pairing import QUICK, check, copy, verdicts

PASSING = {"equivalent", "equivalent-except"}
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="LOUD SKIP: git is missing")


def git(repository: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repository), *arguments], check=True, capture_output=True)


def committed(repository: Path) -> None:
    """Commit everything in ``repository`` (a new one)."""
    git(repository, "init", "-q")
    git(repository, "add", "-A")
    git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")


def migrated_behind_a_link(tmp_path: Path, script: str) -> Path:
    """A repository whose committed ``vmcp/gw.yaml`` is a link to the composite tool's file,
    and whose working tree holds the migrated ``gw.yaml`` (with the ``script`` migration)."""
    copy("echo.yaml", tmp_path / "conf", "real.yaml")
    (tmp_path / "vmcp").mkdir()
    os.symlink("../conf/real.yaml", tmp_path / "vmcp" / "gw.yaml")
    committed(tmp_path)
    (tmp_path / "vmcp" / "gw.yaml").unlink()
    return copy(f"migrated-{script}.yaml", tmp_path / "vmcp", "gw.yaml")


@pytest.mark.parametrize(
    "empty", [["--baseline-git", ""], ["--baseline", ""], ["--library-path", ""]]
)
def test_an_empty_option_is_refused_not_dropped(
    empty: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty revision or path (an unset variable) exits 2 saying so."""
    config = copy("migrated-wrong.yaml", tmp_path)
    committed(tmp_path)
    try:
        code, out, err = check(capsys, config, *empty, *QUICK)
    except SystemExit as exit_:  # argparse's refusal of an option's value
        code, err = int(str(exit_.code)), capsys.readouterr().err
    assert code == 2, out
    assert "needs a revision" in err or "an empty path" in err


def test_an_empty_path_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``check ""`` is not ``check .``."""
    code, _, err = check(capsys, "", *QUICK)
    assert code == 2 and "an empty path" in err


@pytest.mark.parametrize(("script", "verdicts_seen"), [("wrong", {"differs"}), ("good", PASSING)])
def test_a_link_in_the_revision_is_followed_there(
    script: str, verdicts_seen: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The baseline behind a link is the file it links to: a wrong migration differs (exit 1),
    a right one passes (exit 0); neither is "nothing to check"."""
    config = migrated_behind_a_link(tmp_path, script)
    code, out, err = check(
        capsys, config, "--baseline-git", "HEAD", *QUICK, "--counterexamples", tmp_path / "ce"
    )
    assert verdicts(out).get("echo") in verdicts_seen, out + err
    assert code == (0 if verdicts_seen == PASSING else 1)


def test_the_path_given_may_be_a_link_to_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PATH that is a link to a folder in the revision: the folder's files are the baseline."""
    copy("echo.yaml", tmp_path / "conf", "gw.yaml")
    os.symlink("conf", tmp_path / "vmcp")
    committed(tmp_path)
    (tmp_path / "vmcp").unlink()
    copy("migrated-wrong.yaml", tmp_path / "vmcp", "gw.yaml")
    code, out, _ = check(
        capsys,
        tmp_path / "vmcp",
        "--baseline-git",
        "HEAD",
        *QUICK,
        "--counterexamples",
        tmp_path / "ce",
    )
    assert code == 1 and verdicts(out)["echo"] == "differs", out


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("/etc/hostname", "outside the repository"),
        ("../../outside.yaml", "outside the repository"),
        ("missing.yaml", "which HEAD does not hold"),
        ("gw.yaml", "in a row (a loop?)"),
    ],
)
def test_a_link_that_leads_nowhere_readable_is_an_unreadable_input(
    target: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, naming the link as the revision holds it and why it cannot be read."""
    (tmp_path / "vmcp").mkdir()
    os.symlink(target, tmp_path / "vmcp" / "gw.yaml")
    committed(tmp_path)
    (tmp_path / "vmcp" / "gw.yaml").unlink()
    config = copy("migrated-wrong.yaml", tmp_path / "vmcp", "gw.yaml")
    code, _, err = check(capsys, config, "--baseline-git", "HEAD", *QUICK)
    assert code == 2
    assert f"HEAD:vmcp/gw.yaml: error[INPUT.unreadable]: a symbolic link to {target}" in err
    assert why in err


def test_a_revision_a_shallow_clone_lacks_says_to_fetch_the_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI checks a pull request out shallow, one branch: ``origin/main`` is not there. The
    gate stops (exit 2) saying so and how to get it, not with git's bare message."""
    origin = tmp_path / "origin"
    copy("migrated-wrong.yaml", origin, "gw.yaml")
    committed(origin)
    git(origin, "branch", "-M", "main")
    git(origin, "checkout", "-qb", "change")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--branch", "change", f"file://{origin}", clone],
        check=True,
        capture_output=True,
    )
    code, _, err = check(capsys, clone / "gw.yaml", "--baseline-git", "origin/main", *QUICK)
    assert code == 2
    assert "--baseline-git origin/main: this repository does not hold it" in err
    assert "`fetch-depth: 0`" in err and "Not a valid object name" not in err
    git(clone, "fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main")
    code, _, err = check(capsys, clone / "gw.yaml", "--baseline-git", "origin/gone", *QUICK)
    assert code == 2 and "this repository does not hold it; fetch it first" in err
