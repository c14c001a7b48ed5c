"""The same unreadable input gives the same exit code from every command (issue 13, item 2).

Exit codes (docs/reference.md): 0 fine, 1 invalid / different / not converted, 2 an input
cannot be read (a path that cannot be opened or listed, a file over the size
limit, or bytes that are not YAML the loader can parse). A gate that passes
what it cannot read is worse than no gate.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, fuzz_budget
from transpiler.cli import main
from transpiler.config.loader import load_paths

UNREADABLE = sorted((CORPUS / "hostile" / "unreadable").iterdir())
GOOD = """\
compositeTools:
  - name: echo
    description: Echo a parameter
    parameters:
      type: object
      properties:
        x: {type: string}
    steps:
      - id: a
        tool: svc.echo
        arguments:
          v: "{{.params.x}}"
"""
CHEAP = ["--examples", "1", "--paths", "2"]
COMMANDS = {
    "validate": [],
    "check": [*CHEAP, "--jobs", "1"],
    "migrate": ["--examples", "1"],
}


def codes(*paths: Path) -> dict[str, int]:
    """Each command's exit code on ``paths``."""
    return {
        command: main([command, *map(str, paths), *options])
        for command, options in COMMANDS.items()
    }


@pytest.mark.parametrize("path", UNREADABLE, ids=lambda p: p.name)
def test_every_command_exits_2_and_names_the_line(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    assert codes(path, good) == {"validate": 2, "check": 2, "migrate": 2}
    captured = capsys.readouterr()
    lines = (captured.out + captured.err).splitlines()
    assert sum(f"{path}:" in line for line in lines) >= 3
    # The readable file beside it is still checked: one tool's input does not take the others.
    assert re.search(r"(equivalent|equivalent-except)\s+echo\s", captured.out)
    assert re.search(r"\d+ of \d+ tool\(s\) pass .*; 1 input\(s\) cannot be read", captured.out)


def test_a_directory_that_cannot_be_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As root nothing is unreadable, so the refusal is simulated where the OS would give it."""
    (tmp_path / "good.yaml").write_text(GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", locked)
    scandir = os.scandir

    def refusing(path: str | os.PathLike[str] = ".") -> Iterator[os.DirEntry[str]]:
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    assert codes(tmp_path) == {"validate": 2, "check": 2, "migrate": 2}
    out = capsys.readouterr()
    assert f"{locked}: error[INPUT.unreadable]: cannot list directory: Permission denied" in (
        out.out + out.err
    )


TOKENS = [b"\t", b"\x00", b"\xff", b"\xc3", b"[" * 300, b"{a: ", b"&x ", b"*x", b"---\n", b": ["]


@st.composite
def hostile(draw: st.DrawFn) -> bytes:
    """The good config with a few hostile bytes inserted (often unreadable, sometimes not)."""
    data = bytearray(GOOD.encode())
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        position = draw(st.integers(min_value=0, max_value=len(data)))
        data[position:position] = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=4))
    return bytes(data)


@settings(max_examples=fuzz_budget(30), suppress_health_check=list(HealthCheck), deadline=None)
@given(data=hostile())
def test_fuzz_every_command_gives_the_same_verdict_class(data: bytes) -> None:
    """Unreadable for one command is unreadable for all; invalid likewise; valid is never 2.

    On valid input ``migrate`` may refuse what ``check`` certifies (it cannot
    rewrite flow style or anchors: a documented limit), never the reverse; with no
    composite tool, ``check`` has nothing to certify (1) and ``migrate`` nothing to do (0).
    """
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "config.yaml")
        path.write_bytes(data)
        found = codes(path)
        composite = bool(load_paths([path]).tools)
    if found["validate"] == 0 and not composite:
        # Nothing to check is no pass for the gate; nothing to migrate is a finished migration.
        assert (found["check"], found["migrate"]) == (1, 0), found
    elif found["validate"] == 0:
        assert found["check"] in (0, 1) and found["migrate"] in (found["check"], 1), found
    else:
        assert found["check"] == found["migrate"] == found["validate"], found
