"""Build our small Go programs on demand with Debian's Go toolchain (GOPATH mode).

The Go programs (the template oracle, the go.starlark.net host) ship as source
in the package. They are compiled the first time they are needed into a cache
directory keyed by a hash of the source, so a changed source is rebuilt and an
unchanged one costs nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from pathlib import Path

from transpiler.diagnostics import TranspilerError

GOPATH = "/usr/share/gocode"
_LOCK = threading.Lock()


class GoToolchainMissing(TranspilerError):
    """The Go toolchain (or go.starlark.net) is not installed."""


def cache_dir() -> Path:
    """Where built programs live: ``$TRANSPILER_CACHE``, else ``~/.cache/vmcp-transpiler``."""
    configured = os.environ.get("TRANSPILER_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vmcp-transpiler"


def go_available(needs_starlark: bool = False) -> bool:
    """Whether ``go`` (and, if asked, go.starlark.net) is installed."""
    if shutil.which("go") is None:
        return False
    return not needs_starlark or Path(GOPATH, "src", "go.starlark.net").is_dir()


def build(source: Path, name: str, needs_starlark: bool = False) -> Path:
    """Compile ``source`` (one ``main.go``) once; return the binary's path."""
    if not go_available(needs_starlark):
        missing = "golang-go and golang-starlark-dev" if needs_starlark else "golang-go"
        raise GoToolchainMissing(
            f"the Go toolchain is needed for {name}: install the Debian package(s) {missing} "
            "(./dev does this on a fresh machine)"
        )
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    target_dir = cache_dir() / f"{name}-{digest}"
    binary = target_dir / name
    with _LOCK:
        if binary.exists():
            return binary
        target_dir.mkdir(parents=True, exist_ok=True)
        work = target_dir / "src"
        work.mkdir(exist_ok=True)
        shutil.copyfile(source, work / "main.go")
        environment = dict(
            os.environ,
            GO111MODULE="off",
            GOPATH=GOPATH,
            GOCACHE=str(cache_dir() / "gocache"),
            GOFLAGS="",
        )
        partial = target_dir / f".{name}.partial"
        completed = subprocess.run(
            ["go", "build", "-o", str(partial), "main.go"],
            cwd=work,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise TranspilerError(f"building {name} failed:\n{completed.stderr.strip()}")
        partial.replace(binary)
        return binary
