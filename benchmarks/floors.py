"""The floors the figures of docs/performance.md are set against.

- bare starlark-rust run: the 10-call script of bench_runtime.py evaluated
  once by starlark-rust (starlark-pyo3) in this process, its ``call_tool`` a
  Python function that answers at once: parse, module set-up and evaluation,
  with no kernel, no replay and no sandbox;
- bare model run: one run of the composite model on the ten-step workload
  (bench_composite.py), what one scenario costs the workflow side of a pair;
- YAML load: libyaml's ``yaml.load`` of the same bytes (every use of a
  configuration pays at least that).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import starlark as sl
import yaml

from benchmarks.bench_composite import _workload
from benchmarks.bench_runtime import SEQUENTIAL
from transpiler.composite import run_composite

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def per_call(action: Callable[[], object], seconds: float = 0.5) -> float:
    """Seconds per call of ``action``, repeated for about ``seconds`` (after one warm-up)."""
    action()
    count, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds or count < 3:
        action()
        count += 1
    return elapsed / count


def bare_rust_run() -> float:
    """Seconds per bare starlark-rust run of the 10-call script."""
    globals_ = sl.Globals.extended_by([sl.LibraryExtension.Json])

    def run() -> None:
        module = sl.Module()
        module.add_callable("call_tool", lambda name, args: {"ok": True})
        sl.eval(module, sl.parse("bench.star", SEQUENTIAL), globals_)
        module["__params"] = {"who": "bench"}
        sl.eval(module, sl.parse("entry.star", "run(__params)"), globals_)

    return per_call(run)


def bare_model_run() -> float:
    """Seconds per run of the composite model on the ten-step workload."""
    tool, scenario = _workload("ten_steps")
    return per_call(lambda: run_composite(tool, scenario))


def yaml_load(data: bytes) -> float:
    """Seconds per libyaml load of ``data``."""
    return per_call(lambda: yaml.load(data, Loader=_LOADER))
