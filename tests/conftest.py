"""Shared pytest configuration: hypothesis profiles and paths to shared references."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
UPSTREAM_CORPUS = SHARED / "upstream-corpus"
CORPUS = REPO_ROOT / "corpus"

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
settings.register_profile(
    "deep",
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def fuzz_budget(ci_examples: int) -> int:
    """Examples for a costly fuzz test: few in CI, the profile's own under a longer profile."""
    if os.environ.get("HYPOTHESIS_PROFILE", "default") == "default":
        return ci_examples
    return settings().max_examples


def outputs_across_hash_seeds(program: str, seeds: Iterable[str]) -> set[str]:
    """What ``python -c program`` prints under each PYTHONHASHSEED (one text if deterministic)."""
    return {
        subprocess.run(
            [sys.executable, "-c", program],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in seeds
    }
