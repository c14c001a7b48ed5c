"""``--shadow``: every served call also judged against the workflow the script replaced.

Each call's exchange (:mod:`transpiler.serve.exchange`) is a scenario; the
composite model runs it, its backend calls answered with what the script's
calls received (a call only the workflow makes finds no answer, and is never
sent to a real backend), and :func:`transpiler.harness.running.replay.judge_run`
compares the two as ``check`` does. Each divergence is logged in the
relation's words (the differing fields, both runs, the classes that excuse
what differs and their witnesses); the JSON log (``--shadow-log``) holds
every call's verdict with ``check``'s report entries, rewritten whole after
each call, and a summary is printed when serve stops.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transpiler.harness.reporting.reports import (
    counterexample_json,
    side_by_side,
    witness_json,
    witness_lines,
)
from transpiler.harness.running.replay import judge_run
from transpiler.inert import clipped_data, one_line
from transpiler.serve.catalog import ServedTool
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace


class ShadowLog:
    """The verdicts of the shadow runs so far (any thread may add one)."""

    def __init__(self, path: Path, note: Callable[[str], None]) -> None:
        self.path = path
        self._note = note
        self._entries: list[dict[str, Any]] = []
        self._counts: dict[str, Counter[str]] = {}
        self._lock = threading.Lock()

    def judge(
        self, tool: ServedTool, number: int, scenario: Scenario, trace: Trace, engine: str
    ) -> str:
        """Compare call ``number`` of ``tool`` with its workflow; log and keep the verdict."""
        assert tool.composite is not None
        try:
            judged = judge_run(
                tool.composite,
                tool.script,
                tool.modules,
                scenario,
                trace,
                engine,
                tool.timeout_ns or None,
            )
        except Exception as error:  # a shadow run never takes the server down
            self._keep(tool.name, number, "not-judged", {"reason": str(error)})
            self._note(
                f"shadow: {one_line(tool.name)} call {number}: not judged: {one_line(str(error))}"
            )
            return "not-judged"
        entry: dict[str, Any] = {}
        if judged.counterexample is not None:
            entry["counterexample"] = counterexample_json(judged.counterexample)
            lines = side_by_side(judged.counterexample).split("\n")
            self._note(f"shadow: {one_line(tool.name)} call {number} differs from the workflow:")
            for line in lines:
                self._note(f"  {one_line(line)}")
        elif judged.witnesses:
            entry["witnesses"] = {str(c): witness_json(w) for c, w in judged.witnesses.items()}
            classes = ", ".join(sorted(judged.witnesses))
            self._note(f"shadow: {one_line(tool.name)} call {number} equivalent except {classes}:")
            for witness in judged.witnesses.values():
                for line in witness_lines(witness):
                    self._note(f"  {one_line(line)}")
        self._keep(tool.name, number, judged.verdict, entry)
        return judged.verdict

    def _keep(self, tool: str, number: int, verdict: str, entry: dict[str, Any]) -> None:
        with self._lock:
            self._entries.append({"tool": tool, "call": number, "verdict": verdict, **entry})
            self._counts.setdefault(tool, Counter())[verdict] += 1
            self._write()

    def _write(self) -> None:
        """The log as it stands, replacing the last one whole."""
        document = {"calls": clipped_data(self._entries), "summary": self._summary_json()}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".shadow-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=2, sort_keys=True, ensure_ascii=False)
            out.write("\n")
        os.replace(temporary, self.path)

    def _summary_json(self) -> dict[str, dict[str, int]]:
        return {tool: dict(sorted(counts.items())) for tool, counts in sorted(self._counts.items())}

    def summary(self) -> list[str]:
        """One line per tool: how many calls were judged, and each verdict's count."""
        with self._lock:
            counts = self._summary_json()
        if not counts:
            return ["shadow: no call was judged"]
        lines = []
        for tool, verdicts in counts.items():
            told = ", ".join(f"{n} {verdict}" for verdict, n in verdicts.items())
            lines.append(f"shadow: {one_line(tool)}: {sum(verdicts.values())} call(s): {told}")
        return [*lines, f"shadow: the log is {self.path}"]
