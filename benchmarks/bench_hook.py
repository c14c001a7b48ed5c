"""The pre-commit hook on a commit that changes nothing it checked: the target is under 3 s.

Usage: python benchmarks/bench_hook.py [--corpus DIR]
Builds a scratch git repository (the example configuration and a few upstream
ones), runs the hook's entry as pre-commit does (a new process, the staged files
as arguments, the cache directory outside the repository) once to fill its
report, then again on the same staged files, and prints both wall times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "upstream-corpus"
UPSTREAM = (
    "toolhive-e2e-tests/composite-parallel.yaml",
    "docs-website/gather-pr-context.yaml",
    "docs-website/multi-source-data-continue.yaml",
)


def hook(repository: Path, files: list[str], cache: Path) -> tuple[float, int]:
    """Run the hook's entry in ``repository`` on ``files``; wall time and exit code."""
    environment = dict(os.environ, TRANSPILER_CACHE=str(cache), PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "transpiler", "hook", *files],
        cwd=repository,
        env=environment,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started, completed.returncode


def main() -> None:
    """Print the first run's time and the unchanged re-run's time."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        repository, cache = Path(scratch, "gateway"), Path(scratch, "cache")
        repository.mkdir()
        subprocess.run(["git", "init", "-q", str(repository)], check=True)
        files = ["vmcp-config.yaml"]
        shutil.copy(ROOT / "corpus" / "example" / "vmcp-config.yaml", repository / files[0])
        for name in UPSTREAM:
            source = Path(args.corpus, name)
            if source.is_file():
                files.append(source.name)
                shutil.copy(source, repository / source.name)
        subprocess.run(["git", "-C", str(repository), "add", "."], check=True)
        first, first_code = hook(repository, files, cache)
        again, again_code = hook(repository, files, cache)
    print(f"hook, first run ({len(files)} configurations, exit {first_code}): {first:.1f}s")
    print(f"hook, nothing changed since (exit {again_code}): {again:.2f}s (target: under 3 s)")


if __name__ == "__main__":
    main()
