"""``serve``'s start and stop: read the configuration and backends, serve, summarise."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.diagnostics import InputError
from transpiler.gobuild import cache_dir, go_unavailable
from transpiler.inert import one_line
from transpiler.profile import CALL_TIMEOUT_NS
from transpiler.serve.backends_file import BackendSpec, load_backends
from transpiler.serve.catalog import read_catalog
from transpiler.serve.server import ServeOptions, ToolServer
from transpiler.serve.sessions import BackendPool
from transpiler.serve.shadow import ShadowLog
from transpiler.serve.transports import LOOPBACK, HttpOptions, note, serve_http, serve_stdio


@dataclass(frozen=True)
class Request:
    """What ``python -m transpiler serve`` was asked."""

    paths: tuple[str, ...]
    backends: str | None = None
    transport: str = "stdio"
    host: str | None = None
    port: int = 8080
    token_env: str | None = None
    engine: str = "go"
    shadow: bool = False
    shadow_log: str | None = None
    record: str | None = None
    call_timeout_ns: int = CALL_TIMEOUT_NS
    library_path: tuple[str, ...] = ()
    #: The vMCP the configuration is for (whether scripted tools take annotations).
    target: Target = DEFAULT_TARGET


def serve(request: Request) -> int:
    """Serve until stdin closes (stdio) or serve is interrupted (HTTP); 0 then."""
    missing = go_unavailable() if request.engine == "go" else None
    if missing is not None:
        raise InputError(f"serve --engine go needs go.starlark.net: {missing}")
    http = _http(request)
    _record_outside(request)
    specs: dict[str, BackendSpec] = (
        load_backends(Path(request.backends)) if request.backends else {}
    )
    catalog = read_catalog(request.paths, request.library_path, request.target)
    for reason in catalog.refused:
        note(one_line(reason))
    if not catalog.tools:
        raise InputError("nothing to serve: the configuration has no scripted or composite tool")
    shadow = None
    if request.shadow:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        default = cache_dir() / "shadow" / f"serve-{stamp}-{os.getpid()}.json"
        shadow = ShadowLog(Path(request.shadow_log) if request.shadow_log else default, note)
    options = ServeOptions(
        request.engine,
        request.call_timeout_ns,
        Path(request.record) if request.record else None,
        shadow,
    )
    names = ", ".join(one_line(name) for name in catalog.tools)
    note(f"serving {len(catalog.tools)} tool(s) on {request.transport}: {names}")
    try:
        anyio.run(_serve, catalog, specs, options, http)
    except KeyboardInterrupt:
        pass
    finally:
        if shadow is not None:
            for line in shadow.summary():
                note(line)
    return 0


async def _serve(catalog, specs, options, http) -> None:  # type: ignore[no-untyped-def]
    async with BackendPool(specs, note) as pool, ToolServer(catalog, pool, options, note) as tools:
        if http is None:
            await serve_stdio(tools)
        else:
            await serve_http(tools, http, lambda url: note(f"listening on {url}"))


def _record_outside(request: Request) -> None:
    """``--record DIR`` may not be under a folder given as CONFIG: ``check`` reads every
    ``.json`` and ``.yaml`` file there as configuration, and a recorded call is none."""
    if request.record is None:
        return
    record = Path(request.record).resolve()
    for path in map(Path, request.paths):
        if path.is_dir() and record.is_relative_to(path.resolve()):
            raise InputError(
                f"--record {request.record} is under {path}, whose files check reads as "
                f"configuration: record beside it (check {path} --scenarios DIR runs them)"
            )


def _http(request: Request) -> HttpOptions | None:
    """The HTTP options, or None for stdio; a host other than loopback needs a token."""
    if request.transport == "stdio":
        if request.host is not None or request.token_env is not None:
            raise InputError("--host and --token-env go with --transport http")
        return None
    if request.host is None:
        return HttpOptions(LOOPBACK, request.port, _token(request.token_env))
    if request.token_env is None:
        raise InputError(
            f"--host {request.host} serves beyond this machine: give --token-env NAME, the "
            "environment variable holding the bearer token every request must carry"
        )
    return HttpOptions(request.host, request.port, _token(request.token_env))


def _token(name: str | None) -> str | None:
    if name is None:
        return None
    token = os.environ.get(name)
    if not token:
        raise InputError(f"--token-env {name}: the environment variable {name} is not set or empty")
    return token
