"""A script's ``fail()`` messages and ``log()`` lines are bounded, and so is what reports copy.

Promise (docs/reference.md, "Limits", "Output size"): a halt message is bounded as a
returned result is (10 MiB; past it the run fails with "error message too
large"), ``log()`` lines are capped per run as ``print`` is (64 KiB, then the
log says it was truncated), on both engines alike, and every report copies at
most a few kilobytes of any one text, so ``check`` (with ``--jobs 2`` too)
still writes small reports for such a script.

Reproductions: ``fail("x" * 12_000_000)`` gave a 12 MB error result, and a
5 MB message made a 5 MB Markdown and a 15 MB JSON report; 9,000 ``log()``
calls of a 100 KB line gave a 900 MB trace and 2.6 GiB peak memory on go
(held by the Python host, outside the sandbox's limit), and on rust 3,000 of
them killed the sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.test_exit_codes import GOOD
from tests.starlark_runtime.conftest import ENGINES
from transpiler.cli import main
from transpiler.inert import REPORT_TEXT_CHARS
from transpiler.profile import LOG_TRUNCATED, MAX_LOG_BYTES, MAX_OUTPUT_BYTES
from transpiler.sim.scenario import Scenario
from transpiler.starlark_runtime import run_starlark

LINE_BYTES = 100_000
FLOOD = f"""\
def run(params):
    line = "y" * {LINE_BYTES}
    for i in range(1500):
        log(line)
    log("after the cap")
    return {{"done": True}}
"""
#: Far more than any report needs, far less than what the script says.
REPORT_BYTES = 40 * REPORT_TEXT_CHARS


@pytest.mark.parametrize("engine", ENGINES)
def test_a_halt_message_is_bounded_as_a_result_is(engine: str) -> None:
    size = MAX_OUTPUT_BYTES + 1
    trace = run_starlark(f'def run(params):\n    fail("x" * {size})\n', Scenario(), engine=engine)
    assert trace.error == f"error message too large: {size} bytes (max {MAX_OUTPUT_BYTES})"


@pytest.mark.parametrize("engine", ENGINES)
def test_log_lines_are_capped_per_run(engine: str) -> None:
    trace = run_starlark(FLOOD, Scenario(), engine=engine)
    assert trace.outcome == "success"
    assert trace.logs[-1] == LOG_TRUNCATED
    kept = trace.logs[:-1]
    assert sum(len(line.encode()) for line in kept) == MAX_LOG_BYTES
    assert kept[:-1] == ["y" * LINE_BYTES] * (MAX_LOG_BYTES // LINE_BYTES)


def config_with(tmp_path: Path, script: str) -> Path:
    config = tmp_path / "config.yaml"
    body = "".join(f"      {line}\n" for line in script.splitlines())
    scripted = "scriptedTools:\n  - name: echo\n    description: Echo\n    script: |\n" + body
    config.write_text(GOOD + scripted)
    return config


@pytest.mark.parametrize(
    "script",
    [
        'def run(params):\n    fail("boom " * 1000000)\n',
        FLOOD.replace('return {"done": True}', 'fail("boom " * 1000000)'),
    ],
    ids=["fail-5MB", "log-flood"],
)
def test_reports_copy_bounded_text(
    script: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_with(tmp_path, script)
    reports = [tmp_path / name for name in ("r.json", "r.xml", "r.md")]
    code = main(
        [
            "check",
            str(config),
            *("--examples", "2", "--paths", "2", "--jobs", "2", "--engine", "both"),
            *("--report-json", str(reports[0]), "--junit", str(reports[1])),
            *("--report-md", str(reports[2]), "--format", "json"),
            *("--counterexamples", str(tmp_path / "counterexamples")),
        ]
    )
    assert code == 1
    sizes = {path.name: path.stat().st_size for path in reports}
    sizes["stdout"] = len(capsys.readouterr().out)
    assert all(size < REPORT_BYTES for size in sizes.values()), sizes
    assert "more characters]" in reports[2].read_text()
