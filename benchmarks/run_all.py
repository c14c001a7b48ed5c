"""Every figure of docs/performance.md: measure, print the table, optionally write it.

Usage: python benchmarks/run_all.py [--write docs/performance.md] [--rounds N] [--startup]

Each figure is measured ``--rounds`` times (3 by default) and given as the
range seen, with its target and its ratio to its floor (:mod:`floors`): the
figure's time per unit over the floor's. The start-up figures
(:mod:`bench_startup`) are run in alternation with their floor, a bare
interpreter's ``import yaml``, and their targets are ratios to it;
``--startup`` measures those alone. ``--write`` replaces the part of the
file between the ``figures`` markers, keeping the prose around it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import bench_check, bench_startup, floors
from benchmarks.bench_composite import _rate as model_rate
from benchmarks.bench_composite import _workload
from benchmarks.bench_emit import _workflow
from benchmarks.bench_library import EXAMPLE, TOOLS, config_text
from benchmarks.bench_runtime import PARALLEL, _world
from transpiler.config.loader import load_bytes
from transpiler.emit import emit_tool
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark_many

BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"


@dataclass(frozen=True)
class Row:
    """One figure: what, how it is read, its target, and how to measure it and its floor."""

    what: str
    unit: str
    target: str
    measure: Callable[[], float]
    floor: str
    floor_seconds: Callable[[], float]
    per_unit: Callable[[float], float]
    target_is_ratio: bool = False


#: ``check``'s budget: wall time per scenario pair, in bare starlark-rust runs.
PAIR_BUDGET = 7


def _rows() -> list[Row]:
    config_data = config_text(TOOLS // 4).encode()
    tool_data = _workflow(10, False, True)
    return [
        Row(
            "`check`, upstream corpus, rust, `--jobs 2`",
            "pairs/s",
            ">= 1,000",
            lambda: _check_rate("rust"),
            f"bare rust run of 10 calls, per pair (budget: {PAIR_BUDGET}x)",
            floors.bare_rust_run,
            lambda rate: 1 / rate,
        ),
        Row(
            "`check`, upstream corpus, go, `--jobs 2`",
            "pairs/s",
            ">= 500",
            lambda: _check_rate("go"),
            f"bare rust run of 10 calls, per pair (budget: {PAIR_BUDGET}x)",
            floors.bare_rust_run,
            lambda rate: 1 / rate,
        ),
        Row(
            f"library, cold load + transpile, {TOOLS} tools, readable",
            "s",
            "<= 0.5",
            lambda: _library_cold(config_data, "readable"),
            "YAML load of the config",
            lambda: floors.yaml_load(config_data),
            lambda seconds: seconds,
        ),
        Row(
            f"library, cold load + transpile, {TOOLS} tools, exact",
            "s",
            "<= 1.5",
            lambda: _library_cold(config_data, "exact"),
            "YAML load of the config",
            lambda: floors.yaml_load(config_data),
            lambda seconds: seconds,
        ),
        Row(
            f"library, warm reload, {TOOLS} tools",
            "ms",
            "<= 1",
            lambda: _library_warm(config_data) * 1000,
            "YAML load of the config",
            lambda: floors.yaml_load(config_data),
            lambda ms: ms / 1000,
        ),
        Row(
            "emit, 10-step tool, exact",
            "ms",
            "<= 10",
            lambda: _emit(tool_data) * 1000,
            "YAML load of the tool",
            lambda: floors.yaml_load(tool_data),
            lambda ms: ms / 1000,
        ),
        Row(
            "composite model alone, 10 steps",
            "scenarios/s",
            ">= 3,000",
            lambda: model_rate(*_workload("ten_steps"), 300),
            "bare rust run of 10 calls",
            floors.bare_rust_run,
            lambda rate: 1 / rate,
        ),
        Row(
            "rust engine, 10 staggered parallel calls, a batch of runs as `check` makes them",
            "runs/s",
            ">= 1,500",
            lambda: _engine_batch(300),
            "bare rust run of 10 calls",
            floors.bare_rust_run,
            lambda rate: 1 / rate,
        ),
    ]


class _SideBySide:
    """A start-up figure: a command run in alternation with the floor; :meth:`floor` is the
    median floor of the last measurement."""

    def __init__(self, gateway: tuple[Path, dict[str, str], list[str]], arguments: list[str]):
        self.gateway, self.arguments = gateway, arguments
        self.floors: list[float] = []

    def measure(self) -> float:
        repository, environment, files = self.gateway
        arguments = [files if a == "FILES" else [a] for a in self.arguments]
        ratio = bench_startup.side_by_side(
            [a for group in arguments for a in group], repository, environment, 3
        )
        self.floors.append(ratio.floor)
        return ratio.seconds

    def floor(self) -> float:
        return sorted(self.floors)[len(self.floors) // 2]


def _startup_rows(stack: contextlib.ExitStack) -> list[Row]:
    """``--help`` and the hook's two quick paths, in a scratch repository (its report filled)."""
    gateway = stack.enter_context(bench_startup.gateway())
    repository, environment, files = gateway
    bench_startup.fill_report(repository, environment, files)
    figures = [
        ("`--help`", ["--help"], 3),
        ("the hook, nothing to check", ["hook", "ci.yaml"], 3),
        (f"the hook, {len(files)} configurations unchanged since it ran", ["hook", "FILES"], 10),
    ]
    rows = []
    for what, arguments, times in figures:
        side = _SideBySide(gateway, arguments)
        rows.append(
            Row(
                what,
                "s",
                f"<= {times}x the floor",
                side.measure,
                "`python -c 'import yaml'`, run in alternation",
                side.floor,
                lambda seconds: seconds,
                target_is_ratio=True,
            )
        )
    return rows


