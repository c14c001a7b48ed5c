"""``check`` over many files: the pairs, sharding, worker processes, one report.

Pairs (:mod:`transpiler.pairs`) are taken in a fixed order (file, then
position), sharded with ``--shard i/n`` (every n-th pair from the i-th), and
checked in worker processes through the pipeline; results come back in that
same order, so reports are byte-identical whatever the number of workers. A
pair whose composite tool vMCP would refuse is reported as not converted, with
vMCP's reason. With ``since`` (a previous JSON report's entries), a pair whose
digest is the one recorded there, in a certificate that vouches for its verdict
(:mod:`.since`), is not checked again: its entry is carried.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

from transpiler.config.model import CompositeToolConfig
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import InputError
from transpiler.emit.report import EmitResult
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.reporting.since import Since, carried
from transpiler.harness.running.check import CheckOptions, ToolReport, pair_digest
from transpiler.inputs.files import Inputs
from transpiler.listing import ScriptedEntry
from transpiler.pairs import Pair, Pairing, Request, pair
from transpiler.pipeline import decide, decide_script, emit, tool_key, tool_location


def select(request: Request, shard: tuple[int, int] = (1, 1)) -> tuple[list[Pair], Pairing]:
    """This shard's share of the request's pairs (the configurations vMCP rejects last), and
    the whole pairing (its unpaired scripted tools and unreadable inputs: ``check`` exits 2 for
    those, however the rest fare)."""
    pairing = pair(request)
    number, total = shard
    return list((*pairing.pairs, *pairing.rejected)[number - 1 :: total]), pairing


@dataclass(frozen=True)
class Compared:
    """What a pair compares: its composite tool, the options it is checked with (the composite
    tools served beside it included), the script (the emitter's when the pair has none, then
    ``emitted``) with the modules it loads and its scripted entry."""

    tool: LoadedTool
    options: CheckOptions
    script: str
    modules: Mapping[str, str]
    entry: ScriptedEntry | None = None
    emitted: EmitResult | None = None


def compared(item: Pair, request: Request, options: CheckOptions) -> Compared | str:
    """What ``item`` compares (:class:`Compared`), or why nothing is: vMCP refuses the tool,
    the script cannot be read, the emitter cannot express the workflow."""
    if item.refusal is not None:
        return item.refusal
    composites = request.composites()
    baseline = composites.read() if composites is not None else None
    tool = item.composite(request.config.read(), baseline)
    inputs = baseline if item.baseline and baseline is not None else request.config.read()
    options = replace(options, served=served_beside(tool, inputs))
    if item.script is not None:
        script = item.script
        return Compared(tool, options, script.text, script.modules, script.entry)
    result = emit(tool, options)
    if isinstance(result, str):
        return f"the emitter cannot express it: {result}"
    return Compared(tool, options, result.script, result.modules, emitted=result)


def check_one(
    item: Pair, request: Request, options: CheckOptions, since: Since | None = None
) -> ToolReport:
    """Check one pair (runs in a worker process); its failure is its own report."""
    found = compared(item, request, options)
    if isinstance(found, str):
        return ToolReport(item.tool, item.file, Verdict.NOT_CONVERTED, reason=found)
    previous = (since or {}).get((item.file, item.tool))
    digest = pair_digest(found.tool, found.script, found.modules, found.options, found.entry)
    kept = carried(previous, digest) if previous else None
    if isinstance(kept, ToolReport):
        return kept
    report = _checked(item, found.tool, found.emitted, found.modules, found.options)
    if kept is not None:
        report.notes = (*report.notes, f"not carried over from the earlier report: {kept}")
    return report


def _checked(
    item: Pair,
    tool: LoadedTool,
    emitted: EmitResult | None,
    modules: Mapping[str, str],
    options: CheckOptions,
) -> ToolReport:
    """The pair checked now."""
    if emitted is not None:
        outcome = decide(tool, None, emitted, options)
    else:
        assert item.script is not None
        script = item.script
        outcome = decide_script(tool, script.text, script.where, modules, options, script.entry)
    if outcome.report is not None:
        at = item.script.at if item.script is not None else None
        # The emit result is not worth pickling.
        return replace(outcome.report, emitted=None, script_at=at)
    where = tool_location(tool)
    reason = f"{where.file}:{where.line}: {outcome.reason}"
    assert outcome.verdict is not None
    return ToolReport(item.tool, item.file, outcome.verdict, reason=reason)


def check_all(
    selected: Sequence[Pair],
    request: Request,
    options: CheckOptions,
    jobs: int | None = None,
    progress: Callable[[int, ToolReport], None] | None = None,
    since: Since | None = None,
) -> list[ToolReport]:
    """Check every selected pair, ``jobs`` at a time; reports in selection order."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(selected) or 1))
    reports: list[ToolReport] = []
    if workers == 1:
        for number, item in enumerate(selected, 1):
            reports.append(check_one(item, request, options, since))
            if progress is not None:
                progress(number, reports[-1])
        return reports
    # Fresh interpreters ("spawn"): a forked worker would share the parent's
    # go.starlark.net host process and its pipes.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(check_one, item, request, options, since) for item in selected]
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


def served_beside(tool: LoadedTool, inputs: Inputs) -> tuple[CompositeToolConfig, ...]:
    """The composite tools vMCP serves together with ``tool``: those of the largest unit (a
    configuration, or a ``VirtualMCPServer`` with the definitions it references) holding it."""
    assert inputs.load is not None
    holding = [
        unit.tools
        for unit in inputs.load.units
        if any(tool_key(other) == tool_key(tool) for other in unit.tools)
    ]
    return tuple(other.effective for other in max(holding, key=len, default=(tool,)))
