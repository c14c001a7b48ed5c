"""One MCP client session per backend, opened on first use and reused by every call.

Each backend's session lives in a task of its own (the SDK's client is an
async context manager, entered and left in one task) that holds it open until
serve stops or the session breaks; a call that finds it broken (the process
gone, the connection lost) fails with that error, and the next call opens a
new one. A backend's ``tools/list`` is read once per session: it says which
tools it has, with their ``inputSchema`` and annotations (what a recorded
scenario gives them). The handshake is the initialize one, as vMCP's Go client
does it. A backend command's stderr is shown on serve's log, each line
escaped and prefixed with the workload.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from transpiler.inert import one_line
from transpiler.serve.backends_file import BackendSpec, MissingVariable
from transpiler.sim.scenario import ToolResult

#: Most pages of a backend's ``tools/list`` read (a paginator that never ends stops there).
MAX_LIST_PAGES = 100
#: How long each request of opening a backend's session (initialize, tools/list) may take.
CONNECT_SECONDS = 30.0
#: How long the client waits for a call's answer: past THV-0051's 5-minute limit, which the
#: run enforces itself (cancelling the call).
CALL_READ_SECONDS = 330.0


class BackendUnavailable(Exception):
    """The backend's session cannot be opened, or broke; the message says why."""


@dataclass(frozen=True)
class BackendTool:
    """A backend tool as its ``tools/list`` gives it (plain JSON values)."""

    input_schema: Any = None
    annotations: dict[str, Any] | None = None


@dataclass
class _Session:
    client: Client
    tools: dict[str, BackendTool]
    stop: anyio.Event = field(default_factory=anyio.Event)


class BackendPool:
    """The backends' sessions; enter it (``async with``) before any call, in the task that
    serves, and leave it to close every session."""

    def __init__(self, specs: dict[str, BackendSpec], note: Callable[[str], None]) -> None:
        self.specs = specs
        self._note = note
        self._sessions: dict[str, _Session] = {}
        self._opening: dict[str, anyio.Event] = {}
        self._errors: dict[str, str] = {}
        self._group: TaskGroup | None = None
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> BackendPool:
        self._group = await self._stack.enter_async_context(anyio.create_task_group())
        return self

    async def __aexit__(self, *exc: object) -> None:
        for session in self._sessions.values():
            session.stop.set()
        assert self._group is not None
        self._group.cancel_scope.cancel()
        await self._stack.aclose()

    def knows(self, workload: str) -> bool:
        """Whether BACKENDS.yaml names this workload."""
        return workload in self.specs

    async def tools(self, workload: str) -> dict[str, BackendTool]:
        """The backend's tools, opening its session if need be."""
        return (await self._session(workload)).tools

    async def call(self, workload: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """Call ``tool`` on the workload's backend; its result (``isError`` included).

        Raises :class:`BackendUnavailable` for a failure below MCP (the session cannot be
        opened or broke, or the backend answered with a JSON-RPC error)."""
        session = await self._session(workload)
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=tool, arguments=arguments)
        )
        try:
            # Sent as a plain request: vMCP's client does not hold a result to the tool's
            # outputSchema, so neither does this one (the SDK's call_tool would).
            result = await session.client.session.send_request(
                request, types.CallToolResult, request_read_timeout_seconds=CALL_READ_SECONDS
            )
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED:
                self._drop(workload, session)
            raise BackendUnavailable(f"calling tool {tool}: {error}") from None
        except ValidationError as error:
            raise BackendUnavailable(
                f"calling tool {tool}: not a CallToolResult: {error}"
            ) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            self._drop(workload, session)
            raise BackendUnavailable(f"calling tool {tool}: {_why(error)}") from None
        return tool_result(result)

    async def _session(self, workload: str) -> _Session:
        held = self._sessions.get(workload)
        if held is not None:
            return held
        opening = self._opening.get(workload)
        if opening is None:
            opening = self._opening[workload] = anyio.Event()
            self._errors.pop(workload, None)
            assert self._group is not None
            self._group.start_soon(self._hold, workload, opening)
        await opening.wait()
        held = self._sessions.get(workload)
        if held is None:
            raise BackendUnavailable(self._errors.get(workload, "the session closed"))
        return held

    def _drop(self, workload: str, session: _Session) -> None:
        if self._sessions.get(workload) is session:
            del self._sessions[workload]
        session.stop.set()

    async def _hold(self, workload: str, opened: anyio.Event) -> None:
        """Open the workload's session, keep it until it is stopped, then close it."""
        spec = self.specs[workload]
        try:
            async with AsyncExitStack() as stack:
                # The client's own read timeout bounds the handshake and the listing (a cancel
                # scope around entering it would have to be left in another task).
                client = await stack.enter_async_context(self._client(spec, stack))
                tools = await _list_tools(client)
                session = _Session(client, tools)
                self._sessions[workload] = session
                del self._opening[workload]
                opened.set()
                await session.stop.wait()
        except MissingVariable as error:
            self._errors[workload] = str(error)
        except Exception as error:  # whatever opening a session raises, the call fails with it
            self._errors[workload] = f"backend {workload} is unavailable: {_why(error)}"
            self._note(f"backend {workload}: {one_line(_why(error))}")
        finally:
            if self._sessions.get(workload) is not None and self._sessions[workload].stop.is_set():
                del self._sessions[workload]
            self._opening.pop(workload, None)
            opened.set()

    def _client(self, spec: BackendSpec, stack: AsyncExitStack) -> Client:
        if spec.url is not None:
            http = create_mcp_http_client(headers=spec.expanded_headers())
            transport = streamable_http_client(spec.expanded_url(), http_client=http)
            return Client(
                transport, mode="legacy", cache=None, read_timeout_seconds=CONNECT_SECONDS
            )
        parameters = StdioServerParameters(
            command=spec.command[0], args=list(spec.command[1:]), env=spec.expanded_env()
        )
        errlog = _StderrLines(spec.workload, self._note)
        stack.callback(errlog.close)
        transport = stdio_client_with(parameters, errlog)
        return Client(transport, mode="legacy", cache=None, read_timeout_seconds=CONNECT_SECONDS)


