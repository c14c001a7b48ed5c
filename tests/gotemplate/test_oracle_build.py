"""Building and running the Go oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import use_toolchain
from transpiler.gobuild import DEBIAN_GOPATH, GOPATH_VARIABLE, toolchain
from transpiler.gotemplate.oracle import GoOracle, OracleUnavailable, build_oracle
from transpiler.gotemplate.protocol import RenderRequest, RenderResult


def test_missing_go_names_the_debian_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(GOPATH_VARIABLE, str(tmp_path / "missing"))
    monkeypatch.setattr("transpiler.gobuild.shutil.which", lambda _: None)
    with pytest.raises(OracleUnavailable, match="golang-go"):
        build_oracle()


@pytest.mark.go
def test_binary_is_cached_by_source_hash(oracle: GoOracle) -> None:
    binary = build_oracle()
    assert binary.parent.name in {p.name for p in Path(binary.parent.parent).iterdir()}
    assert build_oracle() == binary


@pytest.mark.go
def test_each_toolchain_builds_its_own_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.MonkeyPatch.context() as patch:
        use_toolchain("pinned", patch)
        pinned = build_oracle()
    use_toolchain("debian", monkeypatch)
    assert build_oracle() != pinned


def test_the_fallback_says_why_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(GOPATH_VARIABLE, str(tmp_path / "missing"))
    chosen = toolchain()
    assert not chosen.pinned and chosen.gopath == (DEBIAN_GOPATH,)
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1
    assert warning.startswith(
        f"warning: go.starlark.net at vMCP's pinned commit not found in {tmp_path / 'missing'}: "
        f"using {chosen.version or 'go on PATH'} and go.starlark.net Debian golang-starlark-dev"
    )


@pytest.mark.go
def test_oracle_reports_each_error_class(oracle: GoOracle) -> None:
    results = oracle.render_many(
        [
            RenderRequest("{{.x}}", {"x": {"$int": 1}}),
            RenderRequest("{{", {}),
            RenderRequest("{{.x.y}}", {"x": 1.0}),
            RenderRequest("{{.b}}{{.b}}", {"b": "y" * 6_000_000}),
        ]
    )
    assert results[0] == RenderResult(ok=True, out="map[$int:1]")
    assert [r.kind for r in results[1:]] == ["parse", "exec", "size"]
