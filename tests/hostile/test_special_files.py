"""Files that are not regular files, or that never end, are refused by name, at once.

Promise (docs/reference.md, "Limits"; ``transpiler/reading.py``): every input file
(configurations, ``--script``, ``scriptFile:``, ``load()``ed modules,
policies, reports, tools files, scenarios) is read only if it is a regular
file, and at most its size limit is read (2 MiB for configurations, scripts
and modules), counted while reading. Past that it is an input that cannot be
read: exit 2 naming the file from every command (the other tools are still
checked), :class:`~transpiler.diagnostics.InputError` from the library.

Reproductions: a FIFO as ``scriptFile:`` or ``--script`` hung ``check`` and
``transpiler.load()``; ``/dev/zero`` was read until memory ran out ("input too
large to process", no file named; ``MemoryError`` from the library).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

import transpiler
from tests.hostile.test_exit_codes import GOOD
from transpiler.cli import main
from transpiler.diagnostics import InputError
from transpiler.reading import MAX_FILE_BYTES, UnreadableFile, read_bytes

#: Seconds a refusal may take; a reader blocked on a FIFO would take forever.
PATIENCE = 60
CHEAP = ["--examples", "1", "--paths", "1"]
SCRIPTED = (
    GOOD
    + """\
scriptedTools:
  - name: echo
    description: Echo a parameter
    scriptFile: SCRIPT
"""
)
LOADING = "load('helpers.star', 'answer')\n\ndef run(params):\n    return answer()\n"


@pytest.fixture(autouse=True)
def never_blocks() -> Iterator[None]:
    """Fail (instead of hanging the suite) when a read blocks."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still reading after {PATIENCE} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(PATIENCE)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def special(tmp_path: Path, kind: str, name: str) -> Path:
    """A FIFO, or a symbolic link to ``/dev/zero``, named ``name`` in ``tmp_path``."""
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


KINDS = {"fifo": "a FIFO", "zero": "a character device"}
#: What a configuration may cite (``scriptFile:``, a module beside it): a link to /dev/zero
#: leads out of the configuration's folder, and is refused for that before any read
#: (tests/hostile/test_escapes.py).
CITED = ["fifo"]


@pytest.mark.parametrize("kind", CITED)
def test_script_file_that_is_not_regular(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = special(tmp_path, kind, "echo.star")
    config = tmp_path / "config.yaml"
    config.write_text(SCRIPTED.replace("SCRIPT", script.name))
    assert main(["check", str(config), *CHEAP, "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert f"error: {script}: error[INPUT.unreadable]: not a regular file ({KINDS[kind]})" in err
    assert main(["migrate", str(config), *CHEAP]) == 2
    assert str(script) in capsys.readouterr().out
    with pytest.raises(InputError, match=f"{script}: not a regular file"):
        transpiler.load(config)


@pytest.mark.parametrize("kind", KINDS)
def test_script_option_that_is_not_regular(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = special(tmp_path, kind, "echo.star")
    config = tmp_path / "config.yaml"
    config.write_text(GOOD)
    code = main(["check", str(config), "--script", str(script), "--tool", "echo", *CHEAP])
    assert code == 2
    assert f"error: {script}: not a regular file ({KINDS[kind]})" in capsys.readouterr().err


@pytest.mark.parametrize("kind", CITED)
def test_module_that_is_not_regular(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = special(tmp_path, kind, "helpers.star")
    (tmp_path / "echo.star").write_text(LOADING)
    config = tmp_path / "config.yaml"
    config.write_text(SCRIPTED.replace("SCRIPT", "echo.star"))
    assert main(["check", str(config), *CHEAP, "--jobs", "1"]) == 2
    captured = capsys.readouterr()
    assert f"error: {module}: error[INPUT.unreadable]: not a regular file" in captured.err
    assert "loads a module that cannot be read" in captured.out
    script = ["--script", str(tmp_path / "echo.star"), "--tool", "echo"]
    assert main(["check", str(config), *script, *CHEAP]) == 2
    assert f"error: {module}: not a regular file" in capsys.readouterr().err


def test_a_config_path_that_is_a_fifo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = special(tmp_path, "fifo", "config.yaml")
    assert main(["validate", str(fifo)]) == 2
    out = capsys.readouterr().out
    assert f"{fifo}: error[INPUT.unreadable]: not a regular file (a FIFO)" in out


def test_the_limit_is_counted_while_reading(tmp_path: Path) -> None:
    """``/proc`` files list a size of 0 whatever they hold; the count is what was read."""
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    with pytest.raises(UnreadableFile, match="file is more than 16 bytes; the limit is 16"):
        read_bytes(status, limit=16)
    big = tmp_path / "big.star"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(UnreadableFile, match=f"file is {MAX_FILE_BYTES + 1} bytes; the limit"):
        read_bytes(big)
    config = tmp_path / "config.yaml"
    config.write_text(SCRIPTED.replace("SCRIPT", big.name))
    with pytest.raises(InputError, match="the limit is"):
        transpiler.load(config)
