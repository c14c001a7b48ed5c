"""Concurrent checks each get their own outcome when a script kills the shared engine process.

Promise (docs/library.md, "Determinism, threads, caching"): the library is
safe to call from several threads. Runs on one engine share one process
(the starlark-rust sandbox, the go.starlark.net host), one run at a time; a
script that kills it (here: an allocation past the host's memory limit, which
fails at once and touches no memory) gets its own ``unchecked`` verdict, and
every other call, before or after, gets the verdict of its own script, with no
hang: the process is replaced, and its lock released, whoever ended it.

Reproductions: with 12 threads on rust, 3 or 4 calls (good scripts among them)
raised ``ValueError: write to closed file``; on go, the good script's call
never returned (the lock taken for the dead host was never released) and the
wrong one raised ``ValueError: truncate of closed file``, after which every go
check of the process hung.
"""

from __future__ import annotations

import threading
import time

import pytest

import transpiler
from tests.hostile.test_exit_codes import GOOD
from tests.starlark_runtime.conftest import ENGINES
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions

#: Seconds every call together may take; each one takes well under a second.
PATIENCE = 120
#: Allocations that fail at once past the host's memory limit, on each engine.
KILLERS = {
    "rust": "def run(params):\n    x = [0] * 2000000000\n    return {}\n",
    "go": 'def run(params):\n    x = "x" * 900000000\n    return {"n": len(x)}\n',
}


@pytest.mark.parametrize("engine", ENGINES)
def test_every_concurrent_check_returns_its_own_outcome(engine: str) -> None:
    transpiler.clear_cache()
    config = transpiler.loads(GOOD, name=f"threads-{engine}.yaml")
    good = config.transpile("echo").script
    assert good is not None and '"v"' in good
    scripts = {"good": good, "killer": KILLERS[engine], "wrong": good.replace('"v"', '"w"')}
    options = CheckOptions(examples=3, paths=2, engines=(engine,))
    calls = [
        (kind, f"{scripts[kind]}\n# call {number}\n") for number in range(4) for kind in scripts
    ]
    outcomes: dict[int, object] = {}

    def check(number: int, script: str) -> None:
        try:
            outcomes[number] = config.check("echo", script=script, options=options)
        except Exception as error:  # the failure this test is about
            outcomes[number] = error

    threads = [
        threading.Thread(target=check, args=(number, script), daemon=True)
        for number, (_, script) in enumerate(calls)
    ]
    deadline = time.monotonic() + PATIENCE
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    hung = [number for number, thread in enumerate(threads) if thread.is_alive()]
    assert not hung, f"calls {hung} never returned"
    for number, (kind, _) in enumerate(calls):
        outcome = outcomes[number]
        assert isinstance(outcome, transpiler.ToolOutcome), f"{kind} call {number}: {outcome!r}"
        if kind == "good":
            assert outcome.passes(None), outcome.reason
        elif kind == "wrong":
            assert outcome.verdict is Verdict.DIFFERS, outcome.reason
        else:
            assert outcome.verdict is Verdict.UNCHECKED
            assert "more than 512 MiB of memory" in outcome.reason
    later = config.check("echo", script=good + "\n# later\n", options=options)
    assert later.passes(None), later.reason
