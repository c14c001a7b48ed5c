"""Readings: the deviation variants a script takes, one per site, the same in every scenario.

A *reading* chooses, for each site where a declared class with variants
(:mod:`transpiler.deviations`) applied, vMCP's behaviour (``vmcp``) or one of
the class's variants; the model run under it (:mod:`transpiler.composite.variants`)
is what a script with those choices does. A script passes a scenario when its
trace matches the model's run under a reading that agrees with every scenario
before it: the gate holds every reading still possible (the first is the one
reported) and narrows them scenario by scenario, and at the end fixes one
reading that every scenario matches (:meth:`Readings.one_choice_per_site`).
Nothing else is excused. A class of one engine's (``rust-engine``) is a switch
on that engine alone: matching a run on another engine, the model takes vMCP's
behaviour at its sites whatever the reading holds there.

Readings are searched from each held one: the run under it, then every reading
one change away (another choice, vMCP's included, at one site the run reached
that the held reading leaves free, or one choice at every such site of a class
at once), nearest the script's trace first (:func:`relation.distance`), going
on from the nearest while it comes nearer. When none matches, :class:`Refusal`
says what was tried: the nearest reading, and every choice tried at each site
from it. Each search is bounded (:data:`RUNS_PER_READING` runs,
:data:`READINGS_KEPT` readings kept, :data:`SCHEDULE_LIMIT` schedules); a
refusal made where a bound was met names it, and decides nothing (``incomplete``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from transpiler.composite import run_composite, run_composite_schedules
from transpiler.composite.variants import SiteKey, Variants
from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import Deviation
from transpiler.harness.judging.relation import differences, distance, matches
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace

#: vMCP's own behaviour at a site, as a reading records it.
VMCP_CHOICE: Final = "vmcp"
RUNS_PER_READING: Final = 192
READINGS_KEPT: Final = 16
SCHEDULED_READINGS: Final = 4
SCHEDULE_LIMIT: Final = 32
#: Model runs remembered (per scenario and switches), for the searches of one scenario.
MEMO_KEPT: Final = 256
#: Moves to a reading no nearer the script's trace, but whose run differs, in one search.
LEVEL_MOVES: Final = 3
#: Rounds of matching again the scenarios that took another choice at a site once one choice
#: per site is fixed (:meth:`Readings.one_choice_per_site`).
SETTLE_ROUNDS: Final = 3

Reading = dict[SiteKey, str]


def variants_of(reading: Reading, engine: str) -> Variants:
    """The model's switches for ``reading`` on ``engine`` (vMCP's choices are no switch, nor is
    a class of another engine's)."""
    chosen = {key: choice for key, choice in reading.items() if choice != VMCP_CHOICE}
    return Variants(chosen).on(engine)


@dataclass(frozen=True)
class Matched:
    """A scenario the script passed: what to match it again with, and the choice its match
    took at every site its run reached (vMCP's where it took no variant)."""

    scenario: Scenario
    vmcp: Trace
    branched: bool
    script: Trace
    engine: str
    taken: Reading


