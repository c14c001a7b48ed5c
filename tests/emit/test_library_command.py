"""The library on the command line: ``library``, ``--inline-helpers``, ``run --library-path``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.emit.library import LIBRARY_NAME, library_text

EXAMPLE = str(CORPUS / "example")
SCENARIO = """\
tool: sync_inventory
params: {}
backends:
  cmdb.export_assets:
    results:
    - structuredContent: {assets: 3, format: json}
"""


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_library_prints_or_writes_the_file_and_never_replaces_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(capsys, "library")[:2] == (0, library_text())
    target = tmp_path / "libs" / LIBRARY_NAME
    assert _main(capsys, "library", "--out", str(tmp_path / "libs"))[1] == f"{target}: written\n"
    assert target.read_text() == library_text()
    code, out, _ = _main(capsys, "library", "--out", str(tmp_path / "libs"))
    assert (code, out) == (0, f"{target}: already up to date\n")
    target.write_text("# mine\n")
    code, _, err = _main(capsys, "library", "--out", str(tmp_path / "libs"))
    assert code == 1 and "exists and differs" in err and target.read_text() == "# mine\n"
    assert _main(capsys, "library", "--out", str(tmp_path / "libs"), "--force")[0] == 0
    assert target.read_text() == library_text()


@pytest.mark.parametrize("inline", [False, True], ids=["load", "inline"])
def test_emit_json_names_the_modules_a_script_loads(
    inline: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--inline-helpers"] if inline else []
    code, out, _ = _main(capsys, "emit", EXAMPLE, "--style", "exact", "--format", "json", *flags)
    scripts = json.loads(out)["scripts"]
    assert code == 0 and len(scripts) == 4
    for script in scripts:
        assert script["modules"] == ([] if inline else [LIBRARY_NAME])
        assert ("load(" in script["script"]) is not inline


def test_an_emitted_script_runs_with_the_library_on_its_library_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, script, _ = _main(capsys, "emit", EXAMPLE, "--style", "exact", "--tool", "sync_inventory")
    assert code == 0
    (tmp_path / "sync.star").write_text(script)
    (tmp_path / "s.yaml").write_text(SCENARIO)
    main(["library", "--out", str(tmp_path / "libs")])
    capsys.readouterr()
    run = ["run", "--form", "starlark", str(tmp_path / "sync.star"), "--scenario"]
    _, alone, _ = _main(capsys, *run, str(tmp_path / "s.yaml"))
    assert "cannot load vmcp_compat.star: no such module" in json.loads(alone)["error"]
    _, loaded, _ = _main(
        capsys, *run, str(tmp_path / "s.yaml"), "--library-path", str(tmp_path / "libs")
    )
    composite = ["run", "--form", "composite", EXAMPLE, "--scenario", str(tmp_path / "s.yaml")]
    _, expected, _ = _main(capsys, *composite)
    ours, theirs = json.loads(loaded), json.loads(expected)
    assert ours["outcome"] == theirs["outcome"] == "success"
    assert ours["client_result"] == theirs["client_result"]


@pytest.mark.parametrize("inline", [False, True], ids=["load", "inline"])
def test_check_certifies_either_form_and_records_the_modules(
    inline: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    flags = ["--inline-helpers"] if inline else []
    # On starlark-rust: on go.starlark.net the exact scan_image_packages exceeds the 1,000,000
    # execution steps with 500 packages, a difference of its own (not the helpers' form).
    argv = ["check", EXAMPLE, "--style", "exact", "--examples", "3", "--paths", "4", "--engine"]
    code, _, _ = _main(capsys, *argv, "rust", "--jobs", "1", "--report-json", str(report), *flags)
    assert code == 0
    digest = hashlib.sha256(library_text().encode()).hexdigest()
    expected = {} if inline else {LIBRARY_NAME: digest}
    tools = json.loads(report.read_text())["tools"]
    assert len(tools) == 4
    assert all(tool["certificate"]["modules_sha256"] == expected for tool in tools)
