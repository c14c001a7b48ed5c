"""Checking one tool: run the workflow and its script on many scenarios, decide, explain.

For each scenario the composite model runs under the canonical schedule; when
the script's trace differs, every schedule (up to a limit) is tried, since
vMCP may legitimately behave in any of those ways. A script passes a scenario
when its trace is the model's run under a reading of the classes it declares
(:mod:`readings`: one choice per site, the same in every scenario, fixed once
all have passed); the smallest scenario where each class shows is kept as its
*witness*. Scenarios
come from every outcome combination (:mod:`paths`, up to a limit) and from a
seeded generator (:mod:`generate`), drawn in bulk, each set run as one batch
per engine; once an unexplained difference shows, hypothesis searches the same
space and shrinks it to a minimal counterexample. The ordinary successful run
(:mod:`happy`) gives the tool's *findings*: quirks that fire even when every
backend answers as the templates expect. The tool's ``tools/list`` entry is compared
field by field first (:mod:`entries`); a composite tool vMCP does not list has no behaviour
to compare (every call of it is answered ``not found``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from random import Random
from typing import Any

from transpiler.composite import run_composite
from transpiler.composite.advertise import Hidden
from transpiler.composite.quirks import NULL_PLACE_SUFFIX
from transpiler.composite.variants import SiteKey
from transpiler.config.model import CompositeToolConfig, StepKind, ToolAnnotations
from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.config.tool_annotations import annotations_to_mcp
from transpiler.config.units import LoadedTool
from transpiler.declaration import TITLE, Declaration, declared_in, header_item
from transpiler.deviations import Deviation, accepts, named
from transpiler.diagnostics import TranspilerError
from transpiler.emit import emit_tool
from transpiler.emit.report import EmitResult
from transpiler.fingerprint import code_digest
from transpiler.gobuild import go_available
from transpiler.harness.coverage.coverage import Coverage, ScriptCoverage, gaps, judge, result_parts
from transpiler.harness.coverage.scriptmap import ScriptLines, script_map
from transpiler.harness.judging.entries import ListingDifference, listing_differences
from transpiler.harness.judging.fields import field_differences
from transpiler.harness.judging.kinds import kind_advice
from transpiler.harness.judging.readings import (
    SETTLE_ROUNDS,
    VMCP_CHOICE,
    Found,
    Reading,
    Readings,
    variants_of,
)
from transpiler.harness.judging.relation import Difference, differences, matches
from transpiler.harness.judging.sites import SiteValues, site_values, value_text
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.scenarios.analysis import ToolAnalysis, analyse
from transpiler.harness.scenarios.draws import Gen
from transpiler.harness.scenarios.generate import scenarios as random_scenarios
from transpiler.harness.scenarios.happy import (
    expected,
    free_texts,
    happy_scenario,
    reshaped_scenarios,
    reshapes,
)
from transpiler.harness.scenarios.paths import combinations, path_of, sample_params
from transpiler.harness.scenarios.probes import probe_scenarios
from transpiler.harness.scenarios.scriptreads import ScriptReads, script_reads
from transpiler.harness.scenarios.shapes import ToolShapes, tool_shapes
from transpiler.harness.scenarios.timed import timed_scenarios
from transpiler.inert import has_unsafe_text, unsafe
from transpiler.listing import (
    ListedTool,
    ScriptedEntry,
    entry_classes,
    hidden_advice,
    listed,
    migrated,
)
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.schedule import ScriptedChooser
from transpiler.sim.trace import QuirkEvent, Trace
from transpiler.starlark_runtime import (
    SCRIPT_FILENAME,
    EngineError,
    run_starlark,
    run_starlark_many,
)
from transpiler.starlark_runtime.run import GoOnlyScript
from transpiler.starlark_runtime.source import as_vmcp_reads
from transpiler.starlark_runtime.versions import engine_versions

ENGINES = ("rust", "go")
#: Numbers on either side of where Go starts writing whole floats in exponent form, and one
#: past it that is not a round million.
THRESHOLD_NUMBERS = (999_999, 1_000_000, 1_500_000)
#: Scenarios kept per variant taken at a site, smallest first, to find its witness.
WITNESS_CANDIDATES = 3


@dataclass(frozen=True)
class CheckOptions:
    """How hard to look and what to accept.

    ``style`` is the emitter's (readable or exact), ``inline_helpers`` whether
    an exact script carries its helpers instead of loading them; ``accept``
    the deviation classes a tool may show and still pass (None: every class
    it declares); ``accept_gaps`` the steps (``tool/step``) no scenario may
    complete and the tool still pass; ``tool_annotations`` the backend tools'
    annotations by name (``--tools``: the backends' ``tools/list``), which
    decide how vMCP lists the composite tool (None: every backend unknown);
    ``served`` the composite tools vMCP serves beside the one checked (one of
    them named like a backend tool hides them all); ``target`` the vMCP the scripted
    tool is for (the entry ``migrate`` writes is that target's); ``scenarios`` more
    scenarios to run (``check --scenarios DIR``: recorded by ``serve --record``), each on
    the tool it names.
    """

    examples: int = 100
    paths: int = 64
    engines: tuple[str, ...] = ("rust",)
    seed: int = 0
    tool_schemas: dict[str, Any] | None = None
    tool_annotations: dict[str, ToolAnnotations | None] | None = None
    fixes: tuple[str, ...] = ()
    style: str = "readable"
    inline_helpers: bool = False
    accept: frozenset[Deviation] | None = None
    accept_gaps: frozenset[str] = frozenset()
    served: tuple[CompositeToolConfig, ...] = ()
    target: Target = DEFAULT_TARGET
    scenarios: tuple[Scenario, ...] = ()


@dataclass
class Counterexample:
    """A minimal scenario where the script and the workflow differ unexplained."""

    scenario: Scenario
    engine: str
    differences: tuple[Difference, ...]
    composite: Trace
    script: Trace
    saved_to: str | None = None
    advice: tuple[str, ...] = ()
    #: The command that replays the saved scenario on both forms and shows what differs.
    replay: str | None = None
    #: The search bound met before every reading was ruled out: the scenario decides nothing.
    bound: str | None = None

    @property
    def difference(self) -> Difference:
        """The first differing field."""
        return self.differences[0]

    @property
    def unexplained_classes(self) -> frozenset[str]:
        """Classes the composite run fired that the script does not declare."""
        return self.composite.fired()


@dataclass
class Witness:
    """The smallest scenario found where a declared deviation class shows: at ``site``, the
    value vMCP gives beside the script's (taking ``variant`` there, for a class with
    variants); ``shown``, the same as one difference (the first that differs where no site's
    values could be read)."""

    deviation: Deviation
    scenario: Scenario
    engine: str
    classes: frozenset[Deviation]
    differences: tuple[Difference, ...]
    composite: Trace
    script: Trace
    size: int
    shown: Difference
    site: SiteValues | None = None
    variant: str | None = None


@dataclass(frozen=True)
class Finding:
    """What a user must know of a tool whatever the verdict: a vMCP quirk that fires on its
    ordinary successful run (a latent bug), or behaviour of vMCP's the script cannot keep (a
    step's ``timeout``)."""

    deviation: Deviation
    step: str | None
    site: str
    detail: str
    unless: str | None = None
    #: It does not fire with some other form of the free texts (values no template
    #: constrains): it comes from the simulator's placeholders, not known to hold for data of
    #: the real shape, so reports give it as a note, not a warning.
    placeholder: bool = False

    def render(self) -> str:
        """One sentence for a report; a finding that comes from the simulator's values
        (``unless``: backend values under which it does not fire, :func:`findings`) says so."""
        where = f"step {self.step}, {self.site}" if self.step else self.site
        text = f"{where}: {self.deviation.about.finding} ({self.detail})"
        if self.unless is None:
            return text
        return f"{text}; with the simulator's backend values only, not with {self.unless}"


@dataclass
class ToolReport:
    """Everything ``check`` found about one tool: the verdict and its evidence."""

    tool: str
    file: str
    verdict: Verdict
    reason: str = ""
    scenarios: int = 0
    paths_enumerated: int = 0
    paths_run: int = 0
    distinct_paths: int = 0
    engines: tuple[str, ...] = ()
    seed: int = 0
    seconds: float = 0.0
    style: str = ""
    emitted: EmitResult | None = None
    declared: tuple[Deviation, ...] = ()
    witnesses: dict[Deviation, Witness] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    counterexample: Counterexample | None = None
    certificate: dict[str, Any] = field(default_factory=dict)
    script_source: str = ""
    notes: tuple[str, ...] = ()
    carried: dict[str, Any] | None = None
    coverage: dict[str, Any] = field(default_factory=dict)
    #: Lines of the tool's configuration: its own (key ""), each step's (key: its id).
    config_lines: dict[str, int] = field(default_factory=dict)
    #: Each field of the ``tools/list`` entry the script's tool is listed with otherwise.
    listing: tuple[ListingDifference, ...] = ()
    #: Lines of the script a report points at (its calls by tool, ``run``'s returns).
    script_lines: ScriptLines = field(default_factory=ScriptLines)
    #: The file and line the script's first line is on (a ``scriptFile``'s line 1, a line of
    #: the configuration inside a literal block), when the script is in a file as it runs.
    script_at: tuple[str, int] | None = None

    @property
    def observed(self) -> tuple[Deviation, ...]:
        """Declared classes that showed on some scenario (or in the listing), in declaration
        order."""
        seen = {*self.witnesses, *(d.deviation for d in self.listing)} or set(
            self.certificate.get("observed", {})
        )
        return tuple(c for c in self.declared if c in seen)

    @classmethod
    def unchanged(cls, entry: dict[str, Any]) -> ToolReport:
        """A previous report's entry (``check --since``), for a pair that has not changed."""
        certificate = entry.get("certificate") or {}
        return cls(
            entry["tool"],
            entry["file"],
            Verdict(entry["verdict"]),
            reason=entry.get("reason", ""),
            scenarios=certificate.get("scenarios", 0),
            engines=tuple(certificate.get("engines", ())),
            seed=certificate.get("seed", 0),
            style=certificate.get("style", ""),
            declared=tuple(filter(None, map(named, entry.get("declared", ())))),
            certificate=certificate,
            script_source=certificate.get("script_source", ""),
            carried=entry,
        )

    def passes(self, accept: frozenset[Deviation] | None) -> bool:
        """Whether the gate lets the tool through: equivalent, or only accepted classes showed."""
        if self.verdict is Verdict.EQUIVALENT:
            return True
        if self.verdict is not Verdict.EQUIVALENT_EXCEPT:
            return False
        return all(accepts(accept, c) for c in self.observed)


class _Run:
    """Comparisons of one tool with one script (and the modules it loads), and what they showed."""

    def __init__(
        self,
        tool: LoadedTool,
        script: str,
        modules: Mapping[str, str],
        engines: tuple[str, ...],
        declared: frozenset[Deviation],
        options: CheckOptions = CheckOptions(),
        timeout_ns: int | None = None,
    ) -> None:
        self.config = tool.effective
        #: The scripted tool's ``timeout`` (its entry's, else the composite tool's).
        self.timeout_ns = self.config.timeout if timeout_ns is None else timeout_ns
        self.input_schemas = options.tool_schemas or {}
        self.annotations = options.tool_annotations or {}
        self.script = script
        self.modules = modules
        self.engines = engines
        self.declared = declared
        self.readings = Readings(self.config, frozenset(c for c in declared if c.about.variants))
        self.used: dict[tuple[SiteKey, str], list[_Use]] = {}
        self.count = 0
        self.paths: set[str] = set()
        self.coverage = Coverage(
            frozenset(s.id for s in self.config.steps if s.kind is StepKind.ELICITATION),
            result_parts(self.config),
        )
        self.script_coverage = ScriptCoverage(script_map(script, modules, SCRIPT_FILENAME))
        self.go_only: str | None = None
        #: Scenarios starlark-rust's own formatting explained that go.starlark.net, not
        #: installed, could not confirm.
        self.unconfirmed = 0

    def advertised(self, scenario: Scenario) -> Scenario:
        """``scenario`` with each backend tool advertising the ``inputSchema`` and annotations
        the tools file (``--tools``) gives it where the scenario gives none: the script was
        written against those (vMCP coerces by the schema; its gate reads the annotations)."""
        if not (self.input_schemas or self.annotations):
            return scenario
        backends = {
            name: replace(
                tool,
                input_schema=self.input_schemas.get(name)
                if tool.input_schema is None
                else tool.input_schema,
                annotations=self.annotations.get(name)
                if tool.annotations is None
                else tool.annotations,
            )
            for name, tool in scenario.backends.items()
        }
        return replace(scenario, backends=backends)

    def compare_all(self, scenarios: Sequence[Scenario]) -> Counterexample | None:
        """:meth:`compare` each scenario in turn, up to the first counterexample; the script
        runs on each engine in one batch."""
        scenarios = [self.advertised(scenario) for scenario in scenarios]
        runs: dict[str, list[Trace | EngineError]] = {}
        while pending := [e for e in self.engines if e not in runs]:
            engine = pending[0]
            runs[engine] = run_starlark_many(
                self.script,
                scenarios,
                engine=engine,
                timeout_ns=self.timeout_ns,
                modules=self.modules,
            )
            refusal = next((r for r in runs[engine] if isinstance(r, GoOnlyScript)), None)
            if refusal is not None:
                self._go_only(engine, refusal)
        for index, scenario in enumerate(scenarios):
            found = self.compare(scenario, {e: runs[e][index] for e in self.engines})
            if found is not None:
                return found
        return None

    def compare(
        self,
        scenario: Scenario,
        ran: Mapping[str, Trace | EngineError] | None = None,
        keep: bool = True,
    ) -> Counterexample | None:
        """Run both forms on every engine (the script's runs ``ran`` already, when given); the
        counterexample when no reading (:mod:`readings`) makes the model's run match the
        script's. With ``keep``, the scenario narrows the readings and may give witnesses."""
        scenario = self.advertised(scenario)
        if keep:
            self.count += 1
        recorder = ScriptedChooser()
        composite = run_composite(self.config, scenario, chooser=recorder)
        if keep:
            self.paths.add(path_of(composite))
            self.coverage.add(composite)
        done: set[str] = set()
        while pending := [e for e in self.engines if e not in done]:
            engine = pending[0]
            done.add(engine)
            script = ran[engine] if ran is not None else self._run(engine, scenario)
            if isinstance(script, GoOnlyScript):
                self._go_only(engine, script)
                continue
            if isinstance(script, EngineError):
                raise script
            if keep:
                self.script_coverage.add(engine, script.reach)
            found = self.readings.match(
                scenario, composite, recorder.branched, script, engine, keep
            )
            if found is None:
                return self._counterexample(scenario, engine, composite, script)
            if engine == "rust" and "go" not in self.engines:
                imitated = self._confirm_on_go(scenario, composite, recorder.branched, found)
                if imitated is not None:
                    return imitated
            if keep:
                self._used(scenario, engine, found.used, found.trace, script)
                self.coverage.add_result(found.trace, script)
        return None

    def _confirm_on_go(
        self, scenario: Scenario, composite: Trace, branched: bool, found: Found
    ) -> Counterexample | None:
        """Where starlark-rust's own formatting (``rust-engine``'s variant) is what made the
        model's run the script's: the scenario on go.starlark.net too (what vMCP embeds), where
        the script must match with vMCP's behaviour at those sites. A script that imitates
        starlark-rust's formatting by hand (JSON keys in insertion order) writes the same text
        on starlark-rust, and only go.starlark.net tells it apart; where it is not installed
        the scenario is counted (``unconfirmed``) and the report says so."""
        taken = {site[0] for site, choice in found.used.items() if choice != VMCP_CHOICE}
        if Deviation.RUST_ENGINE not in taken:
            return None  # the variant was not taken
        if matches(self.readings.run_under(scenario, found.used, "go"), found.trace):
            return None  # the variant changed nothing in this run
        if not go_available(needs_starlark=True):
            self.unconfirmed += 1
            return None
        script = self._run("go", scenario)
        if isinstance(script, EngineError):
            raise script
        if self.readings.match(scenario, composite, branched, script, "go", keep=False) is None:
            return self._counterexample(scenario, "go", composite, script)
        return None

    def settle(self) -> Counterexample | None:
        """One choice per site for every scenario passed: those that took another choice at a
        site are matched again under the fixed reading. Each scenario matched some reading, so
        one that cannot be matched again shows no difference of its own: the search for one
        reading of them all met its bound (:data:`SETTLE_ROUNDS` rounds), and the
        counterexample says so."""
        bound = (
            f"one reading for every scenario, fixed in {SETTLE_ROUNDS} rounds "
            "(readings.SETTLE_ROUNDS)"
        )
        for _ in range(SETTLE_ROUNDS):
            again = self.readings.one_choice_per_site()
            if not again:
                return None
            for record in again:
                found = self.readings.match(
                    record.scenario, record.vmcp, record.branched, record.script, record.engine
                )
                if found is None:
                    example = self._counterexample(
                        record.scenario, record.engine, record.vmcp, record.script
                    )
                    example.bound = bound
                    return example
        left = self.readings.one_choice_per_site()
        if not left:
            return None
        example = self._counterexample(
            left[0].scenario, left[0].engine, left[0].vmcp, left[0].script
        )
        example.advice = (
            *example.advice,
            "scenarios took different choices at a site, and no one choice per site was found "
            "that explains every scenario",
        )
        example.bound = bound
        return example

    def _counterexample(
        self, scenario: Scenario, engine: str, composite: Trace, script: Trace
    ) -> Counterexample:
        """The difference from the model's run under the reading earlier scenarios fixed (or,
        where the two agree but no reading fits, from vMCP's own run)."""
        refusal = self.readings.refusal
        if refusal is None:
            read = self.readings.run_chosen(scenario, engine)
            found = differences(read, script)
            if not found:
                found = differences(composite, script)
                read = composite
            found = _why(found, read, script, scenario)
            example = Counterexample(scenario, engine, found, read, script)
            example.advice = tuple(d.why for d in found if d.why)
            taken = self.readings.describe()
            if taken and read is not composite:
                taking = "earlier scenarios read the script as taking: " + "; ".join(taken)
                example.advice = (*example.advice, taking)
            return example
        read = refusal.trace
        found = tuple(
            d
            for d in differences(read, script)
            if not (read.any_error_text and d.field == "error text")
        )
        if not found:
            read = composite
            found = differences(composite, script)
        found = _why(found, read, script, scenario)
        return Counterexample(
            scenario,
            engine,
            found,
            read,
            script,
            # Why a difference of kind alone happened, then what the search tried.
            advice=(*(d.why for d in found if d.why), *refusal.lines()),
            bound=refusal.bound,
        )

    def _used(
        self, scenario: Scenario, engine: str, reading: Reading, trace: Trace, script: Trace
    ) -> None:
        """Keep, for each variant the matching reading took (settled or not) at a site the
        run reached, the smallest scenarios where it did, with that reading, the model's run
        under it and the script's."""
        size = _size(scenario)
        reached = {(event.deviation, event.step, event.site) for event in trace.quirks}
        for site, choice in reading.items():
            if choice == VMCP_CHOICE or site not in reached:
                continue
            held = self.used.setdefault((site, choice), [])
            if any(use.scenario is scenario for use in held):
                continue
            held.append(_Use(size, scenario, engine, reading, trace, script))
            held.sort(key=lambda use: use.size)
            del held[WITNESS_CANDIDATES:]

    def variant_witnesses(self) -> dict[Deviation, Witness]:
        """For each class whose variant a matching reading took, the smallest scenario where
        that variant and vMCP's behaviour give different values at the variant's site: the
        model's run with vMCP's behaviour there beside the script's, the values at that site
        read off each (:mod:`sites`)."""
        found: dict[Deviation, Witness] = {}
        for (site, choice), uses in self.used.items():
            for use in uses:
                held = found.get(site[0])
                if held is not None and held.size <= use.size:
                    break
                # Whether the variant shows: the reading's run beside the same run with vMCP's
                # behaviour for this class alone at the site.
                alone = run_composite(
                    self.config,
                    use.scenario,
                    variants=variants_of({**use.reading, site: VMCP_CHOICE}, use.engine),
                )
                stopped = use.trace.stopped_at == site
                if site_values(site, alone, use.script, use.trace, stopped) is None:
                    continue
                # What vMCP gives there: every class at the site with vMCP's behaviour (another
                # class's variant there, idle while this one held, would otherwise show).
                vmcp_there = variants_of(_vmcp_at(use.reading, site), use.engine)
                base = run_composite(self.config, use.scenario, variants=vmcp_there)
                values = site_values(site, base, use.script, use.trace, stopped)
                if values is None:
                    continue
                found[site[0]] = Witness(
                    site[0],
                    use.scenario,
                    use.engine,
                    frozenset({site[0]}),
                    differences(base, use.script),
                    base,
                    use.script,
                    use.size,
                    _shown(values, choice),
                    values,
                    choice,
                )
                break
        return found

    def _run(self, engine: str, scenario: Scenario) -> Trace | EngineError:
        """The script's run of one scenario on one engine, or the engine's refusal."""
        try:
            return run_starlark(
                self.script,
                scenario,
                engine=engine,
                timeout_ns=self.timeout_ns,
                modules=self.modules,
            )
        except GoOnlyScript as refusal:
            return refusal

    def _go_only(self, engine: str, refusal: GoOnlyScript) -> None:
        """A script starlark-rust cannot parse (``while``, recursion) runs on go.starlark.net
        alone, which is what vMCP embeds; without it the check cannot go on."""
        if engine != "rust" or not go_available(needs_starlark=True):
            raise refusal
        self.go_only = str(refusal)
        self.engines = (
            *(e for e in self.engines if e != "rust"),
            *(() if "go" in self.engines else ("go",)),
        )


def _why(
    found: tuple[Difference, ...], read: Trace, script: Trace, scenario: Scenario
) -> tuple[Difference, ...]:
    """``found`` with why a calls difference happened where it is one of kind alone."""
    return tuple(
        replace(d, why=kind_advice(read, script, scenario)) if d.field == "calls" else d
        for d in found
    )


@dataclass(frozen=True)
class _Use:
    """A scenario where a matching reading took a variant: the reading, the model's run under
    it and the script's run."""

    size: int
    scenario: Scenario
    engine: str
    reading: Reading
    trace: Trace
    script: Trace


def _vmcp_at(reading: Reading, site: SiteKey) -> Reading:
    """``reading`` with vMCP's choice for every class at ``site``'s step and place (its
    missing-value form, ``place (null)``, included)."""
    _, step, place = site
    at = place.removesuffix(NULL_PLACE_SUFFIX)
    same = [k for k in reading if k[1] == step and k[2].removesuffix(NULL_PLACE_SUFFIX) == at]
    return {**reading, **dict.fromkeys(same, VMCP_CHOICE), site: VMCP_CHOICE}


def _shown(values: SiteValues, variant: str | None) -> Difference:
    """A site's values as one difference: what they are, where, and the variant taken."""
    taken = f": {variant}" if variant else ""
    return Difference(
        f"{values.shows} ({values.where}{taken})",
        value_text(values.vmcp, values.shows),
        value_text(values.script, values.shows),
    )


def check_tool(
    tool: LoadedTool,
    options: CheckOptions,
    script: str | None = None,
    emitted: EmitResult | None = None,
    modules: Mapping[str, str] | None = None,
    source: str = "",
    entry: ScriptedEntry | None = None,
) -> ToolReport:
    """Emit (unless ``emitted`` or a bare ``script`` is given) and check one tool.

    The script runs with the modules it may ``load()``: the emitted script's
    own (``emitted.modules``), or ``modules`` given with a bare ``script``
    (written by someone: ``source`` says where it is). Its tool is listed with
    ``entry`` (its scripted entry), else with the entry ``migrate`` writes.
    """
    started = time.perf_counter()
    origin = tool.origin.file
    report = ToolReport(
        tool.effective.name,
        origin,
        Verdict.EQUIVALENT,
        engines=options.engines,
        seed=options.seed,
        style=options.style,
        config_lines={
            "": tool.config.where.at.line,
            **{step.id: step.where.at.line for step in tool.effective.steps},
        },
    )
    if emitted is None and script is None:
        try:
            emitted = emit_tool(
                tool.effective,
                f"{origin}:{tool.config.where.at.line}",
                style=options.style,
                tool_schemas=options.tool_schemas,
                fixes=options.fixes,
                inline_helpers=options.inline_helpers,
                entry_deviations=entry_classes(
                    tool.config, options.tool_annotations, options.target
                ),
            )
        except TranspilerError as error:
            report.verdict, report.reason = Verdict.NOT_CONVERTED, str(error)
            report.seconds = time.perf_counter() - started
            return report
    if emitted is not None:
        script, modules = emitted.script, emitted.modules
    assert script is not None
    modules = modules or {}
    engines = report.engines = _engines(tool, options, script, modules)
    report.emitted = emitted
    report.script_source = source or f"emitted ({options.style})"
    declaration = declared_in(script)
    declared = declaration.classes
    report.declared = tuple(sorted(declared))
    vacuous = declaration.problem() or _vacuous(options)
    if vacuous is not None:
        report.verdict, report.reason = Verdict.UNCHECKED, vacuous
        report.seconds = time.perf_counter() - started
        return report
    backends = options.tool_annotations
    vmcp = listed(tool.effective, backends, options.served)
    shown = entry.listed if entry is not None else migrated(tool.config, backends, options.target)
    report.listing = listing_differences(tool.effective, vmcp, shown, backends)
    analysis = analyse(tool.effective)
    report.findings = (*findings(analysis), *_listing_findings(report.listing))
    if isinstance(vmcp, Hidden):
        # Whatever the script does, vMCP does nothing: no declaration makes that a pass.
        # Declaring the difference is no way out: fix what hides the tool, or retire it.
        report.verdict, report.reason = Verdict.UNCHECKED, hidden_advice(tool.effective, vmcp)
        report.seconds = time.perf_counter() - started
        report.certificate = certificate(
            tool, script, modules, report, pair_digest(tool, script, modules, options, entry)
        )
        return report
    timeout = entry.timeout_ns if entry is not None else None
    run = _Run(tool, script, modules, engines, declared, options, timeout)
    report.script_lines = run.script_coverage.map.places
    shapes = tool_shapes(analysis)
    recorded = [s for s in options.scenarios if s.tool == tool.effective.name]
    report.counterexample = (
        (run.compare_all(recorded) if recorded else None)
        or _exhaustive(run, analysis, shapes, options, report, script_reads(as_vmcp_reads(script)))
        or _random(run, tool, shapes, options, emitted)
        or run.settle()
    )
    report.scenarios = run.count
    report.distinct_paths = len(run.paths)
    report.engines = run.engines
    steps = [step.id for step in tool.effective.steps]
    report.coverage = {**run.coverage.to_json(steps), "script": run.script_coverage.to_json()}
    if run.go_only is not None:
        report.notes = (f"checked on go.starlark.net only: {run.go_only}",)
    if run.unconfirmed:
        report.notes = (
            *report.notes,
            f"{Deviation.RUST_ENGINE}'s variant (starlark-rust's own formatting) explained "
            f"{run.unconfirmed} scenario(s) that go.starlark.net, not installed, could not "
            "confirm: only there is a script that imitates that formatting by hand told apart",
        )
    witnessed = run.variant_witnesses()
    report.witnesses = {c: witnessed[c] for c in report.declared if c in witnessed}
    if report.counterexample is not None:
        example = report.counterexample
        report.verdict = Verdict.DIFFERS if example.bound is None else Verdict.INCOMPLETE
        example.advice = (*example.advice, *undeclared(example, declaration, options.accept))
        apart = field_differences(example.composite, example.script)
        report.reason = "\n".join([*(line for d in apart for line in d.lines()), *example.advice])
    elif run.count == 0:
        report.verdict, report.reason = Verdict.UNCHECKED, "no scenario ran: nothing is certified"
    else:
        if report.witnesses:
            report.verdict = Verdict.EQUIVALENT_EXCEPT
        found = gaps(report.tool, run.coverage, steps, run.script_coverage)
        verdict, reason, accepted = judge(found, options.accept_gaps)
        if verdict is not None:
            report.verdict, report.reason = verdict, reason
        report.notes = (*report.notes, *accepted)
    _judge_listing(report, declaration, vmcp, options.target, options.accept)
    report.seconds = time.perf_counter() - started
    report.certificate = certificate(
        tool, script, modules, report, pair_digest(tool, script, modules, options, entry)
    )
    return report


def _listing_findings(found: Sequence[ListingDifference]) -> tuple[Finding, ...]:
    """A finding for each difference that makes the script look safer than vMCP lists it."""
    return tuple(
        Finding(Deviation.LISTING_SAFETY, None, d.site, d.witness) for d in found if d.safety
    )


def _judge_listing(
    report: ToolReport,
    declaration: Declaration,
    vmcp: ListedTool,
    target: Target,
    accept: frozenset[Deviation] | None = None,
) -> None:
    """The verdict with the listing's differences: one the script does not declare differs
    (with what to declare, or, where the ``target`` takes them, the annotations to write), one
    it declares is shown like a witness."""
    undeclared = [d for d in report.listing if d.deviation not in declaration.classes]
    if undeclared:
        missing = sorted({d.deviation for d in undeclared})
        lines = _declare_advice(
            declaration,
            "the scripted tool is listed otherwise than vMCP lists the composite tool, which "
            "the script does not declare",
            missing,
            accept,
        )
        hinted = any(d.site.startswith("annotations.") for d in undeclared)
        if hinted and target.annotations:
            written = json.dumps(annotations_to_mcp(vmcp.annotations) or {}, sort_keys=True)
            lines.append(
                "or list it as vMCP lists the composite tool (as `migrate` writes it): give "
                f"the scripted entry `annotations: {written}`"
            )
        if report.verdict is not Verdict.DIFFERS:
            report.verdict, report.reason = Verdict.DIFFERS, ""
        report.reason = "\n".join(filter(None, [report.reason, *lines]))
    elif report.listing and report.verdict is Verdict.EQUIVALENT:
        report.verdict = Verdict.EQUIVALENT_EXCEPT


def _size(scenario: Scenario) -> int:
    """How large a scenario is, to keep the smallest as a witness: its JSON text's length."""
    return len(json.dumps(scenario.to_json(), sort_keys=True, default=str))


def _vacuous(options: CheckOptions) -> str | None:
    """Why these options would certify without looking, or None."""
    if options.paths < 1:
        return (
            f"--paths {options.paths} (or `paths:` in the policy) runs no outcome combination, "
            "not even the all-success one: nothing would be certified; give at least 1"
        )
    if options.examples < 0:
        return f"--examples {options.examples}: give 0 or more"
    return None


def undeclared(
    example: Counterexample,
    declaration: Declaration,
    accept: frozenset[Deviation] | None = None,
) -> tuple[str, ...]:
    """What to add to the script's header if it may differ the way the workflow's run allowed,
    for each class the run exercised that the script does not declare (and to the policy,
    for those it does not accept)."""
    fired = sorted(example.composite.fired() - declaration.classes)
    if not fired:
        return ()
    why = "the workflow exercised " + ", ".join(fired) + ", which the script does not declare"
    return tuple(_declare_advice(declaration, why, fired, accept))


def _declare_advice(
    declaration: Declaration,
    why: str,
    classes: Sequence[Deviation],
    accept: frozenset[Deviation] | None = None,
) -> list[str]:
    """``why``, then the header lines that declare ``classes`` and where they go, and the
    classes the policy (``accept``) must also name for the tool to pass."""
    lines = [why]
    if declaration.title_line is None:
        lines += ["if the script may differ that way, add to its header:", f"  # {TITLE}"]
    else:
        lines.append(
            "if the script may differ that way, add under its header's line "
            f"{declaration.title_line} (`Where it differs from vMCP`):"
        )
    lines.extend(f"  {header_item(class_id)}" for class_id in classes)
    refused = [str(c) for c in classes if not accepts(accept, c)]
    if refused:
        lines.append(
            f"and accept {', '.join(refused)} (the policy's `accept:`, or --accept), which the "
            "gate does not accept now"
        )
    return lines


def findings(analysis: ToolAnalysis) -> tuple[Finding, ...]:
    """Quirks that fire on the tool's ordinary successful run (every backend answers), then
    each step timeout the script drops.

    The run's backends answer what no template constrains with placeholders (a text
    :data:`~transpiler.harness.scenarios.happy.SIMULATED_TEXT`, a number 7); a finding that does not
    also fire when those are of another form or kind (:func:`free_texts`, :func:`reshapes`)
    comes from the placeholders, not from the workflow alone, and names the values under
    which it does not fire; one that does not fire with another form of the free texts is a
    ``placeholder`` (what those texts really are, no template says).
    """
    config = analysis.tool
    trace = run_composite(config, happy_scenario(analysis))
    variants = (*free_texts(), *reshapes())
    others = [
        (
            reshape.describe(),
            reshape.free,
            {_finding_key(e) for e in run_composite(config, scenario).quirks if e.notable},
        )
        for reshape, scenario in zip(variants, reshaped_scenarios(analysis, variants), strict=True)
    ]
    dropped = tuple(
        Finding(Deviation.STEP_TIMEOUT, deadline.step, "timeout", f"timeout {deadline.text()}")
        for deadline in analysis.deadlines
    )
    quirks = tuple(
        Finding(
            event.deviation,
            event.step,
            event.site,
            event.detail,
            unless=next(
                (what for what, _, fired in others if _finding_key(event) not in fired), None
            ),
            placeholder=any(free and _finding_key(event) not in fired for _, free, fired in others),
        )
        for event in trace.quirks
        if event.notable
    )
    return (*quirks, *dropped)


def _finding_key(event: QuirkEvent) -> tuple[Deviation, str | None, str]:
    return event.deviation, event.step, event.site


def _engines(
    tool: LoadedTool, options: CheckOptions, script: str, modules: Mapping[str, str]
) -> tuple[str, ...]:
    """The engines asked for, plus go.starlark.net (what vMCP embeds) where the readers of the
    pair could disagree: the tool's text had to be made inert, or the script or a module holds
    a character some reader takes for a line break, an end of file or hidden layout
    (:func:`~transpiler.inert.unsafe`; go.starlark.net ends a comment at ``\\r`` and the whole
    file at NUL), or is one the map of call sites cannot read."""
    if "go" in options.engines or not go_available(needs_starlark=True):
        return options.engines
    texts = (script, *modules.values())
    if has_unsafe_text(tool.effective) or any(_unsafe_in_code(text) for text in texts):
        return (*options.engines, "go")
    if script_map(script, modules, SCRIPT_FILENAME).unread:
        return (*options.engines, "go")
    return options.engines


def _unsafe_in_code(text: str) -> bool:
    """Whether a script's text holds an unsafe character other than its own line breaks and
    tabs."""
    return any(unsafe(char) for char in text if char not in "\n\t")


def _exhaustive(
    run: _Run,
    analysis: ToolAnalysis,
    shapes: ToolShapes,
    options: CheckOptions,
    report: ToolReport,
    reads: ScriptReads,
) -> Counterexample | None:
    call = expected(analysis)
    schema = analysis.tool.parameters
    params = call.params
    chosen, total, bases = combinations(
        shapes,
        analysis.tool.name,
        params,
        options.paths,
        options.seed,
        call.answers,
        call.reshaped,
        call.keyed,
        call.compared,
        call.keyed_others,
    )
    report.paths_enumerated, report.paths_run = total, len(chosen)
    if chosen:
        # The first combination (everything succeeds, every answer accepts) once more with the
        # optional parameters left out (where a default of the workflow or the script shows),
        # with every number just below, at and past a million (where Go's text changes), and
        # with each list parameter of each other length.
        first = chosen[0].to_json()
        required = sample_params(schema, optional=False)
        others = [required]
        others += [sample_params(schema, number=n) for n in THRESHOLD_NUMBERS]
        others += [
            {**params, name: items} for name, lists in call.param_lists.items() for items in lists
        ]
        tried = [params]
        for other in others:
            if other not in tried:
                tried.append(other)
                chosen.append(scenario_from_document({**first, "params": other}))
        # Then with answers that take time (so when each call starts shows), and with data the
        # script reads or compares with that the workflow never does.
        chosen += [scenario_from_document(d) for d in timed_scenarios(first, shapes, call.answers)]
        based = [scenario.to_json() for scenario in bases]
        chosen += [
            scenario_from_document(d) for d in probe_scenarios(first, shapes, reads, schema, based)
        ]
        # Each base the enumeration ran (where a step the first combination skips may run)
        # with only the required parameters, and with answers that take time.
        for base in based:
            fewer = [{**base, "params": required}] if required != params else []
            timed = timed_scenarios(base, shapes, call.answers)
            chosen += [scenario_from_document(d) for d in (*fewer, *timed)]
    return run.compare_all(chosen)


def _random(
    run: _Run,
    tool: LoadedTool,
    shapes: ToolShapes,
    options: CheckOptions,
    emitted: EmitResult | None,
) -> Counterexample | None:
    if options.examples <= 0:
        return None
    generator = random_scenarios(shapes, tool.effective.parameters, tool.effective.name)
    rng = Random(options.seed)
    drawn = [generator.draw(rng) for _ in range(options.examples)]
    found = run.compare_all(drawn)
    if found is None:
        return None
    return _shrunk(run, generator, options) or found


def _shrunk(run: _Run, generator: Gen, options: CheckOptions) -> Counterexample | None:
    """A minimal counterexample from hypothesis's search and shrinking, None if its search
    finds none (hypothesis is imported here: a check that finds no difference never needs it)."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    budget = settings(
        max_examples=options.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        minimal = find(
            generator.strategy(),
            lambda s: run.compare(s, keep=False) is not None,
            settings=budget,
            random=Random(options.seed),
        )
    except NoSuchExample:
        return None
    return run.compare(minimal, keep=False)


def pair_digest(
    tool: LoadedTool,
    script: str,
    modules: Mapping[str, str],
    options: CheckOptions,
    entry: ScriptedEntry | None = None,
) -> str:
    """SHA-256 of everything a check's verdict depends on: the composite tool as vMCP runs it,
    the script and its modules and scripted entry, the options, the interpreters and this
    transpiler's own code. ``check --since`` re-checks a pair only when it changed."""
    parts = {
        "composite": repr(tool.effective),
        "script": script,
        "entry": repr(entry),
        "modules": dict(sorted(modules.items())),
        "options": repr(replace(options, accept=None)),
        "interpreters": engine_versions(_engines(tool, options, script, modules)),
        "transpiler": code_digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def certificate(
    tool: LoadedTool,
    script: str,
    modules: Mapping[str, str],
    report: ToolReport,
    digest: str,
) -> dict[str, Any]:
    """The record ``check`` keeps per tool (see docs/equivalence.md)."""
    source = Path(tool.origin.file)
    yaml_hash = hashlib.sha256(source.read_bytes()).hexdigest() if source.is_file() else None
    notes = report.emitted.notes if report.emitted is not None else ()
    fields = {
        "file": tool.origin.file,
        "tool": tool.effective.name,
        "yaml_sha256": yaml_hash,
        "script_sha256": hashlib.sha256(script.encode()).hexdigest(),
        "modules_sha256": {
            name: hashlib.sha256(modules[name].encode()).hexdigest() for name in sorted(modules)
        },
        "pair_sha256": digest,
        "script_source": report.script_source,
        "style": report.style,
        "engines": list(report.engines),
        "interpreters": engine_versions(report.engines),
        "seed": report.seed,
        "paths": {
            "enumerated": report.paths_enumerated,
            "run": report.paths_run,
            "distinct": report.distinct_paths,
        },
        "coverage": report.coverage,
        "scenarios": report.scenarios,
        "verdict": str(report.verdict),
        "declared": list(report.declared),
        "observed": {
            **{d.deviation: {"site": d.site} for d in reversed(report.listing)},
            **{
                deviation: {"engine": witness.engine, "scenario_size": witness.size}
                for deviation, witness in report.witnesses.items()
            },
        },
        "listing": [d.to_json() for d in report.listing],
        "findings": [finding.render() for finding in report.findings],
        "notes": list(report.notes),
        "domain": [n.text for n in notes if n.kind == "domain"],
        "deviations_requested": [n.name for n in notes if n.kind == "deviation" and n.requested],
    }
    return {**fields, "seal": seal_of(fields)}


def seal_of(certificate: Mapping[str, Any]) -> str:
    """SHA-256 of a certificate's fields but its seal: binds its verdict to its pair's digest
    (``check --since`` carries no entry whose seal does not match; a checksum, not a
    signature)."""
    fields = {key: value for key, value in certificate.items() if key != "seal"}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
