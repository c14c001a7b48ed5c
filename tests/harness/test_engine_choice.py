"""``check --engine``: a requested interpreter that cannot run stops the gate (exit 2, naming
why); the default, starlark-rust, is said on every run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.cli.common import EXIT_INPUT
from transpiler.gobuild import GOPATH_VARIABLE

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


def test_the_default_engine_is_said_with_why_go_was_not_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _without_go(monkeypatch, tmp_path)
    config = str(CORPUS / "example" / "vmcp-config.yaml")
    main(["check", config, *SMALL, "--counterexamples", str(tmp_path / "saved")])
    error = capsys.readouterr().err
    assert "note: scripts run on starlark-rust, the default engine" in error
    assert "it cannot run here: no Go toolchain" in error
