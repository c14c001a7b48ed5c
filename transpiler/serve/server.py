"""The MCP server: lists the catalog's tools and runs each ``tools/call`` on its script.

Built on the MCP SDK's low-level server. A call runs its script on a worker
thread (at most :data:`MAX_RUNS` at once) on a kernel with a real clock,
against :class:`~transpiler.serve.live.LiveBackends`, on go.starlark.net or in
a starlark-rust sandbox (``--engine``); the trace's client result is the
answer. The client is asked on the request's back-channel, or, from MCP
2026-07-28, by multi-round-trip requests (:mod:`.clients`, :mod:`.rounds`).
Whatever goes wrong in one call is that call's answer and nothing else: an
unknown tool is a JSON-RPC error (``not found: tool``), arguments that break
the tool's ``inputSchema`` and a script that fails or runs out of time are
``isError`` results, a backend that is down or slow is the failure THV-0051
gives ``call_tool``, and an engine that cannot run the script (a limit of the
host, a host process that died) is an ``isError`` result naming it. Every line
serve logs goes through :func:`one_line`.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.from_thread import BlockingPortal
from jsonschema import exceptions as schema_errors
from jsonschema.validators import validator_for
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from transpiler.composite.advertise import step_tool_references
from transpiler.composite.routing import target_of_reference
from transpiler.config.tool_annotations import annotations_to_mcp
from transpiler.golang.values import json_numbers_as_floats
from transpiler.inert import one_line
from transpiler.profile import CALL_TIMEOUT_NS, DEFAULT_TIMEOUT_NS, SECOND_NS, ScriptLimits
from transpiler.serve.catalog import Catalog, ServedTool
from transpiler.serve.clients import DirectClient, RoundTripClient
from transpiler.serve.exchange import Exchange, write_scenario
from transpiler.serve.hosts import HostPool
from transpiler.serve.live import ClientLink, LiveBackends
from transpiler.serve.rounds import Rounds, asks_in_rounds, state_boundary
from transpiler.serve.sessions import BackendPool, BackendTool, BackendUnavailable
from transpiler.serve.shadow import ShadowLog
from transpiler.sim.backoff import Jitter, SeededJitter
from transpiler.sim.clock import RealClock
from transpiler.sim.kernel import Kernel
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import SCRIPT_FILENAME, EngineError
from transpiler.starlark_runtime.forwarding import BackendsRelay
from transpiler.starlark_runtime.go_engine import GoHostProcess, start_go
from transpiler.starlark_runtime.host import RunState
from transpiler.starlark_runtime.run import run_on
from transpiler.starlark_runtime.sandbox import LiveRequest, Sandbox

#: Most calls whose scripts run at once (each holds a worker thread and a host process).
MAX_RUNS = 8
#: The server's name in the initialize handshake.
SERVER_NAME = "vmcp-transpile-serve"


@dataclass(frozen=True)
class ServeOptions:
    """How calls run: the engine, each backend call's time limit, where recorded scenarios
    go (None: not recorded), the shadow log (None: no shadow runs)."""

    engine: str = "go"
    call_timeout_ns: int = CALL_TIMEOUT_NS
    record: Path | None = None
    shadow: ShadowLog | None = None


class ToolServer:
    """The catalog's tools as an MCP server; use :meth:`running` around serving."""

    def __init__(
        self,
        catalog: Catalog,
        pool: BackendPool,
        options: ServeOptions,
        note: Callable[[str], None],
    ) -> None:
        self.catalog = catalog
        self.pool = pool
        self.options = options
        self.note = note
        self.go_hosts = HostPool(GoHostProcess)
        self.sandboxes = HostPool(Sandbox)
        self._limiter = anyio.CapacityLimiter(MAX_RUNS)
        self._numbers = itertools.count(1)
        self._portal: BlockingPortal | None = None
        self._running: list[Callable[[], None]] = []
        self._shadows: anyio.abc.TaskGroup | None = None
        self._background: anyio.abc.TaskGroup | None = None
        self._rounds: Rounds | None = None
        longest = max(
            (t.timeout_ns or DEFAULT_TIMEOUT_NS for t in catalog.tools.values()), default=0
        )
        # A run's own deadline is its tool's timeout; the host's wall-clock bound only has to
        # outlast the longest.
        self.limits = ScriptLimits(seconds=max(longest, DEFAULT_TIMEOUT_NS) / SECOND_NS + 60)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            self.server: Server[Any] = Server(
                SERVER_NAME,
                on_list_tools=self._list_tools,
                on_call_tool=self._call_tool,
                on_set_logging_level=self._set_level,
            )
        self.server.middleware.append(state_boundary(SERVER_NAME))

    async def __aenter__(self) -> ToolServer:
        self._portal = BlockingPortal()
        await self._portal.__aenter__()
        self._shadows = anyio.create_task_group()
        await self._shadows.__aenter__()
        self._background = anyio.create_task_group()
        await self._background.__aenter__()
        self._rounds = Rounds(self._background, self.note)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for stop in list(self._running):
            stop()
        assert self._background is not None
        self._background.cancel_scope.cancel()  # calls waiting for their client's next request
        await self._background.__aexit__(None, None, None)
        assert self._shadows is not None and self._portal is not None
        await self._shadows.__aexit__(None, None, None)
        await self._portal.__aexit__(None, None, None)
        await anyio.to_thread.run_sync(self.go_hosts.close)
        await anyio.to_thread.run_sync(self.sandboxes.close)

    # -- tools/list ---------------------------------------------------------

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(t) for t in self.catalog.tools.values()])

    async def _set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        return types.EmptyResult()

    # -- tools/call ---------------------------------------------------------

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if params.request_state is not None:  # a retry bringing a waiting call its answers
            return await self._waiting().resume(ctx, params)
        tool = self.catalog.tools.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f'not found: tool "{params.name}"')
        arguments = params.arguments or {}
        invalid = _invalid(tool, arguments)
        if invalid is not None:
            return _error(f"Input validation error: {invalid}")
        number = next(self._numbers)
        exchange = Exchange(tool.name, json_numbers_as_floats(arguments))
        if not asks_in_rounds(ctx):
            direct = DirectClient(ctx, tool.name, self.note)
            return await self._answer(tool, number, exchange, direct)
        client = RoundTripClient(ctx, tool.name, self.note)
        return await self._waiting().start(
            f"call {number} of {tool.name}",
            client,
            lambda: self._answer(tool, number, exchange, client),
        )

    async def _answer(
        self, tool: ServedTool, number: int, exchange: Exchange, client: ClientLink
    ) -> types.CallToolResult:
        """Run the call's script against the backends and ``client``; its result."""
        backends = LiveBackends(self._live_portal(), self.pool, client, exchange)
        try:
            trace = await self._run(tool, backends, exchange.params)
        except EngineError as error:
            self.note(f"call {number} of {one_line(tool.name)}: {one_line(str(error))}")
            return _error(f"Script execution failed: {error}")
        for sent in backends.sent:
            await _settled(sent)
        if self.options.record is not None or self._shadowed(tool):
            await self._afterwards(tool, number, exchange, trace)
        return types.CallToolResult.model_validate(trace.client_result)

    def _waiting(self) -> Rounds:
        assert self._rounds is not None, "use the server inside `async with`"
        return self._rounds

    def _live_portal(self) -> BlockingPortal:
        assert self._portal is not None, "use the server inside `async with`"
        return self._portal

    def _shadowed(self, tool: ServedTool) -> bool:
        return self.options.shadow is not None and tool.composite is not None

    async def _run(
        self, tool: ServedTool, backends: LiveBackends, params: Mapping[str, Any]
    ) -> Trace:
        """Run the tool's script on a worker thread; a call that is cancelled (the client
        went away, serve stops) cancels its run, which then ends on its own."""
        jitter = SeededJitter(secrets.randbits(32))
        run, stop = (self._on_rust if self.options.engine == "rust" else self._on_go)(
            tool, backends, params, jitter
        )
        self._running.append(stop)
        try:
            return await anyio.to_thread.run_sync(
                run, abandon_on_cancel=True, limiter=self._limiter
            )
        except anyio.get_cancelled_exc_class():
            stop()
            raise
        finally:
            self._running.remove(stop)

    def _on_go(
        self, tool: ServedTool, backends: LiveBackends, params: Mapping[str, Any], jitter: Jitter
    ) -> tuple[Callable[[], Trace], Callable[[], None]]:
        """The run on go.starlark.net, its kernel on this side: the run, and how to stop it."""
        clock = RealClock()
        started: list[RunState] = []

        def stop() -> None:
            if started:
                clock.post(started[0].root.cancel)

        starter = start_go(
            tool.script, SCRIPT_FILENAME, tool.modules, self.limits, acquire=self.go_hosts.acquire
        )

        def run() -> Trace:
            return run_on(
                starter,
                backends,
                params,
                Kernel(clock=clock),
                tool.timeout_ns,
                jitter,
                self.options.call_timeout_ns,
                started=started.append,
            )

        return run, stop

    def _on_rust(
        self, tool: ServedTool, backends: LiveBackends, params: Mapping[str, Any], jitter: Jitter
    ) -> tuple[Callable[[], Trace], Callable[[], None]]:
        """The run in a starlark-rust sandbox, its kernel there and its backend operations
        relayed to ``backends``: the run, and how to stop it."""
        relay = BackendsRelay(backends)
        request = LiveRequest(
            tool.script,
            SCRIPT_FILENAME,
            dict(tool.modules),
            params,
            tool.timeout_ns,
            jitter,
            self.limits.seconds,
            self.options.call_timeout_ns,
        )

        def run() -> Trace:
            sandbox = self.sandboxes.acquire(self.limits)
            try:
                return sandbox.run_live(request, relay)
            finally:
                sandbox.lock.release()

        return run, relay.stop

    async def _afterwards(
        self, tool: ServedTool, number: int, exchange: Exchange, trace: Trace
    ) -> None:
        """Record the call's exchange and (``--shadow``) judge it against the workflow."""
        named = step_tool_references(tool.composite.effective) if tool.composite else ()
        listings = await self._listings({*named, *(c.tool for c in exchange.calls)})
        document = exchange.document(listings, named)
        if self.options.record is not None:
            path = await anyio.to_thread.run_sync(
                write_scenario, self.options.record, tool.name, number, document
            )
            self.note(f"recorded call {number} of {one_line(tool.name)} as {path}")
        shadow = self.options.shadow
        if shadow is not None and tool.composite is not None:
            scenario = exchange.scenario(document, f"call {number} of {tool.name}")
            assert self._shadows is not None
            self._shadows.start_soon(
                _judge, shadow, tool, number, scenario, trace, self.options.engine
            )

    async def _listings(self, names: set[str]) -> dict[str, BackendTool]:
        """Each named tool's listing by its backend, where the backend is up."""
        found: dict[str, BackendTool] = {}
        for name in sorted(names):
            target = target_of_reference(name)
            if not self.pool.knows(target.workload_id):
                continue
            try:
                tools = await self.pool.tools(target.workload_id)
            except BackendUnavailable:
                continue
            if target.capability in tools:
                found[name] = tools[target.capability]
        return found


