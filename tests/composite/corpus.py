"""Reading our scenario corpus (corpus/scenarios, layout in its README)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import CORPUS
from transpiler.config.loader import load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.sim.scenario import Scenario, load_scenario
from transpiler.validate import validate

SCENARIOS = CORPUS / "scenarios"
EXPECT_SUFFIX = ".expect.yaml"
ALL_PHASES = ("admission", "operator", "P1", "P2", "P3", "P4")


@dataclass(frozen=True)
class CorpusCase:
    """One corpus case: tool, scenario, the rules it pins and what it expects."""

    tool: CompositeToolConfig
    scenario: Scenario
    rules: tuple[str, ...]
    expect: dict[str, Any]
    schedules: dict[str, Any] | None
    #: Every composite tool of the section's config (the vMCP serving the tool).
    served: tuple[CompositeToolConfig, ...] = ()
    #: What the advertise/call gate makes of the tool: ``annotations`` (the wire form it is
    #: listed with, null for none) or ``hidden`` (the reason) and ``hint``.
    advertise: dict[str, Any] | None = None


def expect_files() -> list[Path]:
    """Every corpus expectation file, sorted."""
    return sorted(SCENARIOS.glob(f"*/*{EXPECT_SUFFIX}"))


def case_id(path: Path) -> str:
    """``<section>/<case>[S1+S2]`` (the rule ids name the test)."""
    rules = yaml.safe_load(path.read_text(encoding="utf-8")).get("rules", [])
    return f"{path.parent.name}/{path.name.removesuffix(EXPECT_SUFFIX)}[{'+'.join(rules)}]"


@cache
def section_tools(tools_file: Path) -> dict[str, CompositeToolConfig]:
    """The section's tools by name, after checking vMCP would run every one of them."""
    load = load_paths([tools_file])
    assert not load.errors and not load.unreadable, [d.render() for d in load.errors]
    for unit in validate(load).units:
        failed = unit.first_failure(ALL_PHASES)
        assert failed is None, f"{tools_file}: {failed.phase}: {failed.message}"
    return {tool.effective.name: tool.effective for tool in load.tools}


def load_case(path: Path) -> CorpusCase:
    """Read one corpus case from its expectation file."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    stem = path.name.removesuffix(EXPECT_SUFFIX)
    scenario = load_scenario(path.with_name(f"{stem}.scenario.yaml"))
    tools = section_tools(path.parent / "tools.yaml")
    assert scenario.tool in tools, f"{path}: scenario names unknown tool {scenario.tool}"
    return CorpusCase(
        tool=tools[scenario.tool],
        scenario=scenario,
        rules=tuple(document.get("rules", ())),
        expect=document["expect"],
        schedules=document.get("schedules"),
        served=tuple(tools.values()),
        advertise=document.get("advertise"),
    )
