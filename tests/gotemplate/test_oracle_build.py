"""Building and running the Go oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.gobuild import GOPATH_VARIABLE
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
