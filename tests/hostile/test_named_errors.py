"""Every refusal of a data file names it: the policy, ``--tools``, ``--scenario``, ``--since``.

docs/reference.md ("Limits"): hostile input gets a clear error naming the file, in
bounded time and memory. "Input nested too deeply to process" and "input too
large to process" name nothing: each file a command reads is refused as
itself (exit 2), nested too deep, too large, or not a regular file (a FIFO
would block, ``/dev/zero`` never ends).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.pairing import PAIRING, QUICK, copy
from transpiler.cli import main

DEEP_YAML = "x: " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_JSON = "[" * 100_000 + "]" * 100_000
#: Each reader's size limit, made small here so that a file past it is cheap to write.
LIMITS = {
    "policy": ("transpiler.policy", "MAX_FILE_BYTES"),
    "tools": ("transpiler.emit.tools_file", "MAX_BYTES"),
    "since": ("transpiler.harness.reporting.since", "MAX_REPORT_BYTES"),
    "scenario": ("transpiler.sim.scenario", "MAX_SCENARIO_BYTES"),
}
SMALL_LIMIT = 4096


def big(path: Path) -> None:
    path.write_text("# " + "x" * SMALL_LIMIT + "\n")


def deep(text: str) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_text(text)

    return write


def fifo(path: Path) -> None:
    os.mkfifo(path)


def endless(path: Path) -> None:
    os.symlink("/dev/zero", path)


MAKERS = {"deep": deep(DEEP_YAML), "big": big, "fifo": fifo, "endless": endless}


def command(kind: str, tmp_path: Path) -> tuple[list[str], Path]:
    """The command that reads a data file of ``kind``, and where that file goes."""
    config = copy("beside-good.yaml", tmp_path)
    if kind == "policy":
        return ["check", str(config), *QUICK], tmp_path / "vmcp-transpile.yaml"
    if kind == "tools":
        data = tmp_path / "tools.json"
        return ["check", str(config), *QUICK, "--tools", str(data)], data
    if kind == "since":
        data = tmp_path / "earlier.json"
        return ["check", str(config), *QUICK, "--since", str(data)], data
    data = tmp_path / "scenario.yaml"
    run = ["run", str(PAIRING / "echo.yaml"), "--tool", "echo", "--form", "composite"]
    return [*run, "--scenario", str(data)], data


@pytest.mark.parametrize("kind", ["policy", "tools", "since", "scenario"])
@pytest.mark.parametrize("maker", MAKERS)
def test_a_hostile_data_file_exits_2_naming_it(
    kind: str,
    maker: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Deep, over its limit, a FIFO or /dev/zero: exit 2 naming the file, promptly."""
    module, name = LIMITS[kind]
    monkeypatch.setattr(f"{module}.{name}", SMALL_LIMIT)
    arguments, data = command(kind, tmp_path)
    if kind == "since" and maker == "deep":
        data.write_text(DEEP_JSON)
    else:
        MAKERS[maker](data)
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert f"error: {data}" in err, err
    assert "internal error" not in err
