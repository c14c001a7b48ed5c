"""``check --format github``: GitHub workflow commands that annotate the pull request.

Each reviewed change (:mod:`transpiler.changes`) gets a ``::notice`` naming
its tools (a ``::warning`` or ``::error`` where the policy says so). Each tool
the gate does not let through gets an ``::error`` at the line a
reviewer should read (:mod:`.places`): what differs, field by field, both
sides' values, where the scenario is saved and how to replay it. Each finding
(a vMCP quirk on the tool's ordinary run) gets a ``::warning`` at its step; one
that drops a safety hint from the ``tools/list`` entry an ``::error``; one that
comes from the simulator's placeholder values alone none (the reports keep it
as a note).
Data and properties are escaped as GitHub's toolkit escapes them (``%``, CR
and LF in both; ``:`` and ``,`` in properties too), after every text from the
input or a script is made inert line by line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from transpiler.changes import Change
from transpiler.deviations import Deviation, accepts
from transpiler.harness.reporting.places import (
    Place,
    Spot,
    difference_spot,
    place_of,
    work_tree_file,
)
from transpiler.harness.reporting.reports import difference_lines, witness_lines
from transpiler.harness.running.check import ToolReport
from transpiler.inert import one_line, shown_lines

_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_PROPERTY = {**_DATA, ":": "%3A", ",": "%2C"}


def escape_data(text: str) -> str:
    """A command's message as the toolkit escapes it."""
    return "".join(_DATA.get(char, char) for char in text)


def escape_property(text: str) -> str:
    """A command property's value as the toolkit escapes it."""
    return "".join(_PROPERTY.get(char, char) for char in text)


@dataclass(frozen=True)
class Annotation:
    """One workflow command: ``error`` or ``warning`` at a place, with a title."""

    level: str
    place: Place
    title: str
    message: str

    def command(self) -> str:
        """The ``::level file=...,line=...,title=...::message`` line."""
        properties = {"file": self.place.file, "title": self.title}
        if self.place.line is not None:
            properties["line"] = str(self.place.line)
        listed = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
        return f"::{self.level} {listed}::{escape_data(self.message)}"


def workflow_annotations(
    reports: Sequence[ToolReport],
    accept: frozenset[Deviation] | None,
    revision: str | None = None,
    changes: Sequence[Change] = (),
) -> list[Annotation]:
    """A notice (or the warning or error the policy makes it) per reviewed change, an error per
    tool that does not pass, a warning per finding."""
    found = [
        Annotation(
            change.level.command,
            Place(work_tree_file(change.file, revision), change.line),
            one_line(change.title),
            "\n".join(one_line(line) for line in (change.summary, *change.details)),
        )
        for change in changes
    ]
    for report in reports:
        name = one_line(report.tool)
        if not report.passes(accept):
            spot = difference_spot(report, accept)
            title = f"{name}: FAIL {one_line(str(report.verdict))}"
            message = _failure_lines(report, accept, spot)
            found.append(Annotation("error", place_of(report, spot, revision), title, message))
        for finding in report.findings:
            if finding.placeholder:
                continue  # a note of the report's, not an annotation on every pull request
            place = place_of(report, Spot(finding.step, None), revision)
            text = one_line(finding.render())
            safety = finding.deviation == Deviation.LISTING_SAFETY
            title = f"{name}: safety hint dropped" if safety else f"{name}: vMCP quirk"
            found.append(Annotation("error" if safety else "warning", place, title, text))
    return found


def _failure_lines(report: ToolReport, accept: frozenset[Deviation] | None, spot: Spot) -> str:
    """What a reviewer needs to see: where, what differs, both sides' values."""
    lines = [f"at step {one_line(spot.step)}"] if spot.step else []
    example = report.counterexample
    if example is not None:
        lines += [one_line(line) for line in difference_lines(example)]
    lines += [one_line(difference.render()) for difference in report.listing]
    refused = [c for c in report.observed if not accepts(accept, c)]
    for deviation in refused:
        witness = report.witnesses.get(deviation)
        if witness is not None:
            lines += [one_line(line) for line in witness_lines(witness)]
        elif any(d.deviation == deviation for d in report.listing):
            lines.append(f"{one_line(deviation)}: the policy does not accept it")
        else:
            lines.append(f"{one_line(deviation)} showed, and the policy does not accept it")
    if report.reason and example is None:
        lines += shown_lines(report.reason).splitlines()
    return "\n".join(lines)
