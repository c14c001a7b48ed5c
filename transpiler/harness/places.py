"""Where a reviewer is pointed for a tool's result: the workflow step a difference shows at,
and the file and line to annotate (the script's call site, else the step's configuration).

A tool's configuration lines (its own, each step's) are in its report
(``config_lines``); the script's call sites, with their lines and texts, in its
certificate (``coverage.script.call_sites``). The script is in a file of its
own when its source reads ``CONFIG:LINE (FILE)`` (a ``scriptFile``), inline in
the configuration when it reads ``CONFIG:LINE``, emitted otherwise. A file read
from a git revision (``REV:path``, a ``--baseline-git`` composite tool) is the
work tree's ``path`` only for its name: its lines are the revision's, so it
gets no line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

from transpiler.deviations import Deviation
from transpiler.harness.check import ToolReport
from transpiler.harness.sites import failed_step
from transpiler.sim.trace import CallRecord, Trace, plain_json

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


def _first_call_apart(composite: Trace, script: Trace) -> CallRecord | None:
    """The first call one side made and the other did not (by tool, arguments, attempt): the
    workflow's own when it has one (it names its step)."""

    def key(call: CallRecord) -> str:
        return json.dumps([call.tool, plain_json(call.args), call.attempt], sort_keys=True)

    theirs = Counter(key(call) for call in script.calls)
    ours = Counter(key(call) for call in composite.calls)
    for call in composite.calls:
        if theirs[key(call)] > 0:
            theirs[key(call)] -= 1
        else:
            return call
    for call in script.calls:
        if ours[key(call)] > 0:
            ours[key(call)] -= 1
        else:
            return call
    return None


def _step_calls(trace: Trace, step: str) -> str | None:
    """The backend tool the workflow's ``step`` called on this run."""
    return next((call.tool for call in trace.calls if call.step == step), None)


@dataclass(frozen=True)
class Spot:
    """What a difference is about: the workflow step and the backend tool it calls."""

    step: str | None
    tool: str | None


def difference_spot(report: ToolReport, accept: frozenset[Deviation] | None) -> Spot:
    """Where the tool's failing difference shows: its counterexample's first call apart (or the
    step that stopped the run), else the site of the first observed class the gate refuses
    (the first such site at a step)."""
    example = report.counterexample
    if example is not None:
        call = _first_call_apart(example.composite, example.script)
        if call is not None:
            step = call.step or next(
                (c.step for c in example.composite.calls if c.tool == call.tool), None
            )
            return Spot(step, call.tool)
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
    """The file and line a reviewer should look at for ``spot``: the script's call site of the
    spot's backend tool, else the step's configuration, else the scripted tool or the tool."""
    source = _SOURCE.match(report.script_source)
    if source is not None and source["script"] is not None and spot.tool is not None:
        line = _call_site_line(report, spot.tool)
        if line is not None:
            return Place(work_tree_file(source["script"], revision), line)
    config = work_tree_file(report.file, revision)
    in_work_tree = config == report.file
    if in_work_tree and spot.step is not None and spot.step in report.config_lines:
        return Place(config, report.config_lines[spot.step])
    if source is not None:
        return Place(work_tree_file(source["config"], revision), int(source["line"]))
    return Place(config, report.config_lines.get("") if in_work_tree else None)


def _call_site_line(report: ToolReport, tool: str) -> int | None:
    """The line of the script's first call site whose text names ``tool`` (quoted)."""
    script = report.certificate.get("coverage", {}).get("script") or {}
    for site in script.get("call_sites", ()):
        where, text = str(site.get("at", "")), str(site.get("text", ""))
        if where.startswith("line:") and (f'"{tool}"' in text or f"'{tool}'" in text):
            return int(where.removeprefix("line:"))
    return None
