"""One scenario that happened (a served call), judged as ``check`` judges each of its own.

The script's run is given (it already happened, on real backends); the
composite model runs the scenario under the readings of the classes the
script declares (:mod:`readings`), and the result is ``check``'s: no
difference, differences each declared class explains (with its witness), or
a counterexample.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from transpiler.config.units import LoadedTool
from transpiler.declaration import declared_in
from transpiler.deviations import Deviation
from transpiler.harness.running.check import CheckOptions, Counterexample, Witness, _Run
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace


@dataclass(frozen=True)
class Judged:
    """What comparing one run with the workflow's found: a counterexample (``differs``), or
    the witnesses of the declared classes that showed (none: ``equivalent``)."""

    counterexample: Counterexample | None
    witnesses: dict[Deviation, Witness] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``equivalent``, ``equivalent-except`` or ``differs``, as ``check`` names them."""
        if self.counterexample is not None:
            return "differs"
        return "equivalent-except" if self.witnesses else "equivalent"


def judge_run(
    tool: LoadedTool,
    script: str,
    modules: Mapping[str, str],
    scenario: Scenario,
    trace: Trace,
    engine: str,
    timeout_ns: int | None = None,
) -> Judged:
    """Compare ``trace``, the script's run of ``scenario`` on ``engine``, with the workflow's."""
    declared = declared_in(script).classes
    options = CheckOptions(engines=(engine,))
    run = _Run(tool, script, modules, (engine,), declared, options, timeout_ns)
    example = run.compare(scenario, {engine: trace}) or run.settle()
    if example is not None:
        return Judged(example)
    witnessed = run.variant_witnesses()
    return Judged(None, {c: witnessed[c] for c in declared if c in witnessed})
