"""The reference model of vMCP's composite-tool workflow engine.

:func:`run_composite` runs one composite tool against a scenario's simulated
backends and returns the trace (spec/scenario.md); :func:`run_composite_schedules`
runs it under a schedule: ``canonical``, ``random:SEED``, or ``all`` (every
distinct behaviour Go's nondeterminism allows, up to a limit).

Where Go leaves an outcome to chance, the model asks the chooser:

======================== ================================================
chooser label            Go source of nondeterminism
======================== ================================================
``ready-thread``         goroutine start/interleaving inside a DAG level
                         or a forEach loop (R1, R2, R4), and which
                         failure happens first (R3)
``select-slot-or-cancel`` Go ``select`` between a free slot and a
                         cancelled context (S53, S132)
``last-completed-step``  steps of one level ending at the same instant,
                         for the output without config (S150, R5)
``map-order:arguments``  which failing argument key surfaces (S80, R8)
``map-order:output``     which failing output property surfaces (S151, R8)
======================== ================================================

Retry jitter (R7) is not a choice: the canonical run uses the centre of
Go's range, ``random:SEED`` samples it reproducibly.

Where the model is narrower than Go (it never shows a behaviour Go cannot
have, but ``all`` misses these):

- work that takes no virtual time is atomic: one step's template strings see
  one snapshot (R2), and a step whose calls take no time runs to its end
  before a sibling starts (the chooser still picks who starts first);
- a step waiting for a DAG slot when its level fails never slips through to
  run (Go's scheduler rarely lets it, S53);
- work ending exactly at a deadline always loses to the deadline (R7);
- a call cut by its context fails with the bare context error; vMCP's
  client wraps it in transport text that varies (R9).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from transpiler.composite.engine import execute
from transpiler.composite.variants import VMCP, Variants
from transpiler.config.model import CompositeToolConfig
from transpiler.sim.backoff import CENTRE, Jitter, SeededJitter
from transpiler.sim.scenario import Scenario
from transpiler.sim.schedule import (
    CANONICAL,
    Chooser,
    Exploration,
    RandomChooser,
    ScriptedChooser,
    explore,
    parse_schedule,
)
from transpiler.sim.trace import Trace

__all__ = ["Explored", "run_composite", "run_composite_schedules"]


class Explored(list[Trace]):
    """Distinct traces of a schedule run; ``exhaustive`` tells whether every schedule was tried."""

    def __init__(self, traces: list[Trace], schedules: int, exhaustive: bool) -> None:
        super().__init__(traces)
        self.schedules = schedules
        self.exhaustive = exhaustive


def run_composite(
    tool: CompositeToolConfig,
    scenario: Scenario,
    *,
    chooser: Chooser = CANONICAL,
    jitter: Jitter = CENTRE,
    variants: Variants = VMCP,
    served: Sequence[CompositeToolConfig] = (),
) -> Trace:
    """Run ``tool`` once against ``scenario`` under one schedule (and, with ``variants``, as a
    script taking those deviations would run); ``served`` are the other composite tools of
    the same vMCP (the advertise/call gate reads their names)."""
    return execute(tool, scenario, chooser, jitter, variants, served)


def run_composite_schedules(
    tool: CompositeToolConfig,
    scenario: Scenario,
    schedule: str,
    limit: int = 64,
    canonical: tuple[Trace, ScriptedChooser] | None = None,
    variants: Variants = VMCP,
    served: Sequence[CompositeToolConfig] = (),
) -> Explored:
    """Traces under ``schedule``: one for canonical/random, every distinct one for all.

    ``canonical`` is a run already made under ``ScriptedChooser()`` and that
    chooser: ``all`` starts from it instead of running it again.
    """
    kind, seed = parse_schedule(schedule)
    if kind == "canonical":
        trace = run_composite(tool, scenario, served=served)
        return Explored([_named(trace, "canonical")], 1, True)
    if kind == "random":
        trace = run_composite(
            tool, scenario, chooser=RandomChooser(seed), jitter=SeededJitter(seed), served=served
        )
        return Explored([_named(trace, schedule)], 1, True)
    distinct: dict[str, Trace] = {}
    summary = Exploration(0, False)
    first = None if canonical is None else (replace(canonical[0]), canonical[1])
    runs = explore(
        lambda chooser: run_composite(
            tool, scenario, chooser=chooser, variants=variants, served=served
        ),
        limit,
        first,
    )
    for item in runs:
        if isinstance(item, Exploration):
            summary = item
        else:
            distinct.setdefault(json.dumps(item.to_json(), sort_keys=True), item)
    traces = [_named(trace, f"all:{index}") for index, trace in enumerate(distinct.values())]
    return Explored(traces, summary.schedules, summary.exhaustive)


def _named(trace: Trace, schedule: str) -> Trace:
    trace.schedule = schedule
    return trace
