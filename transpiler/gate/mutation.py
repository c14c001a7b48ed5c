"""The gate measures itself: mutants of each tool's script, each run through ``check``'s gate.

Each composite tool is paired with its script as ``check`` pairs them (the
scripted tool beside it, the ``--script`` given, or the emitter's). That
script must pass the gate itself; then each of its mutants
(:mod:`transpiler.harness.coverage.mutants`; at most ``limit``, sampled with the seed
when there are more) is checked in its place, with the same options, modules
and declared classes. A mutant is *killed* when the gate does not let it
through (:meth:`ToolReport.passes` with the classes the script declares), and
*survives* otherwise: a hole in the gate, or a slip that changes nothing a
client can see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from random import Random
from typing import Any

from transpiler.config.units import LoadedTool
from transpiler.diagnostics import InputError, TranspilerError
from transpiler.emit.report import EmitResult
from transpiler.gate.batch import select
from transpiler.harness.coverage.mutants import OPERATORS, Mutant, mutants
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.pairs import Pair, Pairing, Request
from transpiler.pipeline import emit


@dataclass(frozen=True)
class MutantVerdict:
    """The gate's verdict on one mutant, and whether that kills it."""

    mutant: Mutant
    verdict: Verdict
    killed: bool

    def to_json(self) -> dict[str, Any]:
        """The mutant and its verdict as JSON (without the whole mutated script)."""
        return {
            "operator": self.mutant.operator,
            "line": self.mutant.line,
            "original": self.mutant.original,
            "mutated": self.mutant.mutated,
            "verdict": str(self.verdict),
            "killed": self.killed,
        }


@dataclass(frozen=True)
class Tally:
    """Mutants made, checked and killed (for one operator, one tool, or every tool)."""

    generated: int = 0
    checked: int = 0
    killed: int = 0

    @property
    def survived(self) -> int:
        """Checked mutants the gate let through."""
        return self.checked - self.killed

    @property
    def kill_rate(self) -> float | None:
        """Killed over checked; None when nothing was checked."""
        return self.killed / self.checked if self.checked else None

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.generated + other.generated,
            self.checked + other.checked,
            self.killed + other.killed,
        )

    def to_json(self) -> dict[str, Any]:
        """The counts and the kill rate (rounded to four places) as JSON."""
        rate = self.kill_rate
        return {
            "generated": self.generated,
            "checked": self.checked,
            "killed": self.killed,
            "survived": self.survived,
            "kill_rate": None if rate is None else round(rate, 4),
        }


@dataclass
class ToolMutation:
    """One tool's mutants and the gate's verdicts; ``reason`` says why none was checked."""

    tool: str
    file: str
    source: str = ""
    reason: str = ""
    generated: dict[str, int] = field(default_factory=dict)
    verdicts: list[MutantVerdict] = field(default_factory=list)

    @property
    def survivors(self) -> list[MutantVerdict]:
        """The mutants the gate let through, in the order they were made."""
        return [verdict for verdict in self.verdicts if not verdict.killed]

    @property
    def tally(self) -> Tally:
        """Every operator together."""
        return sum(self.by_operator().values(), Tally())

    def by_operator(self) -> dict[str, Tally]:
        """Per operator that made a mutant, in :data:`OPERATORS` order."""
        return {
            operator: Tally(
                self.generated[operator],
                sum(v.mutant.operator == operator for v in self.verdicts),
                sum(v.mutant.operator == operator and v.killed for v in self.verdicts),
            )
            for operator in OPERATORS
            if self.generated.get(operator)
        }

    def to_json(self) -> dict[str, Any]:
        """Counts per operator and every checked mutant's verdict, as JSON."""
        return {
            "tool": self.tool,
            "file": self.file,
            "script_source": self.source,
            "reason": self.reason,
            **self.tally.to_json(),
            "operators": {name: tally.to_json() for name, tally in self.by_operator().items()},
            "mutants": [verdict.to_json() for verdict in self.verdicts],
        }


@dataclass(frozen=True)
class _Subject:
    """The script under check for one tool, and how the gate runs on a version of it."""

    tool: LoadedTool
    text: str
    modules: Mapping[str, str]
    source: str
    emitted: EmitResult | None

    def gate(self, text: str, options: CheckOptions) -> tuple[Verdict, bool]:
        """The verdict on ``text`` in the script's place, and whether the gate lets it
        through (a check that cannot finish does not)."""
        try:
            if self.emitted is not None:
                emitted = replace(self.emitted, script=text)
                report = check_tool(self.tool, options, emitted=emitted)
            else:
                report = check_tool(
                    self.tool, options, script=text, modules=self.modules, source=self.source
                )
        except (TranspilerError, RecursionError):
            return Verdict.UNCHECKED, False
        return report.verdict, report.passes(None)


def mutate_request(
    request: Request,
    options: CheckOptions,
    limit: int,
    only: str | None = None,
    progress: Callable[[int, int, ToolMutation], None] | None = None,
) -> tuple[list[ToolMutation], Pairing]:
    """Mutate and check every tool of the request (only the tool named ``only``, if given);
    also the pairing, whose unreadable inputs the caller reports. ``progress`` hears of each
    tool done (its number, the count of tools, its result)."""
    selected, pairing = select(request)
    if only is not None:
        selected = [item for item in selected if item.tool == only]
        if not selected:
            raise InputError(f"no composite tool named {only} in {', '.join(request.config.paths)}")
    results: list[ToolMutation] = []
    for number, item in enumerate(selected, 1):
        results.append(mutate_pair(item, request, options, limit))
        if progress is not None:
            progress(number, len(selected), results[-1])
    return results, pairing


def mutate_pair(item: Pair, request: Request, options: CheckOptions, limit: int) -> ToolMutation:
    """One tool's mutants, at most ``limit`` of them checked."""
    result = ToolMutation(item.tool, item.file)
    if item.refusal is not None:
        result.reason = f"not converted: {item.refusal}"
        return result
    subject = _subject(item, item.composite(request.config.read()), options)
    if isinstance(subject, str):
        result.reason = subject
        return result
    result.source = subject.source
    verdict, passes = subject.gate(subject.text, options)
    if not passes:
        result.reason = f"the script itself does not pass the gate ({verdict}): nothing to measure"
        return result
    try:
        made = mutants(subject.text, subject.modules)
    except (SyntaxError, ValueError) as error:
        result.reason = f"the script does not parse as the Starlark subset mutants need: {error}"
        return result
    for mutant in made:
        result.generated[mutant.operator] = result.generated.get(mutant.operator, 0) + 1
    for mutant in _sample(made, limit, options.seed):
        verdict, passes = subject.gate(mutant.text, options)
        result.verdicts.append(MutantVerdict(mutant, verdict, killed=not passes))
    return result


def _subject(item: Pair, tool: LoadedTool, options: CheckOptions) -> _Subject | str:
    """The script ``check`` would check for the pair, or why there is none."""
    if item.script is not None:
        script = item.script
        return _Subject(tool, script.text, script.modules, script.where, None)
    emitted = emit(tool, options)
    if isinstance(emitted, str):
        return f"not converted: the emitter cannot express it: {emitted}"
    return _Subject(tool, emitted.script, emitted.modules, f"emitted ({options.style})", emitted)


def _sample(made: list[Mutant], limit: int, seed: int) -> list[Mutant]:
    """``made``, or ``limit`` of them drawn with ``seed``, in the order they were made."""
    if len(made) <= limit:
        return made
    return [made[index] for index in sorted(Random(seed).sample(range(len(made)), limit))]
