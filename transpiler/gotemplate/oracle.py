"""The Go oracle: our ``oracle/main.go`` run by the real ``text/template``.

:func:`start_oracle` builds the program on demand with
:mod:`transpiler.gobuild` (cached by a hash of ``main.go``) and starts one
long-lived process speaking the JSON-lines protocol
(:mod:`transpiler.gotemplate.protocol`); :meth:`GoOracle.render_many` sends a
batch through it.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from transpiler import gobuild
from transpiler.diagnostics import TranspilerError
from transpiler.gotemplate.protocol import (
    RenderRequest,
    RenderResult,
    parse_response,
    request_line,
)

SOURCE = Path(__file__).resolve().parent / "oracle" / "main.go"
MISSING_GO = (
    "the Go oracle needs the Go toolchain, which is not installed: "
    "install the Debian package golang-go (apt-get install golang-go)"
)


class OracleUnavailable(TranspilerError):
    """The oracle cannot be built or started (usually: no Go toolchain)."""


def build_oracle() -> Path:
    """Compile ``main.go`` unless a binary for its current text exists; returns the binary."""
    try:
        return gobuild.build(SOURCE, "gotemplate-oracle")
    except gobuild.GoToolchainMissing:
        raise OracleUnavailable(MISSING_GO) from None
    except TranspilerError as error:
        raise OracleUnavailable(str(error)) from None


class GoOracle:
    """One running oracle process, built with Go ``go_version`` (e.g. ``go1.26.6``)."""

    def __init__(self, binary: Path, go_version: str) -> None:
        self.go_version = go_version
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
    """Build (if needed) and start the oracle with :func:`transpiler.gobuild.toolchain`."""
    return GoOracle(build_oracle(), gobuild.toolchain().version)
