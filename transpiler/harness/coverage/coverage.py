"""What a tool's scenarios reached, on both sides, and the gaps that leave a pass unproven.

- **The workflow** (:class:`Coverage`): each step's statuses over every
  scenario and each elicitation step's answers. A step no scenario completed
  is a gap: the script was never compared with the workflow there.
- **The result**: each output property (``output.NAME``, a nested one
  ``output.A.B``; without an output block the whole ``result``), and whether
  some scenario compared it built by its template (no template failure there,
  no default standing in for one) in a successful run with a successful
  script's result. One none compared is a gap too: a script that returns its
  result in another shape shows only there.
- **The script** (:class:`ScriptCoverage`), against its map
  (:mod:`.scriptmap`): how many scenarios reached each call site of a host
  builtin, on each engine (the engines report each builtin's caller:
  go.starlark.net its line and column, starlark-rust its line alone, so on
  rust several calls of one builtin on one line are reached together), and
  the statements shown to have run. A reachable call site no scenario reached
  is a gap too.

**Gaps** (:func:`judge`) are named ``TOOL/STEP`` for a step, ``TOOL/output.NAME``
(or ``TOOL/result``) for a part of the result,
``TOOL/line:N`` for the script's call sites on line N, ``TOOL/MODULE:N``
for those of a module it loads, and ``TOOL/FILE:unread`` for a file of the
script the map could not read (its call sites are unknown, so none can be
shown reached); an open gap makes a passing verdict ``incomplete``, and
``--accept-gap NAME`` (or the policy's ``accept_gaps``) accepts it by that
name, which a note then records.

The interpreters expose no hook per statement, so the lines of the script a
run went through are known only where a run shows them: the line of every
frame on the stack at a builtin call and where an error arose, the
statements before those in their blocks and those enclosing them, and the
whole top level once the script's ``run`` is called. A statement none of this
shows may still have run (one after a block's last builtin call leaves no
trace): lines are recorded, not judged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from transpiler.composite.quirks import UNPARSED
from transpiler.config.model import CompositeToolConfig, OutputProperty
from transpiler.deviations import Deviation
from transpiler.harness.coverage.scriptmap import CallSite, ScriptMap
from transpiler.harness.judging.verdict import Verdict
from transpiler.sim.trace import QuirkEvent, ScriptReach, Trace

#: The part of a result without an output block: the whole of it.
WHOLE_RESULT = "result"


def result_parts(config: CompositeToolConfig) -> tuple[str, ...]:
    """The parts of ``config``'s result a script must return: each output property built by
    a template (``output.NAME``, ``output.A.B`` inside an object), or the whole result."""
    if config.output is None:
        return (WHOLE_RESULT,)

    def parts(properties: dict[str, OutputProperty], prefix: str) -> list[str]:
        found: list[str] = []
        for name, definition in properties.items():
            if definition.value:
                found.append(f"{prefix}{name}")
            else:
                found += parts(dict(definition.properties), f"{prefix}{name}.")
        return found

    return tuple(parts(dict(config.output.properties), "output."))


def _failed_there(event: QuirkEvent) -> bool:
    """Whether ``event`` says an output property's template gave no value of its type, so its
    default stood in (in a successful run, a template that failed either did that or took a
    variant that gave a value)."""
    return event.deviation is Deviation.OUTPUT_RENDERING and event.detail.startswith(UNPARSED)


@dataclass
class Coverage:
    """What the workflow's runs reached over every scenario: each step's statuses, each
    elicitation step's answers (``action``; ``failed`` where the answer failed the step), and
    which parts of the result (``results``: :func:`result_parts`) a successful run of the
    workflow built by their templates where the script's succeeded too (``compared``), and in
    how many scenarios both succeeded (``together``)."""

    elicitations: frozenset[str] = frozenset()
    results: tuple[str, ...] = ()
    steps: dict[str, set[str]] = field(default_factory=dict)
    answers: dict[str, set[str]] = field(default_factory=dict)
    compared: set[str] = field(default_factory=set)
    together: int = 0

    def add(self, trace: Trace) -> None:
        """Count one run of the workflow."""
        for step_id, record in (trace.steps or {}).items():
            self.steps.setdefault(step_id, set()).add(record.status)
            if step_id in self.elicitations:
                output = record.output
                action = output.get("action") if isinstance(output, dict) else None
                self.answers.setdefault(step_id, set()).add(str(action or record.status))

    def add_result(self, workflow: Trace, script: Trace) -> None:
        """Count one scenario the script matched: ``workflow`` the model's run it matched."""
        if workflow.outcome != "success" or script.outcome != "success":
            return
        self.together += 1
        failed = {event.site for event in workflow.quirks if _failed_there(event)}
        self.compared.update(part for part in self.results if part not in failed)

    def never_compared(self) -> list[str]:
        """The parts of the result no scenario compared."""
        return [part for part in self.results if part not in self.compared]

    def never_completed(self, steps: Sequence[str]) -> list[str]:
        """The steps of ``steps`` no run completed."""
        return [s for s in steps if "completed" not in self.steps.get(s, set())]

    def to_json(self, steps: Sequence[str]) -> dict[str, Any]:
        """Statuses by step (in workflow order), answers by elicitation step, the steps no
        run completed, and the parts of the result no scenario compared."""
        return {
            "steps": {s: sorted(self.steps.get(s, set())) for s in steps},
            "elicitation_answers": {
                s: sorted(self.answers.get(s, set())) for s in steps if s in self.elicitations
            },
            "never_completed": self.never_completed(steps),
            "results_never_compared": self.never_compared(),
        }


