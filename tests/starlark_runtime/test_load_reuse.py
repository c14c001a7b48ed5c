"""Loaded modules are not run again where that changes nothing.

On rust every context switch is a new pass that re-evaluates the script; a
module whose evaluation called no builtin is kept for the rest of the run,
one that did is re-evaluated (its calls replayed). The go host keeps each
module's compiled program for later runs. Either way the traces are those of
a module run once per run; and nothing of a run outlives it.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from tests.starlark_runtime.helpers import calls, run, scenario
from transpiler.profile import ScriptLimits
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import rust_engine
from transpiler.starlark_runtime.run import run_script

MODULES = {
    "pure.star": "def fetch(i):\n    return call_tool('t.get', {'i': i})\nK = [1, 2, 3]\n",
    "noisy.star": "log('loading')\nN = 1\n",
}
SCRIPT = (
    'load("pure.star", "fetch", "K")\n'
    'load("noisy.star", "N")\n'
    "def run(params):\n"
    "    got = parallel([lambda i=i: fetch(i) for i in K])\n"
    '    return {"got": got, "n": N}\n'
)
WORLD: dict[str, Any] = {
    "t.get": {
        "results": [
            {"when": {"i": i}, "structuredContent": {"i": i}, "delay": f"{(4 - i) * 100}ms"}
            for i in (1, 2, 3)
        ]
    }
}


def in_process(script: str) -> Trace:
    """A rust run in this process (not the sandbox child), so that it can be observed."""
    start = rust_engine.start_rust(script, "script.star", MODULES, ScriptLimits())
    return run_script(start, scenario(WORLD))


def test_modules_behave_as_run_once_across_passes_and_runs(engine: str) -> None:
    for _ in range(2):
        trace = run(SCRIPT, scenario(WORLD), engine, modules=MODULES)
        assert trace.outcome == "success", trace.error
        assert trace.output == {"got": [{"i": 1}, {"i": 2}, {"i": 3}], "n": 1}
        assert trace.logs == ["loading"]
        assert sorted(call[1]["i"] for call in calls(trace)) == [1, 2, 3]


def test_rust_keeps_a_module_that_called_no_builtin_for_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evaluated: list[str] = []
    real = rust_engine.ReplayRun._evaluate

    def counting(self: rust_engine.ReplayRun, ast: Any) -> Any:
        for name, parsed in self._library.asts.items():
            if parsed is ast:
                evaluated.append(name)
        return real(self, ast)

    monkeypatch.setattr(rust_engine.ReplayRun, "_evaluate", counting)
    trace = in_process(SCRIPT)
    assert trace.outcome == "success"
    passes = evaluated.count("noisy.star")
    assert passes > 1 and evaluated.count("pure.star") == 1


def test_a_rust_run_that_loaded_modules_is_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[weakref.ref[rust_engine.ReplayRun]] = []
    real = rust_engine.ReplayRun.start

    def tracked(self: rust_engine.ReplayRun) -> None:
        runs.append(weakref.ref(self))
        real(self)

    monkeypatch.setattr(rust_engine.ReplayRun, "start", tracked)
    trace = in_process(SCRIPT)
    assert trace.outcome == "success" and len(runs) == 1
    gc.collect()
    assert runs[0]() is None, "the run is kept alive by its loaded modules"
