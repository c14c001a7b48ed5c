"""``migrate`` never writes a file that no command can read back.

Promise (docs/migrate.md, "Safety"): the re-read of
every rewritten file applies the limits every reader applies (2 MiB a file,
and a script file it cites); past them the file is not migrated and nothing
is written. Script headers repeat only the first line of a tool's
description, so a migrated file stays about the size of the original.

Reproduction: a valid 1.2 MB configuration whose tools had long descriptions
was migrated (exit 0) into 2.4 MB, each script header repeating its tool's
description; every command then refused the file as over 2 MiB.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.test_exit_codes import GOOD
from transpiler.cli import main
from transpiler.config.loader import load_bytes
from transpiler.reading import MAX_FILE_BYTES

CHEAP = ["--examples", "1", "--paths", "1", "--no-diff"]
LINES = [f"Line {number} of the description. " + "It goes on. " * 80 for number in range(9)]


def config_with_description(description: str, size: int | None = None) -> str:
    """GOOD with its tool's description replaced (a YAML block scalar), padded to ``size``."""
    block = "".join(f"      {line}\n" for line in description.splitlines())
    text = GOOD.replace("    description: Echo a parameter\n", f"    description: |\n{block}")
    if size is not None:
        text = f"# {'x' * (size - len(text) - 3)}\n" + text
    return text


def test_a_migration_past_the_size_limit_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.yaml"
    original = config_with_description("Echo a parameter", MAX_FILE_BYTES - 100)
    config.write_text(original)
    assert not load_bytes(config.read_bytes()).input_errors
    assert main(["migrate", str(config), "--write", *CHEAP]) == 1
    out = capsys.readouterr().out
    assert "the migrated file would be " in out and f"over {MAX_FILE_BYTES} bytes" in out
    assert config.read_text() == original
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config.yaml"]


def test_script_headers_keep_the_first_line_of_a_description(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(config_with_description("\n".join(LINES)))
    before = config.stat().st_size
    assert main(["migrate", str(config), "--write", "--no-backup", *CHEAP]) == 0
    after = config.read_text()
    assert after.count("Line 0 of the description.") == 2  # the description, the header
    assert all(after.count(f"Line {number} of") == 1 for number in range(1, 9))
    assert config.stat().st_size < before * 1.5
    assert main(["validate", str(config)]) == 0  # readable again