class ScriptCoverage:
    """What the script's runs reached over every scenario, on each engine."""

    def __init__(self, script_map: ScriptMap) -> None:
        self.map = script_map
        sites = script_map.sites
        self._by_paren = {(s.file, *s.paren, s.builtin): i for i, s in enumerate(sites)}
        self._by_line: dict[tuple[str, int, str], list[int]] = {}
        for index, site in enumerate(sites):
            self._by_line.setdefault((site.file, site.line, site.builtin), []).append(index)
        self.reached: dict[int, Counter[str]] = {}
        self.unlisted: dict[tuple[str, str, int, int], Counter[str]] = {}
        self.lines: set[int] = set()
        self.evaluated = False

    def add(self, engine: str, reach: ScriptReach | None) -> None:
        """Count one run of the script on ``engine``."""
        if reach is None:
            return
        sites: set[int] = set()
        for call in reach.calls:
            builtin, file, line, column = call
            if column:
                found = self._by_paren.get((file, line, column, builtin))
                indexes = [] if found is None else [found]
            else:
                indexes = self._by_line.get((file, line, builtin), [])
            sites.update(indexes)
            if not indexes:
                self.unlisted.setdefault(call, Counter())[engine] += 1
        for index in sites:
            self.reached.setdefault(index, Counter())[engine] += 1
        self.lines.update(line for file, line in reach.lines if file == self.map.script)
        self.evaluated = self.evaluated or self.map.script in reach.evaluated

    def never_reached(self) -> list[CallSite]:
        """The reachable call sites no scenario reached on any engine."""
        return [s for i, s in enumerate(self.map.sites) if s.reachable and i not in self.reached]

    def to_json(self) -> dict[str, Any]:
        """Each call site with the scenarios that reached it per engine, those never reached,
        calls at no listed site, and the script's statement lines shown run and not."""
        script = self.map.script
        statements = self.map.statement_lines()
        shown = self.map.shown_run(self.lines, self.evaluated)
        return {
            "unread": [str(unread) for unread in self.map.unread],
            "call_sites": [
                {
                    "at": site.where(script),
                    "builtin": site.builtin,
                    "column": site.paren[1] if site.paren[0] == site.line else None,
                    "text": site.text,
                    "reachable": site.reachable,
                    "scenarios": dict(sorted(self.reached.get(index, Counter()).items())),
                }
                for index, site in enumerate(self.map.sites)
            ],
            "never_reached": [
                {"at": s.where(script), "builtin": s.builtin, "text": s.text}
                for s in self.never_reached()
            ],
            "unlisted_calls": [
                {"at": f"{file}:{line}", "builtin": builtin, "scenarios": dict(sorted(by.items()))}
                for (builtin, file, line, _), by in sorted(self.unlisted.items())
            ],
            "lines": {
                "statements": len(statements),
                "shown_run": sorted(shown),
                "not_shown_run": [line for line in statements if line not in shown],
            },
        }


