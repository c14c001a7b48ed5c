"""Start-up, as ratios to a bare interpreter's ``import yaml`` measured side by side.

Usage: python benchmarks/bench_startup.py [--rounds N]
Three commands, each run in a new process as a user or pre-commit runs it,
alternately with ``python -c "import yaml"`` (the floor), so both see the
same load: ``--help``; the hook on a commit with nothing to check; the hook
on a commit whose pairs are unchanged since its report (a scratch repository
holding the example and three upstream configurations migrated, each script
beside its composite tool, as during a migration; its report filled by a
first run). Bytecode is written as in
an installed package (a first run of each writes it), whatever
``PYTHONDONTWRITEBYTECODE`` says here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "upstream-corpus"
CONFIGURATIONS = (
    "toolhive-e2e-tests/composite-parallel.yaml",
    "docs-website/gather-pr-context.yaml",
    "docs-website/multi-source-data-continue.yaml",
)
FLOOR = (sys.executable, "-c", "import yaml")


@dataclass(frozen=True)
class Ratio:
    """A command's median wall time beside the floor's, measured in alternation."""

    seconds: float
    floor: float

    @property
    def ratio(self) -> float:
        return self.seconds / self.floor


def _environment(cache: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment.update(TRANSPILER_CACHE=str(cache), PYTHONPATH=str(ROOT))
    return environment


def _run(command: tuple[str, ...], cwd: Path, environment: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=environment, capture_output=True, check=True)
    return time.perf_counter() - started


def side_by_side(
    arguments: list[str], cwd: Path, environment: dict[str, str], rounds: int
) -> Ratio:
    """``python -m transpiler ARGUMENTS`` and the floor, ``rounds`` times each in turn."""
    command = (sys.executable, "-m", "transpiler", *arguments)
    _run(command, cwd, environment)  # writes bytecode
    _run(FLOOR, cwd, environment)
    times: list[float] = []
    floors: list[float] = []
    for _ in range(rounds):
        floors.append(_run(FLOOR, cwd, environment))
        times.append(_run(command, cwd, environment))
    return Ratio(statistics.median(times), statistics.median(floors))


def _git(repository: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", str(repository), *arguments],
        check=True,
        capture_output=True,
    )


@contextmanager
def gateway() -> Iterator[tuple[Path, dict[str, str], list[str]]]:
    """A scratch repository, its environment, and the configurations it stages: the example
    and the upstream ones found, migrated beside their composite tools."""
    with tempfile.TemporaryDirectory() as scratch:
        repository = Path(scratch, "gateway")
        repository.mkdir()
        environment = _environment(Path(scratch, "cache"))
        _git(repository, "init", "-q")
        files = ["vmcp-config.yaml"]
        shutil.copy(ROOT / "corpus" / "example" / "vmcp-config.yaml", repository / files[0])
        for name in CONFIGURATIONS:
            if (UPSTREAM / name).is_file():
                files.append(Path(name).name)
                shutil.copy(UPSTREAM / name, repository / files[-1])
        migrate = ("migrate", *files, "--write", "--keep-composite", "--examples", "2")
        subprocess.run(
            (sys.executable, "-m", "transpiler", *migrate),
            cwd=repository,
            env=environment,
            capture_output=True,
            check=False,  # a tool that is not converted keeps its composite form alone
        )
        (repository / "ci.yaml").write_text("on: push\n")
        _git(repository, "add", ".")
        yield repository, environment, files


def fill_report(repository: Path, environment: dict[str, str], files: list[str]) -> None:
    """The hook's first run on ``files``: it fills the report (and builds what it needs)."""
    subprocess.run(
        (sys.executable, "-m", "transpiler", "hook", *files),
        cwd=repository,
        env=environment,
        capture_output=True,
        check=False,
    )


def measure(rounds: int) -> dict[str, Ratio]:
    """The three ratios, by what they measure."""
    with gateway() as (repository, environment, files):
        help_ = side_by_side(["--help"], repository, environment, rounds)
        nothing = side_by_side(["hook", "ci.yaml"], repository, environment, rounds)
        fill_report(repository, environment, files)
        unchanged = side_by_side(["hook", *files], repository, environment, rounds)
    return {"help": help_, "nothing": nothing, "unchanged": unchanged}


def main() -> None:
    """Print each command's time, the floor's and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for what, ratio in measure(args.rounds).items():
        print(f"{what}: {ratio.seconds:.3f}s, floor {ratio.floor:.3f}s, {ratio.ratio:.1f}x")


if __name__ == "__main__":
    main()
