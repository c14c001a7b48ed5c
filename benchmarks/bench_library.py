"""Library API cost for a 100-tool config: cold load + transpile, warm (cached) reload, YAML load.

The config repeats the bundled example's four tools 25 times under distinct
names. "cold" clears the cache, loads the file and transpiles every tool (in each style);
"warm reload" loads the unchanged file again and asks for every script (what
a gateway pays on a config reload); "plain YAML" is ``yaml.load`` of the same
file with libyaml, for scale.

Usage: python benchmarks/bench_library.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

import transpiler

EXAMPLE = Path(__file__).resolve().parent.parent / "corpus" / "example" / "vmcp-config.yaml"
TOOLS = 100


def config_text(copies: int) -> str:
    """The example config with its tools repeated ``copies`` times under distinct names."""
    document = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    tools = document["compositeTools"]
    document["compositeTools"] = [
        {**copy.deepcopy(tool), "name": f"{tool['name']}_{index}"}
        for index in range(copies)
        for tool in tools
    ]
    text = yaml.safe_dump(document, sort_keys=False)
    assert "&id" not in text, "every tool written out in full (no YAML aliases)"
    return text


def timed(action: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``action`` in seconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    """Print the four figures and the ratio of a warm reload to a plain YAML load."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args()
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "vmcp-config.yaml"
        path.write_text(config_text(TOOLS // 4), encoding="utf-8")
        for style in ("readable", "exact"):  # import and first-use costs, outside the figures
            transpiler.load(EXAMPLE).transpile(style=style)

        def cold_load_only() -> None:
            transpiler.clear_cache()
            transpiler.load(path).validate()

        def cold() -> None:
            transpiler.clear_cache()
            config = transpiler.load(path)
            assert len(config.transpile()) == TOOLS

        def cold_exact() -> None:
            transpiler.clear_cache()
            config = transpiler.load(path)
            assert len(config.transpile(style="exact")) == TOOLS

        def warm() -> None:
            assert len(transpiler.load(path).transpile()) == TOOLS

        def plain() -> None:
            yaml.load(path.read_bytes(), Loader=loader)

        size = path.stat().st_size
        cold_load = timed(cold_load_only, args.repeat)
        cold_all = timed(cold, args.repeat)
        cold_all_exact = timed(cold_exact, args.repeat)
        warm_reload = timed(warm, max(args.repeat, 20))
        plain_yaml = timed(plain, max(args.repeat, 20))
    print(f"config: {TOOLS} tools, {size} bytes")
    print(f"cold load + validate:      {cold_load * 1000:9.1f} ms")
    print(f"cold load + transpile all: {cold_all * 1000:9.1f} ms (readable)")
    print(f"cold load + transpile all: {cold_all_exact * 1000:9.1f} ms (exact)")
    print(f"warm reload (cached):      {warm_reload * 1000:9.3f} ms")
    print(f"plain YAML load (libyaml): {plain_yaml * 1000:9.3f} ms")
    print(f"warm reload / plain YAML:  {warm_reload / plain_yaml:9.3f}")


if __name__ == "__main__":
    main()