@dataclass(frozen=True)
class Gap:
    """A part of the tool no scenario compared: a step no scenario completed (``kind``
    ``step``), a part of the result none compared (``result``), a call site of the script
    none reached (``call``), or a file of the script whose call sites could not be read
    (``unread``); ``where`` names it within the tool, ``detail`` says what happened there."""

    tool: str
    kind: str
    where: str
    detail: str

    @property
    def name(self) -> str:
        """How ``--accept-gap`` and the policy's ``accept_gaps`` name it."""
        return f"{self.tool}/{self.where}"


def gaps(
    tool: str,
    workflow: Coverage,
    steps: Sequence[str],
    script: ScriptCoverage | None,
) -> list[Gap]:
    """The tool's gaps: steps no scenario completed, parts of the result none compared, then
    files of the script the map could not read, then call sites no scenario reached."""
    found = [
        Gap(
            tool,
            "step",
            step,
            f"{' or '.join(sorted(workflow.steps.get(step, set())) or ['never started'])} "
            "in every scenario",
        )
        for step in workflow.never_completed(steps)
    ]
    found += [
        Gap(tool, "result", part, _uncompared(workflow, part)) for part in workflow.never_compared()
    ]
    if script is not None:
        found += [
            Gap(tool, "unread", f"{unread.file}:unread", unread.why) for unread in script.map.unread
        ]
        found += [
            Gap(tool, "call", site.where(script.map.script), f"{site.builtin} `{site.text}`")
            for site in script.never_reached()
        ]
    return found


def _uncompared(workflow: Coverage, part: str) -> str:
    """What happened to a part of the result no scenario compared."""
    if not workflow.together:
        return "the workflow and the script never succeeded in one scenario"
    return (
        f"its template failed in each of the {workflow.together} scenario(s) where the "
        "workflow and the script succeeded"
    )


_MISSED = {
    "step": "no scenario completed step(s) {} ({})",
    "result": "no scenario compared the successful result's {} with the script's ({})",
    "unread": "the parser could not read the script's call sites in {} ({})",
    "call": "no scenario reached the script's call site(s) {} ({})",
}


def judge(gaps: Sequence[Gap], accepted: frozenset[str]) -> tuple[Verdict | None, str, list[str]]:
    """What the gaps make of a passing verdict: ``incomplete`` and the reason (naming each
    open gap and how to accept it), or None when every gap is accepted; and the notes naming
    the accepted gaps."""
    open_gaps = [gap for gap in gaps if gap.name not in accepted]
    notes = [f"accepted gap {gap.name} ({gap.detail})" for gap in gaps if gap.name in accepted]
    if not open_gaps:
        return None, "", notes
    parts = []
    for kind, text in _MISSED.items():
        of_kind = [gap for gap in open_gaps if gap.kind == kind]
        if of_kind:
            wheres = ", ".join(dict.fromkeys(gap.where for gap in of_kind))
            parts.append(text.format(wheres, "; ".join(f"{g.where}: {g.detail}" for g in of_kind)))
    names = dict.fromkeys(gap.name for gap in open_gaps)
    reason = (
        f"{', and '.join(parts)}, so the script was never compared with the workflow there; "
        f"if that is expected, accept the gap by name: "
        f"{' '.join(f'--accept-gap {name}' for name in names)}, or list it under accept_gaps "
        "in the policy"
    )
    return Verdict.INCOMPLETE, reason, notes
