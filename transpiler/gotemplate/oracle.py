"""The Go oracle: our ``oracle/main.go`` run by the real ``text/template``.

:func:`start_oracle` builds the program on demand (``GO111MODULE=off
GOPATH=/usr/share/gocode go build``) into ``build/gotemplate-oracle/<hash of
main.go>/`` at the repository root (or ``$GOTEMPLATE_ORACLE_CACHE``) and
starts one long-lived process speaking the JSON-lines protocol
(:mod:`transpiler.gotemplate.protocol`); :meth:`GoOracle.render_many` sends a
batch through it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from transpiler.diagnostics import TranspilerError
from transpiler.gotemplate.protocol import (
    RenderRequest,
    RenderResult,
    parse_response,
    request_line,
)

SOURCE = Path(__file__).resolve().parent / "oracle" / "main.go"
_REPO_ROOT = Path(__file__).resolve().parents[2]
MISSING_GO = (
    "the Go oracle needs the Go toolchain, which is not installed: "
    "install the Debian package golang-go (apt-get install golang-go)"
)


class OracleUnavailable(TranspilerError):
    """The oracle cannot be built or started (usually: no Go toolchain)."""


def _cache_dir() -> Path:
    configured = os.environ.get("GOTEMPLATE_ORACLE_CACHE")
    return Path(configured) if configured else _REPO_ROOT / "build" / "gotemplate-oracle"


def build_oracle() -> Path:
    """Compile ``main.go`` unless a binary for its current text exists; returns the binary."""
    go = shutil.which("go")
    if go is None:
        raise OracleUnavailable(MISSING_GO)
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    target = _cache_dir() / digest / "oracle"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode")
    environment.setdefault("GOCACHE", str(_cache_dir() / "gocache"))
    partial = target.with_name(f"oracle.{os.getpid()}.partial")
    completed = subprocess.run(
        [go, "build", "-o", str(partial), SOURCE.name],
        cwd=SOURCE.parent,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise OracleUnavailable(f"go build of the oracle failed:\n{completed.stderr}")
    partial.replace(target)
    return target


class GoOracle:
    """One running oracle process."""

    def __init__(self, binary: Path) -> None:
        self._process = subprocess.Popen(
            [str(binary)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def render_many(self, requests: Sequence[RenderRequest]) -> list[RenderResult]:
        """Render a batch; results come back in request order."""
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        payload = "".join(request_line(request) + "\n" for request in requests)
        writer = threading.Thread(target=self._write, args=(payload,), daemon=True)
        writer.start()
        results = []
        for _ in requests:
            line = process.stdout.readline()
            if not line:
                raise OracleUnavailable("the oracle process stopped unexpectedly")
            results.append(parse_response(line))
        writer.join()
        return results

    def render(self, request: RenderRequest) -> RenderResult:
        """Render one template."""
        return self.render_many([request])[0]

    def _write(self, payload: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(payload)
        self._process.stdin.flush()

    def close(self) -> None:
        """Stop the process."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=10)
        if self._process.stdout is not None:
            self._process.stdout.close()

    def __enter__(self) -> GoOracle:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def start_oracle() -> GoOracle:
    """Build (if needed) and start the oracle."""
    return GoOracle(build_oracle())