def stdio_client_with(parameters: StdioServerParameters, errlog: _StderrLines) -> Any:
    """The SDK's stdio transport, its process's stderr going to ``errlog``."""
    return stdio_client(parameters, errlog=errlog.writer)


class _StderrLines:
    """A pipe a backend process writes its stderr to; each line goes to serve's log, escaped."""

    def __init__(self, workload: str, note: Callable[[str], None]) -> None:
        read, write = os.pipe()
        self.writer = os.fdopen(write, "w")
        self._reader = os.fdopen(read, "rb")
        self._thread = threading.Thread(
            target=self._pump, args=(workload, note), daemon=True, name=f"stderr-{workload}"
        )
        self._thread.start()

    def _pump(self, workload: str, note: Callable[[str], None]) -> None:
        for line in self._reader:
            note(f"backend {workload} says: {one_line(line.decode('utf-8', 'replace').rstrip())}")
        self._reader.close()

    def close(self) -> None:
        """Close this side's copy of the write end (the reader ends when the process has)."""
        self.writer.close()


async def _list_tools(client: Client) -> dict[str, BackendTool]:
    tools: dict[str, BackendTool] = {}
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await client.session.list_tools(params=params)
        for tool in page.tools:
            annotations = (
                tool.annotations.model_dump(by_alias=True, mode="json", exclude_none=True)
                if tool.annotations is not None
                else None
            )
            tools[tool.name] = BackendTool(tool.input_schema, annotations)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def tool_result(result: types.CallToolResult) -> ToolResult:
    """An SDK result as the runtime's :class:`ToolResult` (plain JSON values)."""
    content = tuple(
        item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in result.content
    )
    structured = (
        "structured_content" in result.model_fields_set or result.structured_content is not None
    )
    return ToolResult(content, result.structured_content, structured, bool(result.is_error))


def _why(error: BaseException) -> str:
    """An exception as one message (a group's first member's, for anyio's task groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
