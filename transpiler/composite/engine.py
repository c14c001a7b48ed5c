"""One ``tools/call`` of a composite tool (``ExecuteWorkflow`` + ``executeComposite``, S110-S112).

The DAG runs under the workflow deadline (``timeout`` or 30m). When it fails
and that deadline has passed, the workflow *timed out* (error
``workflow timed out``); any other DAG error is a failure. Output
construction runs after a successful DAG, outside the deadline, with
``.workflow`` showing ``completed``, the number of completed steps and the
elapsed milliseconds.

``.workflow.id`` is vMCP's random UUIDv4; here it is derived from the tool
name and the scenario (SHA-256 of both, shaped as a version-4 UUID), so the
same scenario always gets the same id. ``.workflow.start_time`` is the
scenario clock's start.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from transpiler.composite.advertise import (
    BackendCatalog,
    Hidden,
    Verdict,
    gate,
    not_found_error,
)
from transpiler.composite.client_result import client_view, error_result
from transpiler.composite.dag import CycleError, build_levels, execute_dag
from transpiler.composite.errors import GoError
from transpiler.composite.expand import Expander
from transpiler.composite.gocontext import GoContext
from transpiler.composite.output import construct_output, last_completed_step
from transpiler.composite.params import apply_parameter_defaults
from transpiler.composite.quirks import Site
from transpiler.composite.session import Recorder, Session, ToolView
from transpiler.composite.state import WorkflowMetadata, WorkflowState
from transpiler.composite.variants import VMCP, ScriptStopped, Variants
from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import Deviation
from transpiler.golang.values import GoValue
from transpiler.sim.backends import SimulatedBackends
from transpiler.sim.backoff import Jitter
from transpiler.sim.kernel import Kernel, Operation
from transpiler.sim.scenario import Scenario
from transpiler.sim.schedule import Chooser
from transpiler.sim.trace import StepRecord, Trace

DEFAULT_WORKFLOW_TIMEOUT_NS = 30 * 60 * 1_000_000_000
WORKFLOW_TIMED_OUT = GoError("workflow timed out")


@dataclass
class _Ending:
    """How the workflow ended: its output or its error."""

    output: GoValue = None
    error: GoError | None = None


def workflow_id(tool: CompositeToolConfig, scenario: Scenario) -> str:
    """A UUIDv4-shaped id that depends only on the tool name and the scenario."""
    global _LAST_ID
    held = _LAST_ID
    if held is not None and held[0] is scenario and held[1] == tool.name:
        return held[2]
    made = _workflow_id(tool.name, scenario)
    _LAST_ID = (scenario, tool.name, made)  # a scenario runs many times (every schedule)
    return made


_LAST_ID: tuple[Scenario, str, str] | None = None


def _workflow_id(name: str, scenario: Scenario) -> str:
    document = json.dumps(
        {"tool": name, "scenario": scenario.to_json()}, skipkeys=True, default=str
    )
    raw = bytearray(hashlib.sha256(document.encode("utf-8", "surrogateescape")).digest()[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def execute(
    tool: CompositeToolConfig,
    scenario: Scenario,
    chooser: Chooser,
    jitter: Jitter,
    variants: Variants = VMCP,
    served: Sequence[CompositeToolConfig] = (),
) -> Trace:
    """Run the tool once against the scenario's backends; the trace of what happened (under
    ``variants``: as a script with those deviations would run, :mod:`.variants`).

    ``served`` are the other composite tools vMCP serves alongside (their names take part
    in the name-collision rule). A tool the advertise/call gate hides is answered
    ``not found`` and runs nothing.
    """
    kernel = Kernel(chooser)
    backends = SimulatedBackends(scenario)
    tools = ToolView(backends, sorted(scenario.backends))
    if isinstance(_verdict(tool, served, tools, scenario), Hidden):
        return _not_found_trace(tool)
    params = apply_parameter_defaults(tool.parameters, scenario.params)
    start = scenario.clock_start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    state = WorkflowState(params, WorkflowMetadata(workflow_id(tool, scenario), start))
    recorder = Recorder()
    session = Session(
        kernel,
        state,
        Expander(state, chooser, recorder.quirks, variants),
        tools,
        recorder,
        jitter,
    )
    ending = _Ending()
    main = kernel.spawn(_workflow(session, tool, ending), (-1,), "workflow")
    kernel.run()
    if kernel.halted is not None:  # a variant stopped the script: it fails, in its own words
        ending.output, ending.error = None, GoError(str(kernel.halted))
        trace = _trace(session, tool, ending, backends.incomplete, any_error_text=True)
        if isinstance(kernel.halted, ScriptStopped):
            trace.stopped_at = kernel.halted.key
        return trace
    if main.error is not None:
        raise main.error
    return _trace(session, tool, ending, backends.incomplete)


def advertise_verdict(
    tool: CompositeToolConfig, scenario: Scenario, served: Sequence[CompositeToolConfig] = ()
) -> Verdict:
    """What the advertise/call gate makes of ``tool`` in the scenario's session: listed with
    its annotations, or hidden and why (``served``: the other composite tools)."""
    tools = ToolView(SimulatedBackends(scenario), sorted(scenario.backends))
    return _verdict(tool, served, tools, scenario)


def _verdict(
    tool: CompositeToolConfig,
    served: Sequence[CompositeToolConfig],
    tools: ToolView,
    scenario: Scenario,
) -> Verdict:
    catalog = BackendCatalog(
        tools.routing,
        {name: scenario.backends[name].annotations for name in tools.routing.names},
    )
    others = [other for other in served if other.name != tool.name]
    return gate([tool, *others], catalog)[tool.name]


def _not_found_trace(tool: CompositeToolConfig) -> Trace:
    """The trace of a call vMCP answers ``not found``: no workflow runs, no call is made."""
    text = not_found_error(tool.name)
    return Trace(
        form="composite",
        outcome="error",
        client_result=error_result(text),
        output=None,
        error=text,
        steps={},
        levels=[],
    )


def _workflow(
    session: Session, tool: CompositeToolConfig, ending: _Ending
) -> Generator[Operation, Any, None]:
    request = GoContext(session.kernel.context())
    timeout = tool.timeout if tool.timeout > 0 else DEFAULT_WORKFLOW_TIMEOUT_NS
    execution = request.child(session.now + timeout)
    failure = yield from execute_dag(session, execution, tool.steps)
    if failure is not None:
        timed_out = execution.err()
        ending.error = (
            WORKFLOW_TIMED_OUT if timed_out is not None and timed_out.deadline else failure
        )
        return
    session.state.finish_metadata(session.now)
    if tool.output is None:
        order = [step.id for step in tool.steps]
        winner = last_completed_step(session.state, order, session.expander.chooser)
        ending.output = None if winner is None else session.state.steps[winner].output
        final = final_step(tool)
        if winner != final:
            site = Site(None, "result")
            session.recorder.quirks.add(
                Deviation.LAST_STEP_RACE,
                site,
                f"vMCP returns the output of {winner or 'no step'}, not of {final}",
            )
            if session.expander.variants.at(Deviation.LAST_STEP_RACE, site) == "final":
                record = session.state.steps.get(final)
                ending.output = None if record is None else record.output
        return
    built = construct_output(tool.output, session.expander, request)
    if isinstance(built, GoError):
        ending.error = built.wrap("output construction failed")
    else:
        ending.output = built


def final_step(tool: CompositeToolConfig) -> str:
    """The workflow's final step: the last declared step of the last execution level."""
    levels = _levels(tool)
    last_level = set(levels[-1]) if levels else set()
    return [step.id for step in tool.steps if step.id in last_level][-1]


