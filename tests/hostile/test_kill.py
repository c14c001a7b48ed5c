"""Interrupt ``migrate --write`` at random points; nothing is lost, a rerun finishes the job.

Issue 13, item 6: SIGKILL, SIGTERM or SIGINT during ``migrate --write`` over a
directory of configs left temporary files, stopped part-way, and left
backups that made the next run fail. Each trial copies the same configs to
the same place, starts ``migrate --write``, and sends a random signal either
at a random moment or while the files are being written. Then:

* every config is its original or its complete migration, and every backup
  holds the original;
* after SIGTERM or SIGINT no temporary file remains, and the run landed whole
  or not at all (those signals wait while files are written);
* a rerun exits 0, migrates every config, and leaves no temporary file (a
  SIGKILL's leftovers are removed by it).

``HOSTILE_KILLS`` sets the number of trials (CI: 6).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO_ROOT
from transpiler.migrate.atomic import TEMP_SUFFIX

TRIALS = int(os.environ.get("HOSTILE_KILLS", "6"))
FILES = 12
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)


def config(number: int) -> str:
    return f"""\
# Gateway {number}.
name: gw{number}
compositeTools:
  - name: ping_{number}
    description: Ping backend {number}
    steps:
      - id: p
        tool: svc.ping
        arguments:
          n: "{number}"
"""


def command(directory: Path) -> list[str]:
    return [sys.executable, "-m", "transpiler", "migrate", str(directory), "--write"]


def start(directory: Path) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [*command(directory), "--examples", "1", "--no-diff"],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def reset(directory: Path) -> dict[str, bytes]:
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir()
    originals = {}
    for number in range(FILES):
        path = directory / f"gw{number:02d}.yaml"
        path.write_text(config(number))
        originals[path.name] = path.read_bytes()
    return originals


def temporaries(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def interrupt(process: subprocess.Popen[bytes], directory: Path, rng: random.Random) -> None:
    """Signal the run at a random moment, or at a random point while it writes files."""
    sent = rng.choice(SIGNALS)
    deadline = time.monotonic() + 120
    if rng.random() < 0.5:
        time.sleep(rng.uniform(0.2, 4.0))
    else:
        while not temporaries(directory) and process.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.0005)
        time.sleep(rng.uniform(0, 0.01))
    if process.poll() is None:
        process.send_signal(sent)
    process.wait(timeout=120)
    return None


def test_interrupted_runs_lose_nothing_and_a_rerun_finishes(tmp_path: Path) -> None:
    directory = tmp_path / "configs"
    originals = reset(directory)
    reference = subprocess.run(
        [*command(directory), "--examples", "1", "--no-backup", "--no-diff"],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        check=False,
    )
    assert reference.returncode == 0, reference.stdout + reference.stderr
    complete = {name: (directory / name).read_bytes() for name in originals}
    assert all(complete[name] != originals[name] for name in originals)
    rng = random.Random(int(os.environ.get("HOSTILE_SEED", "13")))
    outcomes: dict[str, int] = {}
    for _ in range(TRIALS):
        reset(directory)
        process = start(directory)
        interrupt(process, directory, rng)
        states = {
            name: (directory / name).read_bytes() in (originals[name], complete[name])
            for name in originals
        }
        assert all(states.values()), states
        done = [name for name in originals if (directory / name).read_bytes() == complete[name]]
        for name in done:
            assert (directory / f"{name}.orig").read_bytes() == originals[name]
        if process.returncode != -signal.SIGKILL:
            assert not temporaries(directory)
            assert len(done) in (0, FILES), done
        left = len(temporaries(directory))
        key = f"{len(done)}/{FILES} migrated, exit {process.returncode}, {left} temporary left"
        outcomes[key] = outcomes.get(key, 0) + 1
        rerun = subprocess.run(
            [*command(directory), "--examples", "1", "--no-diff"],
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        assert {name: (directory / name).read_bytes() for name in originals} == complete
        assert not temporaries(directory)
        for name in originals:
            assert (directory / f"{name}.orig").read_bytes() == originals[name]
    print(f"kill trials: {TRIALS}; outcomes: {outcomes}")