def _engine_batch(runs: int) -> float:
    """Runs a second of the parallel workload, ``runs`` scenarios in one sandbox round trip."""
    world = _world(delays=True)
    run_starlark_many(PARALLEL, [world])
    started = time.perf_counter()
    traces = run_starlark_many(PARALLEL, [world] * runs)
    seconds = time.perf_counter() - started
    assert all(isinstance(trace, Trace) and trace.outcome == "success" for trace in traces)
    return runs / seconds


def _library_cold(data: bytes, style: str) -> float:
    import transpiler

    transpiler.clear_cache()
    started = time.perf_counter()
    assert len(transpiler.load(data).transpile(style=style)) == TOOLS
    return time.perf_counter() - started


def _library_warm(data: bytes) -> float:
    import transpiler

    transpiler.load(data).transpile()
    return floors.per_call(lambda: transpiler.load(data).transpile())


def _emit(data: bytes) -> float:
    tool = load_bytes(data, "bench.yaml").tools[0].effective
    return floors.per_call(lambda: emit_tool(tool, "bench.yaml", style="exact"))


def _figure(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


PEAKS: dict[str, list[int]] = {}


def _check_rate(engine: str) -> float:
    """Pairs a second of one ``check`` run; its peak memory goes to :data:`PEAKS`."""
    run = bench_check.measure(engine, 100, 2)
    PEAKS.setdefault(engine, []).append(run.peak_bytes)
    return run.rate


def _ratio(low: float, high: float) -> str:
    texts = [f"{value:.2g}" if value < 1 else f"{value:.1f}" for value in (low, high)]
    return f"{texts[0]}x" if texts[0] == texts[1] else f"{texts[0]}-{texts[1]}x"


def _span(low: float, high: float) -> str:
    """``low-high`` in whole units, one number when they agree."""
    texts = f"{low:.0f}", f"{high:.0f}"
    return texts[0] if texts[0] == texts[1] else "-".join(texts)


def _machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    memory = next(
        (
            int(line.split()[1]) // 2**20
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal:")
        ),
        0,
    )
    return (
        f"{cpu}, {os.cpu_count()} cores, {memory} GiB; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}"
    )


def table(rounds: int, startup_only: bool = False) -> str:
    """Measure every row ``rounds`` times; the Markdown table with the machine and date."""
    import transpiler

    for style in ("readable", "exact"):  # import and first-use costs, outside the figures
        transpiler.load(EXAMPLE).transpile(style=style)
    with contextlib.ExitStack() as stack:
        rows = _startup_rows(stack) + ([] if startup_only else _rows())
        return _table(rows, rounds)


def _table(rows: list[Row], rounds: int) -> str:
    lines = [
        "| what | figure | target | floor | floor time | ratio to floor |",
        "|---|---|---|---|---|---|",
    ]
    load_before = os.getloadavg()[0]
    for row in rows:
        samples = sorted(row.measure() for _ in range(rounds))
        floor = row.floor_seconds()
        ratios = sorted(row.per_unit(sample) / floor for sample in samples)
        low, high = samples[0], samples[-1]
        figure = (
            _figure(low) if _figure(low) == _figure(high) else f"{_figure(low)}-{_figure(high)}"
        )
        target = row.target if row.target_is_ratio else f"{row.target} {row.unit}"
        lines.append(
            f"| {row.what} | {figure} {row.unit} | {target} | {row.floor} | "
            f"{floor * 1000:.3f} ms | {_ratio(ratios[0], ratios[-1])} |"
        )
        print(lines[-1], flush=True)
    load_after = os.getloadavg()[0]
    peaks = "; ".join(
        f"{engine} {_span(min(found) / 2**20, max(found) / 2**20)} MiB"
        for engine, found in PEAKS.items()
    )
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    return "\n".join(
        [
            f"Measured {today} on {_machine()}, {rounds} rounds per figure (the range is what "
            f"they gave; load average {load_before:.1f} before, {load_after:.1f} after). "
            "Regenerate with `python benchmarks/run_all.py --write docs/performance.md`.",
            "",
            *lines,
            *(
                [
                    "",
                    "Peak memory of `check` over the upstream corpus with `--jobs 2` (limit "
                    f"1 GiB): {peaks}.",
                ]
                if peaks
                else []
            ),
        ]
    )


def main() -> None:
    """Measure, print, and write the table into ``--write`` between its markers."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="the Markdown file to put the table in")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--startup", action="store_true", help="the start-up figures alone")
    args = parser.parse_args()
    text = table(args.rounds, args.startup)
    if args.write is None:
        return
    document = args.write.read_text(encoding="utf-8")
    before, found, rest = document.partition(BEGIN)
    _, ended, after = rest.partition(END)
    if not (found and ended):
        raise SystemExit(f"{args.write} has no {BEGIN} ... {END} markers")
    args.write.write_text(f"{before}{BEGIN}\n{text}\n{END}{after}", encoding="utf-8")


if __name__ == "__main__":
    main()
