"""``check`` over many files: which tools, sharding, worker processes, one report.

Tools are taken in a fixed order (file, then position), sharded with
``--shard i/n`` (every n-th tool from the i-th), and checked in worker
processes; results come back in that same order, so reports are byte-identical
whatever the number of workers. Tools in configurations vMCP would refuse are
reported as not converted, with vMCP's reason.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import cache

from transpiler.config.loader import load_paths
from transpiler.config.units import LoadedTool
from transpiler.config.validate import validate
from transpiler.diagnostics import Diagnostic, InputError, TranspilerError
from transpiler.harness.check import CheckOptions, ToolReport, check_tool
from transpiler.harness.verdict import Verdict

_SERVE_PHASES = ("admission", "operator", "P1", "P2", "P3", "P4")


@dataclass(frozen=True)
class Selected:
    """One tool to check, found again in a worker by file and position."""

    paths: tuple[str, ...]
    index: int
    tool: str
    file: str
    refusal: str | None


def select(
    paths: Sequence[str], shard: tuple[int, int] = (1, 1)
) -> tuple[list[Selected], tuple[Diagnostic, ...]]:
    """Every composite tool under ``paths``, in order, this shard's share only.

    A document vMCP rejects before any tool of it can be read is selected too,
    as not converted (a gate must not pass what it could not check). Also the
    inputs that cannot be read: the tools of the others are still selected,
    and ``check`` fails (exit 2) however they fare.
    """
    load = load_paths(list(paths))
    refusals: dict[int, str] = {}
    toolless: list[Selected] = []
    for unit in validate(load).units:
        failed = unit.first_failure(_SERVE_PHASES)
        if failed is None:
            continue
        refusal = f"vMCP would not run it: {failed.phase}: {failed.message}"
        for tool in unit.unit.tools:
            refusals[id(tool)] = refusal
        if not unit.unit.tools:
            name = f"(no tool read from document {unit.unit.document + 1})"
            toolless.append(Selected(tuple(paths), -1, name, unit.unit.file, refusal))
    chosen = [
        Selected(tuple(paths), index, tool.effective.name, tool.origin.file, refusals.get(id(tool)))
        for index, tool in enumerate(load.tools)
    ]
    chosen.extend(toolless)
    number, total = shard
    return chosen[number - 1 :: total], load.input_errors


@cache
def _loaded_tools(paths: tuple[str, ...]) -> tuple[LoadedTool, ...]:
    """The inputs' tools, loaded once per worker process (not once per tool)."""
    return tuple(load_paths(list(paths)).tools)


def _tool(selected: Selected) -> LoadedTool:
    return _loaded_tools(selected.paths)[selected.index]


def check_one(selected: Selected, options: CheckOptions) -> ToolReport:
    """Check one selected tool (runs in a worker process); its failure is its own report."""
    if selected.refusal is not None:
        return ToolReport(
            selected.tool, selected.file, Verdict.NOT_CONVERTED, reason=selected.refusal
        )
    tool = _tool(selected)
    try:
        return _without_traces(check_tool(tool, options))
    except (TranspilerError, RecursionError) as error:
        where = tool.config.where.at
        reason = f"{where.file}:{where.line}: the check could not finish: {error or 'too deep'}"
        return ToolReport(selected.tool, selected.file, Verdict.UNCHECKED, reason=reason)


def _without_traces(report: ToolReport) -> ToolReport:
    """Drop the emit result (not picklable cheaply); the certificate keeps what matters."""
    return replace(report, emitted=None)


def check_all(
    selected: Sequence[Selected],
    options: CheckOptions,
    jobs: int | None = None,
    progress: Callable[[int, ToolReport], None] | None = None,
) -> list[ToolReport]:
    """Check every selected tool, ``jobs`` at a time; reports in selection order."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(selected) or 1))
    reports: list[ToolReport] = []
    if workers == 1:
        for number, item in enumerate(selected, 1):
            reports.append(check_one(item, options))
            if progress is not None:
                progress(number, reports[-1])
        return reports
    # Fresh interpreters ("spawn"): a forked worker would share the parent's
    # go.starlark.net host process and its pipes.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(check_one, item, options) for item in selected]
        for number, future in enumerate(futures, 1):
            reports.append(future.result())
            if progress is not None:
                progress(number, reports[-1])
    return reports


def parse_shard(text: str) -> tuple[int, int]:
    """``i/n`` with 1 <= i <= n."""
    number, _, total = text.partition("/")
    if not (number.isdigit() and total.isdigit()) or not 1 <= int(number) <= int(total):
        raise InputError(f"--shard must be i/n with 1 <= i <= n, not {text!r}")
    return int(number), int(total)
