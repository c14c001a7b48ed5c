"""Inputs and helpers shared by the hostile tests of pairing: ``corpus/hostile/pairing``.

``echo.yaml`` holds one composite tool; ``good.star`` replaces it (declaring
the error texts it words differently), ``wrong.star`` calls another tool and
returns that tool's output, so no scenario can find it equivalent. The other
files are configurations built from them, each named for what it tries.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main

PAIRING = CORPUS / "hostile" / "pairing"
#: Cheap enough for many runs, enough to find ``wrong.star`` different.
QUICK = ("--examples", "2", "--paths", "2", "--jobs", "1")


def check(capsys: pytest.CaptureFixture[str], *arguments: str | Path) -> tuple[int, str, str]:
    """``check``'s exit code, standard output and standard error."""
    code = main(["check", *map(str, arguments)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verdicts(out: str) -> dict[str, str]:
    """Each tool's verdict in ``check``'s console output."""
    found = re.findall(r"^(?:PASS|FAIL)\s+([a-z-]+)\s{2}(\S+)\s{2}\(", out, re.MULTILINE)
    return {tool: verdict for verdict, tool in found}


def copy(name: str, folder: Path, as_name: str | None = None) -> Path:
    """A file of the corpus copied into ``folder`` (created), under ``as_name`` if given."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (as_name or name)
    shutil.copy(PAIRING / name, target)
    return target