@dataclass(frozen=True)
class Found:
    """A match: the reading to hold from now on (``reading``: what this scenario settled), the
    reading the model ran under (``used``: every variant it took, settled or not), the run the
    script's trace is, and the sites the run reached that neither fixes (``open_sites``)."""

    reading: Reading
    used: Reading
    trace: Trace
    open_sites: tuple[SiteKey, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """Why no reading matched a scenario: the nearest reading the search found (``reading``)
    and the model's run under it (``trace``), every choice tried at each site from there
    (``tried``), the choices earlier scenarios fixed (``fixed``), and the bound the search
    met (``bound``, None when it met none: then every choice one change away was tried)."""

    reading: Reading
    trace: Trace
    tried: Mapping[SiteKey, tuple[str, ...]]
    fixed: Reading
    bound: str | None = None
    reached: bool = False
    #: Where no site was free: each fixed site whose other choice alone matches this
    #: scenario, with the choice fixed there and the one this scenario needs.
    conflicts: tuple[tuple[SiteKey, str, str], ...] = ()

    def lines(self) -> list[str]:
        """What the search tried, for a person: the sites and choices, and the bound met."""
        if not self.reached:
            lines = [
                "no site of a declared class with variants was reached: only vMCP's behaviour "
                "is allowed here"
            ]
        elif not self.tried:
            lines = ["every site the run reached has the choice earlier scenarios fixed"]
            lines += [
                f"{site[0]} at {_where(site)}: earlier scenarios need {fixed}, this one "
                f"{needed}; a script takes one choice per site in every scenario"
                for site, fixed, needed in self.conflicts
            ]
            if not self.conflicts:
                lines.append("no other choice at any one of those sites explains it either")
        else:
            nearest = describe(self.reading) or ["vMCP's behaviour at every site"]
            lines = [
                "no reading explains it; the nearest tried takes: " + "; ".join(nearest),
                "tried from there, at each site its run reached: "
                + "; ".join(
                    f"{_where(site)} ({', '.join(choices)})" for site, choices in self.tried.items()
                ),
            ]
        fixed = describe(self.fixed)
        if fixed:
            lines.append("earlier scenarios fixed: " + "; ".join(fixed))
        if self.bound is not None:
            lines.append(f"the search met its bound ({self.bound}): nothing is decided here")
        return lines


@dataclass
class _Search:
    """One search of one scenario from a held reading (``start``): the reading it last went on
    from and the model's run under it (the nearest it found, ``far`` from the script's trace),
    every choice tried at each free site from there, and the bound it met, if any."""

    start: Reading
    far: int = 0
    reading: Reading = field(default_factory=dict)
    trace: Trace | None = None
    tried: dict[SiteKey, list[str]] = field(default_factory=dict)
    bound: str | None = None
    reached: bool = False

    def going_on(
        self, reading: Reading, trace: Trace, far: int, free: list[SiteKey], reached: bool
    ) -> None:
        """A round of changes from ``reading`` begins: the choices it takes at ``free`` sites
        are the first tried there (``reached``: whether its run reached any site)."""
        self.reading, self.trace, self.far, self.reached = reading, trace, far, reached
        self.tried = {site: [reading.get(site, VMCP_CHOICE)] for site in free}

    def tried_at(self, site: SiteKey, choice: str) -> None:
        """Note that ``choice`` was tried at ``site``."""
        choices = self.tried.setdefault(site, [])
        if choice not in choices:
            choices.append(choice)


def describe(reading: Reading) -> list[str]:
    """A reading's variants, one line each (vMCP's choices left out)."""
    return [
        f"{site[0]} at {_where(site)}: {choice}"
        for site, choice in reading.items()
        if choice != VMCP_CHOICE
    ]


def _where(site: SiteKey) -> str:
    _, step, place = site
    return f"step {step}, {place}" if step else place


class Readings:
    """The readings still possible for one script of one tool."""

    def __init__(self, config: CompositeToolConfig, switchable: frozenset[Deviation]) -> None:
        self.config = config
        self.switchable = switchable
        self.held: list[Reading] = [{}]
        self.matched: list[Matched] = []
        #: The variants the last scenario passed took, tried first on the next.
        self.hint: Reading = {}
        #: Why the last :meth:`match` that found no reading found none.
        self.refusal: Refusal | None = None
        #: Whether readings still possible were let go (more than :data:`READINGS_KEPT`).
        self.dropped = False
        self._memo: dict[tuple[int, frozenset[tuple[SiteKey, str]]], tuple[Scenario, Trace]] = {}

    @property
    def chosen(self) -> Reading:
        """The reading reported: the first still possible."""
        return self.held[0]

    def run_chosen(self, scenario: Scenario, engine: str) -> Trace:
        """The model's run of ``scenario`` under the reading reported, on ``engine``."""
        return self._run(scenario, self.chosen, engine)

    def run_under(self, scenario: Scenario, reading: Reading, engine: str) -> Trace:
        """The model's run of ``scenario`` under ``reading``, on ``engine``."""
        return self._run(scenario, reading, engine)

    def describe(self) -> list[str]:
        """The reported reading's variants, one line each (vMCP's choices left out)."""
        return describe(self.chosen)

    def match(
        self,
        scenario: Scenario,
        vmcp: Trace,
        branched: bool,
        script: Trace,
        engine: str,
        keep: bool = True,
    ) -> Found | None:
        """The best reading under which the model's run of ``scenario`` matches ``script``
        (``vmcp``: the run under no variant; ``branched``: whether it met a scheduling choice),
        or None; with ``keep``, only the readings that matched are held from now on."""
        self.refusal = None
        found: list[Found] = []
        unverified: list[Reading] = []
        searches: list[_Search] = []
        for index, reading in enumerate(self.held):
            search = _Search(start=reading)
            searches.append(search)
            first = vmcp if not reading else None
            runs = self._runs(scenario, reading, first, script, search, engine)
            best = next(
                (
                    (tried, current, trace, open_sites)
                    for tried, (current, trace, open_sites) in enumerate(runs)
                    if matches(trace, script)
                ),
                None,
            )
            if best is not None:
                tried, current, trace, open_sites = best
                settled = self._settled(
                    scenario, reading, current, open_sites, script, engine, trace.stopped_at
                )
                left = tuple(site for site in open_sites if site not in settled)
                found.append(Found(settled, current, trace, left))
                if tried == 0:
                    # The held reading as it stands: the ones after it stay held, unverified
                    # here (:meth:`one_choice_per_site` checks the reading fixed at the end).
                    unverified = self.held[index + 1 :]
                    break
            if len(found) >= READINGS_KEPT:
                break
        if not found and branched:
            found = self._scheduled(scenario, script, engine, searches)
        if not found:
            self.refusal = self._refusal(searches, scenario, script, engine)
            return None
        nearest = min(found, key=lambda f: _deviations(f.used))
        if keep:
            held = _unique([f.reading for f in found] + unverified)
            if len(held) > READINGS_KEPT:
                self.dropped = True
            self.held = held[:READINGS_KEPT]
            taken = {
                **dict.fromkeys(nearest.open_sites, VMCP_CHOICE),
                **nearest.reading,
                **nearest.used,
            }
            self.matched.append(Matched(scenario, vmcp, branched, script, engine, taken))
            self.hint = {**self.hint, **nearest.used}
        return nearest

    def one_choice_per_site(self) -> list[Matched]:
        """Fix one reading for every scenario passed: each choice held; at every other site
        where a passed scenario took a variant, that variant, or, where scenarios took
        different choices, the one under which most of them still match (the first taken on
        a tie); vMCP's behaviour elsewhere, where a search may still add a variant. Returns
        the scenarios whose run under the fixed reading does not match: each must match again
        under it (:meth:`match` from the fixed reading alone)."""
        fixed = dict(self.chosen)
        taken: dict[SiteKey, list[str]] = {}
        for record in self.matched:
            for site, choice in record.taken.items():
                seen = taken.setdefault(site, [])
                if choice not in seen:
                    seen.append(choice)
        for site, candidates in taken.items():
            if site in fixed or candidates == [VMCP_CHOICE]:
                continue  # vMCP's behaviour wherever no choice is fixed; a search may add one
            fixed[site] = (
                candidates[0] if len(candidates) == 1 else self._most_approved(site, candidates)
            )
        self.held = [fixed]
        again: list[Matched] = []
        kept: list[Matched] = []
        for record in self.matched:
            agrees = all(
                fixed.get(site, VMCP_CHOICE) == choice for site, choice in record.taken.items()
            )
            if agrees or self._matches(record.scenario, fixed, record.script, record.engine):
                kept.append(record)
            else:
                again.append(record)
        self.matched = kept
        return again

    def _most_approved(self, site: SiteKey, candidates: list[str]) -> str:
        """Of the choices scenarios took at ``site``, the one most of the scenarios that
        reached it still match under (each with its own other choices)."""
        approvals: Counter[str] = Counter()
        for record in self.matched:
            mine = record.taken.get(site)
            if mine is None:
                continue
            for choice in candidates:
                reading = {**record.taken, site: choice}
                if choice == mine or self._matches(
                    record.scenario, reading, record.script, record.engine
                ):
                    approvals[choice] += 1
        return max(candidates, key=lambda choice: approvals[choice])

    def _runs(
        self,
        scenario: Scenario,
        reading: Reading,
        first: Trace | None,
        script: Trace,
        search: _Search,
        engine: str,
    ) -> Iterator[tuple[Reading, Trace, list[SiteKey]]]:
        """The model's run under ``reading`` with the variants the last scenario passed took
        at the sites this run reaches (a script tends to do again what it did), then under
        ``reading`` alone, then under each reading one change away from it (:func:`_changes`:
        at the sites its run reached that ``reading`` leaves free, vMCP's choice among them),
        nearest the script first, going on from the nearest while it comes nearer; each with
        the sites it reached and leaves open. ``search`` keeps the nearest run and what was
        tried from it."""
        if first is not None:
            self._memo[(id(scenario), frozenset())] = (scenario, first)
        hints = {site: c for site, c in self.hint.items() if site not in reading}
        hinted = self._run(scenario, {**reading, **hints}, engine) if hints else None
        kept = {}
        if hinted is not None:
            reached = set(self._sites(hinted, engine))
            kept = {site: c for site, c in hints.items() if site in reached}
            if kept:
                with_hints = {**reading, **kept}
                yield with_hints, hinted, self._open(hinted, with_hints, engine)
        # A site the run never reached changes nothing in it: with no hint reached, the
        # hinted run is the run under ``reading``.
        current = reading
        trace = (
            hinted if hinted is not None and not kept else self._run(scenario, current, engine)
        )
        runs = 1
        yield current, trace, self._open(trace, current, engine)
        far = distance(trace, script)
        visited = {_key(current)}
        level_moves = 0
        while True:
            sites = self._sites(trace, engine)
            free = [site for site in sites if site not in reading]
            search.going_on(current, trace, far, free, bool(sites))
            tried: list[tuple[int, int, Reading, Trace]] = []
            for other in _changes(current, free):
                if _key(other) not in visited and runs >= RUNS_PER_READING:
                    search.bound = (
                        f"{RUNS_PER_READING} runs of the model from one reading "
                        "(readings.RUNS_PER_READING)"
                    )
                    break
                for site in free:
                    if other.get(site, VMCP_CHOICE) != current.get(site, VMCP_CHOICE):
                        search.tried_at(site, other.get(site, VMCP_CHOICE))
                if _key(other) in visited:
                    continue  # run before, from another reading of this search
                visited.add(_key(other))
                other_trace = self._run(scenario, other, engine)
                runs += 1
                tried.append((distance(other_trace, script), len(tried), other, other_trace))
            tried.sort(key=lambda entry: entry[:2])
            for _, _, other, other_trace in tried:
                yield other, other_trace, self._open(other_trace, other, engine)
            if search.bound is not None:
                return
            # Go on from the nearest: nearer, or as near but a different run (a failure that
            # moved on to another site), a few times.
            moves = [entry for entry in tried if entry[0] < far]
            if not moves and level_moves < LEVEL_MOVES:
                moves = [e for e in tried if e[0] == far and differences(e[3], trace)]
                level_moves += 1
            if not moves:
                return
            far, _, current, trace = moves[0]

    def _open(self, trace: Trace, reading: Reading, engine: str) -> list[SiteKey]:
        return [site for site in self._sites(trace, engine) if site not in reading]

    def _settled(
        self,
        scenario: Scenario,
        held: Reading,
        found: Reading,
        open_sites: list[SiteKey],
        script: Trace,
        engine: str,
        stopped_at: SiteKey | None,
    ) -> Reading:
        """``held`` with each choice ``found`` made (vMCP's at the sites its run reached and
        left open) fixed where this scenario rules out every other choice at that site; a site
        where another choice would match the script too stays open, and so does the site whose
        variant stopped the run (``stopped_at``: another site's stop may be the script's).
        Another choice may change what the sites ``found`` leaves to vMCP do (a failure that
        moved elsewhere): it matches when one other choice at one of them makes it match."""
        chosen = {**found, **dict.fromkeys(open_sites, VMCP_CHOICE)}
        settled = dict(held)
        for site, choice in chosen.items():
            if site in held or site == stopped_at:
                continue  # which site a failure stops at is not for one scenario to settle
            others = [VMCP_CHOICE, *(v.name for v in site[0].about.variants)]
            trial = ({**chosen, site: other} for other in others if other != choice)
            left = {*found, site}
            if not any(self._matches_near(scenario, r, left, script, engine) for r in trial):
                settled[site] = choice
        return settled

    def _matches(self, scenario: Scenario, reading: Reading, script: Trace, engine: str) -> bool:
        return matches(self._run(scenario, reading, engine), script)

    def _matches_near(
        self,
        scenario: Scenario,
        reading: Reading,
        decided: set[SiteKey],
        script: Trace,
        engine: str,
    ) -> bool:
        """Whether the run under ``reading``, or under one choice at every site of a class it
        reaches that is not ``decided``, matches ``script``."""
        trace = self._run(scenario, reading, engine)
        if matches(trace, script):
            return True
        free = [site for site in self._sites(trace, engine) if site not in decided]
        nearby = (
            _with(reading, dict.fromkeys(sites, choice))
            for class_id, sites in _by_class(free).items()
            for choice in _choices(class_id)
        )
        return any(self._matches(scenario, near, script, engine) for near in nearby)

    def _run(self, scenario: Scenario, reading: Reading, engine: str) -> Trace:
        """The model's run under ``reading`` on ``engine`` (once per scenario and switches)."""
        variants = variants_of(reading, engine)
        key = (id(scenario), frozenset(variants.chosen.items()))
        held = self._memo.get(key)
        if held is not None and held[0] is scenario:
            return held[1]
        trace = run_composite(self.config, scenario, variants=variants)
        if len(self._memo) >= MEMO_KEPT:
            self._memo.clear()
        self._memo[key] = (scenario, trace)  # the scenario held, so its id is not reused
        return trace

    def _sites(self, trace: Trace, engine: str) -> list[SiteKey]:
        """The sites of classes switchable on ``engine`` that ``trace`` reached, in the order
        it did."""
        return list(
            dict.fromkeys(
                (event.deviation, event.step, event.site)
                for event in trace.quirks
                if event.deviation in self.switchable and engine in event.deviation.about.engines
            )
        )

    def _scheduled(
        self, scenario: Scenario, script: Trace, engine: str, searches: list[_Search]
    ) -> list[Found]:
        """Matches under vMCP's other schedules, for the first held readings (a bound met
        is noted on the first search)."""
        found: list[Found] = []
        if len(self.held) > SCHEDULED_READINGS and searches:
            searches[0].bound = searches[0].bound or (
                f"vMCP's schedules tried under the first {SCHEDULED_READINGS} readings held "
                "(readings.SCHEDULED_READINGS)"
            )
        for reading in self.held[:SCHEDULED_READINGS]:
            explored = run_composite_schedules(
                self.config, scenario, "all", SCHEDULE_LIMIT, variants=variants_of(reading, engine)
            )
            if not explored.exhaustive and searches:
                searches[0].bound = searches[0].bound or (
                    f"{SCHEDULE_LIMIT} of vMCP's schedules (readings.SCHEDULE_LIMIT)"
                )
            for trace in explored:
                if matches(trace, script):
                    left = tuple(self._open(trace, reading, engine))
                    found.append(Found(reading, reading, trace, left))
        return found

    def _refusal(
        self, searches: list[_Search], scenario: Scenario, script: Trace, engine: str
    ) -> Refusal:
        """What the searches of a scenario no reading matched tried, from the nearest run;
        where no site was free, which fixed choices conflict with it (:meth:`_conflicts`)."""
        nearest = min(
            (search for search in searches if search.trace is not None),
            key=lambda search: search.far,
        )
        assert nearest.trace is not None
        bound = next((search.bound for search in searches if search.bound is not None), None)
        if bound is None and self.dropped:
            bound = f"{READINGS_KEPT} readings held at once (readings.READINGS_KEPT)"
        tried = {site: tuple(choices) for site, choices in nearest.tried.items()}
        conflicts = () if tried else self._conflicts(nearest.start, scenario, script, engine)
        return Refusal(
            nearest.reading,
            nearest.trace,
            tried,
            nearest.start,
            bound,
            nearest.reached,
            conflicts,
        )

    def _conflicts(
        self, fixed: Reading, scenario: Scenario, script: Trace, engine: str
    ) -> tuple[tuple[SiteKey, str, str], ...]:
        """Each site of ``fixed`` where another choice, with every other fixed choice kept,
        makes the model's run ``script``: the site, the fixed choice and that one."""
        found = []
        for site, choice in fixed.items():
            needed = next(
                (
                    other
                    for other in _choices(site[0])
                    if other != choice
                    and self._matches(scenario, _with(fixed, {site: other}), script, engine)
                ),
                None,
            )
            if needed is not None:
                found.append((site, choice, needed))
        return tuple(found)


def _key(reading: Reading) -> frozenset[tuple[SiteKey, str]]:
    """What tells the model's runs under two readings apart: their variants."""
    return frozenset((site, choice) for site, choice in reading.items() if choice != VMCP_CHOICE)


def _choices(class_id: Deviation) -> list[str]:
    """The choices at a site of ``class_id``: vMCP's, then each variant."""
    return [VMCP_CHOICE, *(variant.name for variant in class_id.about.variants)]


def _by_class(sites: list[SiteKey]) -> dict[Deviation, list[SiteKey]]:
    """``sites`` by their class, in the order each class first comes."""
    grouped: dict[Deviation, list[SiteKey]] = {}
    for site in sites:
        grouped.setdefault(site[0], []).append(site)
    return grouped


def _changes(reading: Reading, free: list[SiteKey]) -> list[Reading]:
    """The readings one change away from ``reading`` at the ``free`` sites: one choice at every
    free site of a class at once (a script tends to treat alike what is alike), then each other
    choice at one free site; vMCP's is a choice like the variants, so a variant taken too
    eagerly (at every site of its class) can be taken back site by site."""
    uniform = []
    for class_id, sites in _by_class(free).items():
        if len(sites) > 1:
            uniform += [_with(reading, dict.fromkeys(sites, c)) for c in _choices(class_id)]
    single = [
        _with(reading, {site: choice})
        for site in free
        for choice in _choices(site[0])
        if choice != reading.get(site, VMCP_CHOICE)
    ]
    return [other for other in uniform if other != reading] + single


def _with(reading: Reading, choices: Mapping[SiteKey, str]) -> Reading:
    """``reading`` with ``choices`` made (vMCP's choice made by leaving the site out)."""
    changed = {**reading, **choices}
    return {
        site: choice
        for site, choice in changed.items()
        if not (site in choices and choice == VMCP_CHOICE)
    }


def _deviations(reading: Reading) -> int:
    return sum(choice != VMCP_CHOICE for choice in reading.values())


def _unique(readings: list[Reading]) -> list[Reading]:
    seen: set[frozenset[tuple[SiteKey, str]]] = set()
    kept: list[Reading] = []
    for reading in readings:
        key = frozenset(reading.items())
        if key not in seen:
            seen.add(key)
            kept.append(reading)
    return kept
