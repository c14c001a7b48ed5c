"""Generated workflows x wrong edits of their readable scripts that only distinguishing data
refuses: where ``check`` passes the script, it must not pass any of them.

Each edit is of one kind :mod:`tests.harness.test_distinguishing` shows by hand: another
step's answer or another parameter read (every value of the ordinary run differs from every
other), a nested output flattened (the successful result is compared), and the script's own
boundaries (a case-insensitive comparison, a slice, empty items filtered out, a parameter
compared with a literal, a missing iteration cap on a list parameter: the probes).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from transpiler.config.loader import load_bytes
from transpiler.emit import emit_tool
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.harness.scenarios.workflows import workflows
from transpiler.listing import entry_classes

#: No random scenarios: what refuses the edits is the distinguishing data alone.
OPTIONS = CheckOptions(examples=0, paths=8)

_STEP_READ = re.compile(r'\b(s\d+)\["(state|n|items)"\]')
_STEPS = re.compile(r"^\s+(s\d+) = ", re.MULTILINE)


def _live(script: str, position: int) -> bool:
    """Whether ``position`` is not in the result a parallel level's function returns for an
    answer that skips the rest (the level's value, which ``run`` does not return: vMCP runs the
    remaining steps anyway, and so does the script)."""
    lines = script[:position].split("\n")
    line, before = lines[-1], [text for text in lines[:-1] if text.strip()]
    nested = len(line) - len(line.lstrip()) >= 12 and line.lstrip().startswith("return")
    return not (nested and before and ".action == " in before[-1])


def _another_step(script: str) -> list[str]:
    """A step's answer read where the workflow reads another step's."""
    steps = sorted(set(_STEPS.findall(script)))
    edits = []
    for match in _STEP_READ.finditer(script):
        if not _live(script, match.start()):
            continue
        for other in steps:
            if other != match.group(1):
                start, end = match.span(1)
                edits.append(script[:start] + other + script[end:])
    return edits


def _another_parameter(script: str) -> list[str]:
    """Another parameter of the same kind read."""
    return [_replaced(script, 'params["who"]', 'params["note"]')]


def _flattened(script: str) -> list[str]:
    """A nested output property returned at the top level, in the result ``run`` ends with."""
    found = list(re.finditer(r'"nested": \{"who": ([^{}\n]+)\}', script))
    if not found:
        return []
    last = found[-1]
    return [script[: last.start()] + f'"who": {last.group(1)}' + script[last.end() :]]


def _case_insensitive(script: str) -> list[str]:
    """A text compared whatever its case."""
    return [re.sub(r'(\bs\d+\["state"\]) == "ready"', r"\1.lower() == \"ready\"", script)]


def _sliced(script: str) -> list[str]:
    """A list parameter cut to two items."""
    return [_replaced(script, 'params.get("items")', 'params.get("items")[:2]')]


def _empties_dropped(script: str) -> list[str]:
    """A list parameter's empty items left out."""
    kept = '[item for item in params.get("items") if item]'
    return [_replaced(script, 'params.get("items")', kept)]


_CAP = re.compile(r"\n +if len\((\w+)\) > \d+:\n +fail\([^\n]*\)\n")


def _uncapped(script: str) -> list[str]:
    """The iteration cap of a forEach over a list parameter left out."""
    return [
        script[: cap.start()] + "\n" + script[cap.end() :]
        for cap in _CAP.finditer(script)
        if re.search(rf"\b{cap.group(1)} = params\b", script)
    ]


def _parameter_literal(script: str) -> list[str]:
    """A parameter compared with a literal the workflow never compares it with."""
    edge = '    if params["who"] == "edge":\n        fail("edge")\n'
    return [script.replace("def run(params):\n", "def run(params):\n" + edge, 1)]


def _replaced(script: str, old: str, new: str) -> str:
    """``script`` with the first live ``old`` (:func:`_live`) replaced by ``new``."""
    start = script.find(old)
    while start >= 0 and not _live(script, start):
        start = script.find(old, start + 1)
    return script if start < 0 else script[:start] + new + script[start + len(old) :]


#: Each kind of wrong edit: the edited scripts it makes of a script (the script itself where
#: the edit has nothing to change).
EDITS: dict[str, Callable[[str], list[str]]] = {
    "another step": _another_step,
    "another parameter": _another_parameter,
    "flattened output": _flattened,
    "case-insensitive": _case_insensitive,
    "slice": _sliced,
    "empty items dropped": _empties_dropped,
    "no iteration cap": _uncapped,
    "parameter literal": _parameter_literal,
}


@settings(
    max_examples=int(os.environ.get("RANDOM_WRONG_EDITS", "8")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(document=workflows(), kind=st.sampled_from(sorted(EDITS)), data=st.data())
def test_a_wrong_edit_of_a_generated_script_is_refused(
    document: dict[str, Any], kind: str, data: st.DataObject
) -> None:
    (loaded,) = load_bytes(yaml.safe_dump(document).encode(), "generated.yaml").tools
    declared = entry_classes(loaded.config)  # as check emits it: its entry's classes declared
    script = emit_tool(loaded.effective, "generated.yaml", entry_deviations=declared).script
    edited = [text for text in EDITS[kind](script) if text != script]
    assume(edited and "vmcp_compat.star" not in script)  # the readable style
    # Only an edit of a script the gate passes says something of the edit.
    assume(check_tool(loaded, OPTIONS, script=script).passes(None))
    wrong = data.draw(st.sampled_from(edited), label="edited")
    report = check_tool(loaded, OPTIONS, script=wrong)
    assert not report.passes(None), f"{kind} passed ({report.verdict}):\n{wrong}"
