"""Building composite tools and scenarios inline for rule tests."""

from __future__ import annotations

from typing import Any

import yaml

from transpiler.config.loader import load_bytes
from transpiler.config.model import CompositeToolConfig
from transpiler.sim.scenario import Scenario, scenario_from_document


def tool(text: str) -> CompositeToolConfig:
    """One composite tool from the YAML of a ``compositeTools`` entry (loader defaults applied)."""
    indented = "\n".join("    " + line for line in text.strip("\n").splitlines())
    load = load_bytes(f"compositeTools:\n  -\n{indented}\n".encode())
    assert not load.errors and len(load.tools) == 1, [d.render() for d in load.errors]
    return load.tools[0].effective


def scenario(text: str = "", **overrides: Any) -> Scenario:
    """A scenario from YAML text, with top-level fields replaced by ``overrides``."""
    document = yaml.safe_load(text) or {}
    document.update(overrides)
    return scenario_from_document(document)