def _levels(tool: CompositeToolConfig) -> list[list[str]]:
    try:
        return [[step.id for step in level] for level in build_levels(tool.steps)]
    except CycleError:
        return []


def _trace(
    session: Session,
    tool: CompositeToolConfig,
    ending: _Ending,
    incomplete: bool,
    any_error_text: bool = False,
) -> Trace:
    if ending.error is not None:
        site = Site(None, "result")
        session.recorder.quirks.add(Deviation.ERROR_TEXT, site, ending.error.text)
        own_text = session.expander.variants.at(Deviation.ERROR_TEXT, site) == "own-text"
        any_error_text = any_error_text or own_text
    view = client_view(ending.output, ending.error)
    steps = {
        step_id: StepRecord(
            record.status,
            record.output,
            record.error.text if record.error is not None else None,
            record.retry_count,
        )
        for step_id, record in session.state.steps.items()
    }
    recorder = session.recorder
    return Trace(
        form="composite",
        outcome="error" if view.failure is not None else "success",
        client_result=view.result,
        output=None if view.failure is not None else ending.output,
        error=view.failure,
        calls=recorder.calls,
        elicitations=recorder.elicitations,
        logs=recorder.logs,
        steps=steps,
        levels=_levels(tool),
        incomplete=incomplete,
        virtual_duration_ns=session.now,
        quirks=recorder.quirks.events,
        any_error_text=any_error_text,
        rust_json_texts=frozenset(session.expander.rust_json_texts),
    )
