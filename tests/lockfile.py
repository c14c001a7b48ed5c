"""The Python dependency lock, ``requirements.lock``: what it pins for this interpreter, and how
an environment differs from it. ``python -m tests.lockfile --drift LOCK`` prints the releases
installed here that differ from what the lock pins (``./dev test --latest`` shows it)."""

from __future__ import annotations

import argparse
import importlib.metadata
import re
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
#: In every venv, never pinned: the installer itself and this project.
UNPINNED = frozenset({"pip", "vmcp-starlark-transpiler"})


def pins(lock: Path) -> dict[str, str]:
    """Each distribution the lock installs on this interpreter, by canonical name."""
    found: dict[str, str] = {}
    for line in lock.read_text().splitlines():
        match = _PIN.match(line)
        if match is None:
            continue
        name, version, marker = match.groups()
        if marker is None or Marker(marker).evaluate():
            found[canonicalize_name(name)] = version
    return found


def installed() -> dict[str, str]:
    """Each distribution installed in this environment, by canonical name."""
    return {
        canonicalize_name(d.metadata["Name"]): d.version
        for d in importlib.metadata.distributions()
        if canonicalize_name(d.metadata["Name"]) not in UNPINNED
    }


def differences(lock: Path) -> list[str]:
    """``name: lock X, installed Y`` for every distribution where the two disagree."""
    locked, here = pins(lock), installed()
    return [
        f"{name}: lock {locked.get(name, '-')}, installed {here.get(name, '-')}"
        for name in sorted(locked.keys() | here.keys())
        if locked.get(name) != here.get(name)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--drift", type=Path, required=True, metavar="LOCK")
    for line in differences(parser.parse_args().drift) or ["(none)"]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
