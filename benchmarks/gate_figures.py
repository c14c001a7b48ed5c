"""The gate's own figures in docs/equivalence.md: mutants killed, and what the scenarios reached.

Usage: python benchmarks/gate_figures.py [--write docs/equivalence.md] [--limit N]

For corpus/example and ../shared/upstream-corpus (with its one accepted gap), in the
readable style on starlark-rust with ``mutate``'s defaults: the mutants made, checked and
killed (:mod:`transpiler.harness.mutation`), each survivor, and from ``check`` with the same
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
from transpiler.harness.check import CheckOptions, ToolReport
from transpiler.harness.gate import check_all, select
from transpiler.harness.mutation import Tally, ToolMutation, mutate_request
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


def _coverage(reports: list[ToolReport]) -> tuple[int, int, int, list[str]]:
    """Steps completed in some scenario, steps in all, scenarios, and the steps never
    completed (``tool/step``)."""
    completed = total = scenarios = 0
    never: list[str] = []
    for report in reports:
        steps = report.coverage.get("steps", {})
        missing = report.coverage.get("never_completed", [])
        total += len(steps)
        completed += len(steps) - len(missing)
        scenarios += report.scenarios
        never.extend(f"{report.tool}/{step}" for step in missing)
    return completed, total, scenarios, never


def measure(corpus: Corpus, limit: int) -> str:
    """The Markdown lines for one corpus."""
    options = _options(corpus)
    request = Request(Where((str(corpus.path),)))
    results, _ = mutate_request(request, options, limit)
    selected, _ = select(request)
    reports = check_all(selected, request, options, jobs=2)
    total = sum((result.tally for result in results), Tally())
    completed, steps, scenarios, never = _coverage(reports)
    rate = "n/a" if total.kill_rate is None else f"{100 * total.kill_rate:.1f}%"
    lines = [
        f"- {corpus.label}: {len(results)} tools, {total.generated} mutants made, "
        f"{total.checked} checked, **{total.killed} killed ({rate})**, "
        f"{total.survived} survived; {scenarios} scenarios, steps completed in some "
        f"scenario {completed}/{steps}"
        + (f" (never: {', '.join(never)})" if never else ""),
    ]
    lines.extend(_survivors(results))
    return "\n".join(lines)


def _survivors(results: list[ToolMutation]) -> list[str]:
    found = []
    for result in results:
        if result.reason:
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
