"""Checking one tool: emit its script, run both forms on many scenarios, decide.

For each scenario the composite model runs under the canonical schedule; when
its trace differs from the script's, every schedule (up to a limit) is tried,
since vMCP may legitimately behave in any of those ways. Scenarios come from
two sources: every outcome combination (:mod:`paths`, up to a limit) and
random ones from hypothesis (:mod:`generate`), which also shrinks a
divergence to a minimal scenario.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from transpiler.composite import run_composite, run_composite_schedules
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import TranspilerError
from transpiler.emit.inert import has_unsafe_text
from transpiler.emit.report import EmitResult
from transpiler.emit.script import emit_script
from transpiler.gobuild import go_available
from transpiler.harness.generate import scenarios as random_scenarios
from transpiler.harness.paths import combinations, path_of, sample_params
from transpiler.harness.relation import Difference, difference, matching
from transpiler.harness.shapes import ToolShapes, tool_shapes
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark

SCHEDULE_LIMIT = 32
ENGINES = ("rust", "go")


@dataclass(frozen=True)
class CheckOptions:
    """How hard to look: random scenarios per tool, combinations, engines, seed."""

    examples: int = 100
    paths: int = 64
    engines: tuple[str, ...] = ("rust",)
    seed: int = 0
    tool_schemas: dict[str, Any] | None = None
    fixes: tuple[str, ...] = ()
    counterexample_dir: Path | None = None


@dataclass
class Counterexample:
    """A minimal scenario where the script and the workflow differ."""

    scenario: Scenario
    engine: str
    difference: Difference
    composite: Trace
    script: Trace
    saved_to: str | None = None


@dataclass
class ToolReport:
    """Everything ``check`` found about one tool: the verdict and its evidence.

    ``verdict`` is ``certified`` (no difference found), ``deviates`` (a
    difference, and the script declares deviations from vMCP), ``differs`` (an
    undeclared difference: a bug), or ``not-converted`` (``reason`` says why).
    """

    tool: str
    file: str
    verdict: str
    reason: str = ""
    scenarios: int = 0
    paths_enumerated: int = 0
    paths_run: int = 0
    distinct_paths: int = 0
    engines: tuple[str, ...] = ()
    seed: int = 0
    seconds: float = 0.0
    emitted: EmitResult | None = None
    counterexample: Counterexample | None = None
    certificate: dict[str, Any] = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """Whether every scenario behaved the same on every engine."""
        return self.verdict == "certified"


class _Run:
    """Comparisons for one tool and script."""

    def __init__(self, tool: LoadedTool, script: str, engines: tuple[str, ...]) -> None:
        self.config = tool.effective
        self.script = script
        self.engines = engines
        self.count = 0
        self.paths: set[str] = set()

    def compare(self, scenario: Scenario) -> Counterexample | None:
        """Run both forms; the counterexample when no composite schedule matches."""
        self.count += 1
        composite = run_composite(self.config, scenario)
        self.paths.add(path_of(composite))
        for engine in self.engines:
            script = run_starlark(
                self.script, scenario, engine=engine, timeout_ns=self.config.timeout
            )
            found = difference(composite, script)
            if found is None:
                continue
            others = run_composite_schedules(self.config, scenario, "all", SCHEDULE_LIMIT)
            if matching(list(others), script) is None:
                return Counterexample(scenario, engine, found, composite, script)
        return None


def check_tool(
    tool: LoadedTool,
    options: CheckOptions,
    script: str | None = None,
    emitted: EmitResult | None = None,
) -> ToolReport:
    """Emit (unless ``emitted`` or a bare ``script`` is given) and check one tool."""
    started = time.perf_counter()
    origin = tool.origin.file
    engines = _engines(tool, options)
    report = ToolReport(
        tool.effective.name, origin, "certified", engines=engines, seed=options.seed
    )
    if emitted is not None:
        script = emitted.script
    if script is None:
        try:
            emitted = emit_script(
                tool.effective,
                f"{origin}:{tool.config.where.at.line}",
                options.tool_schemas,
                options.fixes,
            )
        except TranspilerError as error:
            report.verdict, report.reason = "not-converted", str(error)
            report.seconds = time.perf_counter() - started
            return report
        script = emitted.script
    report.emitted = emitted
    run = _Run(tool, script, engines)
    shapes = tool_shapes(tool.effective)
    report.counterexample = _exhaustive(run, tool, shapes, options, report) or _random(
        run, tool, shapes, options, emitted
    )
    report.scenarios = run.count
    report.distinct_paths = len(run.paths)
    if report.counterexample is not None:
        deviations = [n.render() for n in emitted.deviations] if emitted is not None else []
        report.verdict = "deviates" if deviations else "differs"
        report.reason = report.counterexample.difference.render()
        if deviations:
            report.reason += "\nthe script declares these deviations:\n  - " + "\n  - ".join(
                deviations
            )
    report.seconds = time.perf_counter() - started
    report.certificate = certificate(tool, script, emitted, report)
    return report


def _engines(tool: LoadedTool, options: CheckOptions) -> tuple[str, ...]:
    """The engines asked for, plus go.starlark.net when the tool's text had to be made inert.

    go.starlark.net (what vMCP embeds) is where such text is most dangerous: it
    ends a comment at ``\\r`` and the whole file at NUL.
    """
    if (
        "go" in options.engines
        or not has_unsafe_text(tool.effective)
        or not go_available(needs_starlark=True)
    ):
        return options.engines
    return (*options.engines, "go")


def _exhaustive(
    run: _Run, tool: LoadedTool, shapes: ToolShapes, options: CheckOptions, report: ToolReport
) -> Counterexample | None:
    params = sample_params(tool.effective.parameters)
    chosen, total = combinations(shapes, tool.effective.name, params, options.paths, options.seed)
    report.paths_enumerated, report.paths_run = total, len(chosen)
    for scenario in chosen:
        found = run.compare(scenario)
        if found is not None:
            return found
    return None


def _random(
    run: _Run,
    tool: LoadedTool,
    shapes: ToolShapes,
    options: CheckOptions,
    emitted: EmitResult | None,
) -> Counterexample | None:
    if options.examples <= 0:
        return None
    domain = frozenset(note.name for note in emitted.domain) if emitted is not None else frozenset()
    strategy = random_scenarios(shapes, tool.effective.parameters, tool.effective.name, domain)
    budget = settings(
        max_examples=options.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        minimal = find(
            strategy,
            lambda s: run.compare(s) is not None,
            settings=budget,
            random=Random(options.seed),
        )
    except NoSuchExample:
        return None
    return run.compare(minimal)


def certificate(
    tool: LoadedTool, script: str, emitted: EmitResult | None, report: ToolReport
) -> dict[str, Any]:
    """The record ``check`` keeps per tool (see docs/equivalence.md)."""
    source = Path(tool.origin.file)
    yaml_hash = hashlib.sha256(source.read_bytes()).hexdigest() if source.is_file() else None
    notes = emitted.notes if emitted is not None else ()
    return {
        "file": tool.origin.file,
        "tool": tool.effective.name,
        "yaml_sha256": yaml_hash,
        "script_sha256": hashlib.sha256(script.encode()).hexdigest(),
        "engines": list(report.engines),
        "seed": report.seed,
        "paths": {
            "enumerated": report.paths_enumerated,
            "run": report.paths_run,
            "distinct": report.distinct_paths,
        },
        "scenarios": report.scenarios,
        "verdict": report.verdict,
        "domain": [n.text for n in notes if n.kind == "domain"],
        "quirks_reproduced": [n.name for n in notes if n.kind == "quirk"],
        "deviations_requested": [n.name for n in notes if n.kind == "deviation" and n.requested],
    }
