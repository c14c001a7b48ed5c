"""The gate's own figures in docs/equivalence.md: mutants killed, and what the scenarios reached.

Usage: python benchmarks/gate_figures.py [--write docs/equivalence.md] [--limit N]

For corpus/example and ../shared/upstream-corpus (with its one accepted gap), in the
readable style on starlark-rust with ``mutate``'s defaults: the mutants made, checked and
killed (:mod:`transpiler.gate.mutation`), each survivor, and from ``check`` with the same
options each tool's coverage (steps that completed in some scenario out of all steps,
scenarios run). ``--write`` replaces the part of the file between the ``gate`` markers.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from transpiler.cli.mutate import DEFAULT_EXAMPLES, DEFAULT_LIMIT, DEFAULT_PATHS
from transpiler.gate.batch import check_all, select
from transpiler.gate.mutation import Tally, ToolMutation, mutate_request
from transpiler.harness.running.check import CheckOptions, ToolReport
from transpiler.pairs import Request, Where

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- gate:begin -->", "<!-- gate:end -->"


@dataclass(frozen=True)
class Corpus:
    """A set of tools the figures are measured over, with the gaps it accepts by name."""

    label: str
    path: Path
    accept_gaps: frozenset[str] = frozenset()


CORPORA = (
    Corpus("`corpus/example`", ROOT / "corpus" / "example"),
    Corpus(
        "`../shared/upstream-corpus`",
        ROOT.parent / "shared" / "upstream-corpus",
        frozenset({"comprehensive-tool/step2"}),
    ),
)


def _options(corpus: Corpus) -> CheckOptions:
    return CheckOptions(
        examples=DEFAULT_EXAMPLES,
        paths=DEFAULT_PATHS,
        engines=("rust",),
        seed=0,
        accept_gaps=corpus.accept_gaps,
    )


@dataclass
class Reached:
    """What the scenarios of a corpus's checks reached, summed over its tools."""

    scenarios: int = 0
    steps: int = 0
    completed: int = 0
    call_sites: int = 0
    sites_reached: int = 0
    statements: int = 0
    shown_run: int = 0

    def add(self, report: ToolReport) -> None:
        """Count one tool's certificate."""
        coverage = report.coverage
        self.scenarios += report.scenarios
        self.steps += len(coverage.get("steps", {}))
        self.completed += len(coverage.get("steps", {})) - len(coverage.get("never_completed", []))
        script = coverage.get("script", {})
        reachable = [site for site in script.get("call_sites", []) if site["reachable"]]
        self.call_sites += len(reachable)
        self.sites_reached += sum(bool(site["scenarios"]) for site in reachable)
        lines = script.get("lines", {})
        self.statements += lines.get("statements", 0)
        self.shown_run += len(lines.get("shown_run", []))


def measure(corpus: Corpus, limit: int) -> str:
    """The Markdown lines for one corpus."""
    options = _options(corpus)
    request = Request(Where((str(corpus.path),)))
    results, _ = mutate_request(request, options, limit)
    selected, _ = select(request)
    reports = check_all(selected, request, options, jobs=2)
    total = sum((result.tally for result in results), Tally())
    reached = Reached()
    never: list[str] = []
    for report in reports:
        reached.add(report)
        never.extend(f"{report.tool}/{step}" for step in report.coverage.get("never_completed", []))
    rate = "n/a" if total.kill_rate is None else f"{100 * total.kill_rate:.1f}%"
    lines = [
        f"- {corpus.label}: {len(results)} tools, {total.generated} mutants made, "
        f"{total.checked} checked, **{total.killed} killed ({rate})**, "
        f"{total.survived} survived. Coverage of the checks: {reached.scenarios} scenarios; "
        f"steps completed in some scenario {reached.completed}/{reached.steps}"
        + (f" (never: {', '.join(never)})" if never else "")
        + f"; script call sites reached {reached.sites_reached}/{reached.call_sites}; "
        f"statement lines shown run {reached.shown_run}/{reached.statements}",
    ]
    lines.extend(_survivors(results))
    return "\n".join(lines)


#: The reason a tool vMCP itself refuses is not measured (it has no script to mutate).
REJECTED = "not converted: vMCP rejects"


def _survivors(results: list[ToolMutation]) -> list[str]:
    rejected = sum(result.reason.startswith(REJECTED) for result in results)
    found = [f"  - {rejected} tools vMCP rejects: not measured"] if rejected else []
    for result in results:
        if result.reason and not result.reason.startswith(REJECTED):
            found.append(f"  - `{result.tool}`: not measured: {result.reason}")
        for survivor in result.survivors:
            mutant = survivor.mutant
            found.append(
                f"  - `{result.tool}` line {mutant.line}, {mutant.operator}: "
                f"`{_inline(mutant.original)}` -> `{_inline(mutant.mutated)}`"
            )
    return found


def _inline(text: str) -> str:
    flat = " ".join(text.split())
    flat = flat if len(flat) <= 70 else flat[:67] + "..."
    return flat.replace("`", "'")


def main() -> int:
    """Measure, print, optionally write."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="the Markdown file to update")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="mutants per tool")
    args = parser.parse_args()
    block = "\n".join(measure(corpus, args.limit) for corpus in CORPORA)
    command = "python benchmarks/gate_figures.py --write docs/equivalence.md"
    text = (
        f"{BEGIN}\n(`{command}`; readable style, starlark-rust, `--examples "
        f"{DEFAULT_EXAMPLES} --paths {DEFAULT_PATHS}`, seed 0; each survivor is an "
        f"equivalent mutant or a hole)\n\n{block}\n{END}"
    )
    print(text)
    if args.write is not None:
        current = args.write.read_text()
        start, end = current.index(BEGIN), current.index(END) + len(END)
        args.write.write_text(current[:start] + text + current[end:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
