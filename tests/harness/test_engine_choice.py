"""``check --engine``: a requested interpreter that cannot run stops the gate (exit 2, naming
why); the default is go.starlark.net where it can run, else starlark-rust, said, and every run
names its engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.cli.common import EXIT_INPUT
from transpiler.gobuild import GOPATH_VARIABLE, go_unavailable

SMALL = ["--examples", "1", "--paths", "1", "--jobs", "1"]


def _without_go(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(GOPATH_VARIABLE, str(tmp_path / "no-gopath"))
    monkeypatch.setattr("transpiler.gobuild.shutil.which", lambda _: None)
    monkeypatch.setattr("transpiler.gobuild._go_bin", lambda: None)


@pytest.mark.parametrize("engine", ["go", "both"])
def test_a_requested_go_engine_that_cannot_run_is_an_input_error(
    engine: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _without_go(monkeypatch, tmp_path)
    config = str(CORPUS / "example" / "vmcp-config.yaml")
    assert main(["check", config, "--engine", engine, *SMALL]) == EXIT_INPUT
    error = capsys.readouterr().err
    assert f"--engine {engine} needs go.starlark.net, which cannot run: no Go toolchain" in error
    assert "Traceback" not in error


def test_the_policy_file_asking_for_go_is_named_when_go_cannot_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _without_go(monkeypatch, tmp_path)
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", tmp_path / "vmcp-config.yaml")
    (tmp_path / "vmcp-transpile.yaml").write_text("engines: [go]\n")
    assert main(["check", str(tmp_path / "vmcp-config.yaml"), *SMALL]) == EXIT_INPUT
    assert "vmcp-transpile.yaml: engines: go needs go.starlark.net" in capsys.readouterr().err


def test_where_go_cannot_run_the_default_is_rust_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _without_go(monkeypatch, tmp_path)
    config = str(CORPUS / "example" / "vmcp-config.yaml")
    main(["check", config, *SMALL, "--counterexamples", str(tmp_path / "saved")])
    error = capsys.readouterr().err
    assert "note: go.starlark.net, what vMCP embeds and the default engine, cannot run" in error
    assert "(no Go toolchain" in error and "scripts run on starlark-rust instead" in error
    assert "policy: none; engine: rust\n" in error


@pytest.mark.go
def test_the_default_engine_is_go_where_it_can_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if go_unavailable() is not None:
        pytest.skip(f"LOUD SKIP: go.starlark.net cannot run here: {go_unavailable()}")
    config = str(CORPUS / "example" / "vmcp-config.yaml")
    report = tmp_path / "report.json"
    main(["check", config, *SMALL, "--report-json", str(report)])
    assert "policy: none; engine: go\n" in capsys.readouterr().err
    (entry, *_) = json.loads(report.read_text())["tools"]
    assert entry["certificate"]["engines"] == ["go"]
