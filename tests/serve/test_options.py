"""``serve``'s command line and BACKENDS.yaml: bad input is a clear error, never a server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.starlark_runtime.conftest import NEEDS_GO
from transpiler.cli import main
from transpiler.diagnostics import InputError
from transpiler.serve.backends_file import MissingVariable, load_backends


def test_the_sdk_is_imported_only_when_serve_runs() -> None:
    probe = (
        "import sys; from transpiler.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert shown.stdout.strip() == "[]", shown.stderr


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("backends: {gh: {}}\n", "give `command`"),
        ("backends: {gh: {command: [a], url: 'http://x'}}\n", "one of them"),
        ("backends: {gh: {url: 'ftp://x'}}\n", "http:// or https://"),
        ("backends: {gh: {command: a}}\n", "non-empty list"),
        ("backends: {gh: {command: [a], token: x}}\n", "unknown key(s) token"),
        ("backends: {gh.x: {command: [a]}}\n", "no dot"),
        ("servers: {}\n", "one key, `backends`"),
    ],
)
def test_a_bad_backends_file_names_what_is_wrong(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "backends.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=None) as raised:
        load_backends(path)
    assert why in str(raised.value) and str(path) in str(raised.value)


def test_a_header_variable_is_read_when_connecting_and_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "backends.yaml"
    path.write_text(
        "backends:\n  cd:\n    url: http://127.0.0.1:1/mcp\n"
        "    headers: {Authorization: 'Bearer ${CD_TOKEN}'}\n"
    )
    spec = load_backends(path)["cd"]
    monkeypatch.delenv("CD_TOKEN", raising=False)
    with pytest.raises(MissingVariable, match="CD_TOKEN is not set"):
        spec.expanded_headers()
    monkeypatch.setenv("CD_TOKEN", "t0ken")
    assert spec.expanded_headers() == {"Authorization": "Bearer t0ken"}


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        (("--transport", "http", "--host", "0.0.0.0"), "give --token-env NAME"),
        (("--host", "127.0.0.1"), "go with --transport http"),
        (("--transport", "http", "--token-env", "NO_SUCH_VARIABLE_X"), "is not set"),
    ],
)
@pytest.mark.usefixtures("ticket_config")
def test_serve_refuses_what_it_cannot_do_safely(
    ticket_config: Path, capsys: pytest.CaptureFixture[str], arguments: tuple[str, ...], why: str
) -> None:
    assert main(["serve", str(ticket_config), *arguments]) == 2
    assert why in capsys.readouterr().err



def test_serve_does_not_record_under_a_folder_check_reads_as_configuration(
    ticket_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ticket_config.parent
    arguments = ["serve", str(folder), "--engine", "rust", "--record", str(folder / "recorded")]
    assert main(arguments) == 2
    assert "whose files check reads as configuration" in capsys.readouterr().err
    assert not (folder / "recorded").exists()


pytestmark = NEEDS_GO
