"""Installs that do not drift: ``./dev`` and CI install exactly ``requirements.lock``."""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO_ROOT
from tests.lockfile import differences, pins

LOCK = REPO_ROOT / "requirements.lock"


def test_the_venv_holds_exactly_the_lock() -> None:
    assert differences(LOCK) == []


def test_the_lock_pins_every_dependency_with_hashes_and_within_pyproject_ranges() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    wanted = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["dev"],
        *project["build-system"]["requires"],
    ]
    locked = pins(LOCK)
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is not in the lock: run ./dev lock"
        assert requirement.specifier.contains(locked[name], prereleases=True), (name, text)
    lines = LOCK.read_text().splitlines()
    pinned = [i for i, line in enumerate(lines) if "==" in line and not line.startswith("#")]
    assert pinned, "the lock pins nothing"
    for i in pinned:
        assert lines[i + 1].strip().startswith("--hash=sha256:"), f"no hashes: {lines[i]}"


def test_users_get_ranges_not_pins() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    loose = [d for d in project["project"]["dependencies"] if "==" not in d]
    # unicodedata2 is pinned on purpose: its version is the Unicode of vMCP's Go.
    assert [d for d in project["project"]["dependencies"] if d not in loose] == [
        "unicodedata2==15.0.0"
    ]