async def _judge(
    shadow: ShadowLog, tool: ServedTool, number: int, scenario: Any, trace: Trace, engine: str
) -> None:
    await anyio.to_thread.run_sync(shadow.judge, tool, number, scenario, trace, engine)


async def _settled(future: Future[Any]) -> None:
    """Wait for work started through the portal (its failure is not the call's)."""
    try:
        await asyncio.wrap_future(future)
    except Exception:  # a log line the client could not take changes nothing
        return


def _tool(served: ServedTool) -> types.Tool:
    """The ``tools/list`` entry of a served tool (``check``'s listing of it)."""
    listed = served.listed
    entry: dict[str, Any] = {
        "name": listed.name,
        "inputSchema": listed.input_schema
        if isinstance(listed.input_schema, dict)
        else {"type": "object"},
    }
    if listed.description is not None:
        entry["description"] = listed.description
    if isinstance(listed.output_schema, dict):
        entry["outputSchema"] = listed.output_schema
    annotations = annotations_to_mcp(listed.annotations)
    if annotations:
        entry["annotations"] = annotations
    return types.Tool.model_validate(entry)


def _invalid(tool: ServedTool, arguments: dict[str, Any]) -> str | None:
    """Why the arguments break the tool's ``inputSchema`` (None: they do not)."""
    schema = tool.listed.input_schema
    if not isinstance(schema, dict):
        return None
    try:
        validator = validator_for(schema)(schema)
        error = schema_errors.best_match(validator.iter_errors(arguments))
    except (schema_errors.SchemaError, schema_errors.UnknownType) as problem:
        return f"the tool's inputSchema cannot be used: {problem.message}"
    return None if error is None else error.message


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
