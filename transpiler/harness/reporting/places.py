"""Where a reviewer is pointed for a tool's result: the workflow step a difference shows at,
and the file and line to annotate (the script's line that makes the differing call or returns
the differing output, else the step's configuration).

A tool's configuration lines (its own, each step's) are in its report
(``config_lines``); the script's lines by backend tool and output property in
``script_lines`` (:class:`~transpiler.harness.coverage.scriptmap.ScriptLines`), and
where its first line is in ``script_at`` (a ``scriptFile``, a script file
given, or a literal block of the configuration). A script written otherwise
inline is pointed at by its scripted tool's line (its source reads
``CONFIG:LINE``); an emitted one by the step's configuration. A file read
from a git revision (``REV:path``, a ``--baseline-git`` composite tool) is the
work tree's ``path`` only for its name: its lines are the revision's, so it
gets no line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from transpiler.deviations import Deviation
from transpiler.harness.judging.fields import field_differences
from transpiler.harness.judging.sites import failed_step
from transpiler.harness.running.check import ToolReport
from transpiler.sim.trace import Trace

_SOURCE = re.compile(r"^(?P<config>.+?):(?P<line>\d+)(?: \((?P<script>[^()]+)\))?$")


@dataclass(frozen=True)
class Place:
    """A file in the work tree and, when known, a line of it."""

    file: str
    line: int | None = None


def work_tree_file(file: str, revision: str | None) -> str:
    """``file`` without the ``REV:`` prefix a git revision's files are named with."""
    prefix = f"{revision}:" if revision is not None else None
    return file[len(prefix) :] if prefix is not None and file.startswith(prefix) else file


def _step_calls(trace: Trace, step: str) -> str | None:
    """The backend tool the workflow's ``step`` called on this run."""
    return next((call.tool for call in trace.calls if call.step == step), None)


@dataclass(frozen=True)
class Spot:
    """What a difference is about: the workflow step and the backend tool it calls, or the
    output property (its path) the script returns otherwise."""

    step: str | None
    tool: str | None
    output: tuple[str, ...] | None = None


def difference_spot(report: ToolReport, accept: frozenset[Deviation] | None) -> Spot:
    """Where the tool's failing difference shows: its counterexample's first call whose
    arguments differ or that one side alone made (:mod:`~transpiler.harness.judging.fields`),
    else its first output property that differs, else the step that stopped the run; else the
    site of the first observed class the gate refuses (the first such site at a step)."""
    example = report.counterexample
    if example is not None:
        found = field_differences(example.composite, example.script)
        call = next((f for f in found if f.tool is not None), None)
        if call is not None:
            return Spot(call.step, call.tool)
        output = next((f.output for f in found if f.output is not None), None)
        if output is not None:
            return Spot(None, None, output)
        step = failed_step(example.composite)
        return Spot(step, _step_calls(example.composite, step) if step else None)
    spots = []
    for deviation in report.observed:
        witness = report.witnesses.get(deviation)
        if accept is not None and deviation not in accept and witness is not None:
            site_step = witness.site.step if witness.site is not None else None
            called = _step_calls(witness.composite, site_step) if site_step else None
            spots.append(Spot(site_step, called))
    return next((spot for spot in spots if spot.step), spots[0] if spots else Spot(None, None))


def place_of(report: ToolReport, spot: Spot, revision: str | None = None) -> Place:
    """The file and line a reviewer should look at for ``spot``: the script's line that calls
    the spot's backend tool or returns its output property (in its ``scriptFile``, or inside
    the configuration's literal block), else the step's configuration, else the scripted
    tool or the tool."""
    line = _script_line(report, spot)
    if report.script_at is not None and line is not None:
        file, first = report.script_at
        return Place(work_tree_file(file, revision), first + line - 1)
    source = _SOURCE.match(report.script_source)
    config = work_tree_file(report.file, revision)
    in_work_tree = config == report.file
    if in_work_tree and spot.step is not None and spot.step in report.config_lines:
        return Place(config, report.config_lines[spot.step])
    if source is not None:
        return Place(work_tree_file(source["config"], revision), int(source["line"]))
    return Place(config, report.config_lines.get("") if in_work_tree else None)


def script_config(report: ToolReport, revision: str | None = None) -> str:
    """The configuration that holds the tool's script (its scripted tool's), else (a script
    the emitter wrote) the composite tool's file, as the work tree names it."""
    source = _SOURCE.match(report.script_source)
    return work_tree_file(source["config"] if source is not None else report.file, revision)


def _script_line(report: ToolReport, spot: Spot) -> int | None:
    """The script's line for ``spot``: its first call naming the backend tool, or the return
    of ``run`` that gives the output property."""
    if spot.tool is not None:
        return report.script_lines.call_line(spot.tool)
    if spot.output is not None:
        return report.script_lines.output_line(spot.output)
    return None
