"""One served call's exchange with the world, as a scenario (``../shared/spec/scenario.md``).

What a call received is all a scenario needs to replay it: the ``tools/call``
arguments, each backend answer in the order the script's calls got them (an
entry per call, ``when`` its arguments and ``times: 1``, so a call that was
retried gets its answers in turn), the client's answers to its elicitations,
and, for every backend tool the script or the workflow names, the
``inputSchema`` and annotations its backend lists. ``--shadow`` runs the
composite workflow on it; ``--record`` writes it for ``check --scenarios``.

Real durations are not kept (the replay is on virtual time), except where
they decided the answer: a call cut off by its deadline is recorded with the
time it waited and the error it got, so a replay waits that long too.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.filenames import safe_stem
from transpiler.serve.sessions import BackendTool
from transpiler.sim.backends import BackendAnswer
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.starlark_runtime.host import Elicited

#: The error a call cut off by its deadline got (Go's context error).
DEADLINE_EXCEEDED = "context deadline exceeded"


@dataclass(frozen=True)
class AnsweredCall:
    """One backend call of the script: its tool, its arguments and what it got."""

    tool: str
    args: Any
    answer: BackendAnswer


@dataclass
class Exchange:
    """Everything one call of a served tool received, in order (appended on the run's thread)."""

    tool: str
    params: Mapping[str, Any]
    calls: list[AnsweredCall] = field(default_factory=list)
    elicitations: list[Elicited] = field(default_factory=list)

    def document(self, listings: Mapping[str, BackendTool], named: Iterable[str] = ()) -> Any:
        """The exchange as a scenario file's content; ``listings`` are the backend tools'
        listings by tool name (as scripts call them), ``named`` the tools the workflow names."""
        backends: dict[str, Any] = {}
        for name in sorted({*named, *(call.tool for call in self.calls)}):
            entry: dict[str, Any] = {"results": []}
            listing = listings.get(name)
            if listing is not None and listing.input_schema is not None:
                entry["inputSchema"] = listing.input_schema
            if listing is not None and listing.annotations:
                entry["annotations"] = listing.annotations
            backends[name] = entry
        for call in self.calls:
            backends[call.tool]["results"].append(_result(call))
        document: dict[str, Any] = {"tool": self.tool, "params": dict(self.params)}
        document["backends"] = backends
        if self.elicitations:
            document["elicitations"] = [_elicitation(e) for e in self.elicitations]
        return document

    def scenario(self, document: Any, source: str) -> Scenario:
        """The scenario of :meth:`document`, read as a scenario file is (numbers as JSON's)."""
        return scenario_from_document(document, source)


def _result(call: AnsweredCall) -> dict[str, Any]:
    answer = call.answer
    entry: dict[str, Any] = {"when": call.args if isinstance(call.args, dict) else {}, "times": 1}
    if answer.transport_error is not None or answer.result is None:
        entry["transportError"] = answer.transport_error or "no result"
        if answer.delay_ns:
            entry["delay"] = f"{answer.delay_ns // 1_000_000}ms"
        return entry
    wire = answer.result.to_json()
    if wire["content"]:
        entry["content"] = wire["content"]
    if "structuredContent" in wire:
        entry["structuredContent"] = wire["structuredContent"]
    if wire["isError"]:
        entry["isError"] = True
    return entry


def _elicitation(answer: Elicited) -> dict[str, Any]:
    if answer.answer == "timeout":
        return {"timeout": True}
    entry: dict[str, Any] = {"action": answer.action}
    if answer.content is not None:
        entry["content"] = answer.content
    return entry


def write_scenario(directory: Path, tool: str, number: int, document: Any) -> Path:
    """Write ``document`` as a new JSON file in ``directory`` (made if need be), named for the
    tool and the call's number; never over an existing file (the number goes up instead).
    The file appears whole or not at all."""
    directory.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".recording-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        while True:
            target = directory / f"{safe_stem(tool)}-{number:04d}.json"
            try:
                os.link(temporary, target)
            except FileExistsError:
                number += 1
                continue
            return target
    finally:
        os.unlink(temporary)
