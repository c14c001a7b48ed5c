"""Every script run is bounded in memory and wall-clock time (issue 13, item 4).

Reproductions: ``x = [0] * 2000000000`` on rust took 54 s and 15.7 GB, then a
Rust panic and a Python traceback; doubling a string 40 times on go was
killed by the kernel at 24 GB with no message; ``print`` of 100 MB on go went
to stderr unbounded. The caps here are small (64 MiB, 1 s): a run past one
raises ScriptLimitExceeded naming it, within seconds, and the next run works.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml

from tests.starlark_runtime.conftest import ENGINES
from transpiler.cli import main
from transpiler.profile import MAX_PRINT_BYTES
from transpiler.sim.backoff import CentreJitter
from transpiler.sim.scenario import Scenario
from transpiler.starlark_runtime import ScriptLimitExceeded, ScriptLimits, run_starlark
from transpiler.starlark_runtime.sandbox import GRACE_SECONDS

GO = pytest.mark.parametrize("engine", [p for p in ENGINES if p != "rust"])
SMALL = ScriptLimits(memory_bytes=64 * 2**20, seconds=1.0)
#: For memory tests: time enough that a loaded machine still meets the memory limit first.
HUNGRY = ScriptLimits(memory_bytes=64 * 2**20, seconds=30.0)
HUGE_LIST = "def run(params):\n    x = [0] * 2000000000\n    return {'n': len(x)}\n"
DOUBLING = (
    "def run(params):\n    s = 'ab'\n    for i in range(40):\n        s = s + s\n"
    "    return {'n': len(s)}\n"
)
SLOW = (
    "def run(params):\n    s = 'ab' * 5000000\n    n = 0\n    for i in range(100000):\n"
    "        n += s.find('zz')\n    return {'n': n}\n"
)
FINE = "def run(params):\n    return {'ok': True}\n"


def bounded(
    script: str, engine: str, limits: ScriptLimits = HUNGRY
) -> tuple[ScriptLimitExceeded, float]:
    started = time.monotonic()
    with pytest.raises(ScriptLimitExceeded) as caught:
        run_starlark(script, Scenario(), engine=engine, limits=limits)
    return caught.value, time.monotonic() - started


def still_works(engine: str, limits: ScriptLimits = HUNGRY) -> None:
    """The next run with the same limits works (a host that met a limit was replaced)."""
    trace = run_starlark(FINE, Scenario(), engine=engine, limits=limits)
    assert trace.outcome == "success" and trace.output == {"ok": True}


def test_a_huge_list_on_rust_meets_the_memory_limit() -> None:
    error, seconds = bounded(HUGE_LIST, "rust")
    assert error.which == "memory" and seconds < 10
    assert str(error) == "the script needed more than 64 MiB of memory (the host's limit)"
    still_works("rust")


@GO
def test_a_huge_list_on_go_is_refused_by_the_interpreter(engine: str) -> None:
    """go.starlark.net checks a repeat's size itself: a halt, not a limit."""
    trace = run_starlark(HUGE_LIST, Scenario(), engine=engine, limits=SMALL)
    assert trace.outcome == "error" and "excessive repeat" in str(trace.error)


def test_doubling_a_string_meets_the_memory_limit(engine: str) -> None:
    error, seconds = bounded(DOUBLING, engine)
    assert error.which == "memory" and seconds < 10
    still_works(engine)


def test_a_slow_script_meets_the_time_limit(engine: str) -> None:
    error, seconds = bounded(SLOW, engine, SMALL)
    assert error.which == "time"
    assert str(error) == "the script ran longer than 1 s of wall-clock time (the host's limit)"
    assert seconds < SMALL.seconds + GRACE_SECONDS + 2  # the child's own check, or the kill
    still_works(engine, SMALL)


@GO
def test_print_output_on_go_is_capped(engine: str) -> None:
    """(starlark-rust's scripted-tool globals have no ``print``.)"""
    from transpiler.starlark_runtime import go_engine

    script = "def run(params):\n    for i in range(20000):\n        print('x' * 10000)\n"
    trace = run_starlark(script + "    return {}\n", Scenario(), engine=engine, limits=SMALL)
    assert trace.outcome == "success"
    (host,) = [h for (_, limits), h in go_engine._HOSTS.items() if limits == SMALL]
    printed = os.fstat(host._stderr.fileno()).st_size
    assert MAX_PRINT_BYTES <= printed <= MAX_PRINT_BYTES + 100, printed


def test_the_run_command_names_the_limit(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "hungry.star"
    script.write_text(DOUBLING)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"backends": {}}))
    arguments = ["run", "--form", "starlark", str(script), "--scenario", str(scenario)]
    limits = ["--engine", engine, "--memory-limit", "64", "--time-limit", "30"]
    assert main([*arguments, *limits]) == 2
    assert capsys.readouterr().err == (
        f"error: {script}: the script needed more than 64 MiB of memory (the host's limit)\n"
    )


def test_a_rust_child_that_grew_retires_after_its_reply() -> None:
    """A child whose address space grew past its bound answers, then exits: the next run gets a
    new one, so nothing one run leaves behind counts against another."""
    from transpiler.starlark_runtime.sandbox import Request, Sandbox

    def request(script: str) -> Request:
        return Request(script, "s.star", {}, (Scenario(),), 0, CentreJitter(), HUNGRY.seconds)

    grown = Sandbox(HUNGRY, retire_bytes=-1)  # any address space at all counts as grown
    assert grown.run(request(FINE))[0].output == {"ok": True}  # type: ignore[union-attr]
    assert not grown.alive()
    roomy = Sandbox(HUNGRY)  # the default bound: half the memory limit
    for _ in range(3):
        assert roomy.run(request(FINE))[0].output == {"ok": True}  # type: ignore[union-attr]
    assert roomy.alive()
    roomy.close()
