"""Emit time per tool, in both styles, for small, typical and large workflows.

Each figure is per tool, next to the time to load its YAML (the floor every
use of a tool pays). Usage: python benchmarks/bench_emit.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import yaml

from transpiler.config.loader import load_bytes
from transpiler.emit import STYLES, emit_tool


def _workflow(steps: int, for_each: bool, output: bool) -> bytes:
    body: list[dict[str, object]] = []
    for index in range(steps):
        step: dict[str, object] = {
            "id": f"s{index}",
            "tool": f"svc.op{index % 7}",
            "arguments": {"n": f"{{{{.params.n}}}}-{index}", "nested": {"v": "{{.params.name}}"}},
        }
        if index:
            step["dependsOn"] = [f"s{index - 1}"] if index % 3 else [f"s{max(0, index - 3)}"]
            step["arguments"]["prev"] = f"{{{{.steps.s{index - 1}.output.id}}}}"  # type: ignore[index]
        if index % 5 == 4:
            step["onError"] = {"action": "retry", "retryCount": 2}
        body.append(step)
    if for_each:
        body.append(
            {
                "id": "fan",
                "type": "forEach",
                "dependsOn": [f"s{steps - 1}"],
                "collection": f"{{{{json .steps.s{steps - 1}.output.items}}}}",
                "step": {"id": "one", "tool": "svc.item", "arguments": {"x": "{{.forEach.item}}"}},
            }
        )
    tool: dict[str, object] = {
        "name": f"w{steps}",
        "description": "benchmark workflow",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "steps": body,
    }
    if output:
        tool["output"] = {
            "properties": {
                f"p{i}": {
                    "type": "integer" if i % 2 else "string",
                    "description": "a value",
                    "value": f"{{{{.steps.s{i}.output.count}}}}",
                    "default": 0,
                }
                for i in range(min(steps, 20))
            }
        }
    return yaml.safe_dump({"compositeTools": [tool]}).encode()


def _per_call(action: Callable[[], object], repeat: int) -> float:
    action()
    started = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - started) / repeat


def main() -> None:
    """Print emit and load time per tool and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    for label, steps, for_each, output in (
        ("small (3 steps)", 3, False, False),
        ("typical (10 steps)", 10, False, True),
        ("large (100 steps, forEach, output)", 100, True, True),
    ):
        data = _workflow(steps, for_each, output)
        load_time = _per_call(partial(load_bytes, data, "bench.yaml"), args.repeat)
        tool = load_bytes(data, "bench.yaml").tools[0].effective
        for style in STYLES:
            emit = partial(emit_tool, tool, "bench.yaml", style=style)
            emit_time = _per_call(emit, args.repeat)
            lines = emit().script.count("\n")
            print(
                f"{label:38s} {style:8s} load {load_time * 1000:7.2f} ms   emit "
                f"{emit_time * 1000:8.2f} ms   emit/load {emit_time / load_time:6.1f}x   "
                f"{lines:6d} lines"
            )


if __name__ == "__main__":
    main()
