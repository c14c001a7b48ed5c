"""Warnings for composite tools vMCP would not advertise (P5, S36).

With the backends' annotations (a ``--tools`` file) the floor is derived from
them; without, every step tool counts as unknown, vMCP's conservative floor.
The annotation contradiction is judged per tool, and the name collision per
unit (a composite tool named like a backend tool some composite tool of the
unit calls, or the ``--tools`` file lists, hides every composite tool there);
which tools a session can route to is not known from a config.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from transpiler.composite.advertise import (
    BackendCatalog,
    Hidden,
    HiddenBecause,
    annotation_verdict,
    gate,
    implied_catalog,
)
from transpiler.config.units import LoadedTool
from transpiler.diagnostics import Diagnostic, Severity


def gate_warnings(tool: LoadedTool, catalog: BackendCatalog) -> Iterator[Diagnostic]:
    """A warning when the tool's explicit annotations contradict its derived floor."""
    config = tool.effective
    verdict = annotation_verdict(config, catalog)
    if not isinstance(verdict, Hidden) or verdict.hint is None:
        return
    annotations = config.annotations
    where = annotations.where.of(verdict.hint) if annotations is not None else config.where.at
    yield Diagnostic(
        "S36",
        f"vMCP will not list or run this tool ({verdict.hint}): {verdict.detail}",
        where,
        Severity.WARNING,
        config.name or None,
        None,
        "P5",
    )


def collision_warnings(
    tools: Sequence[LoadedTool], catalog: BackendCatalog
) -> Iterator[Diagnostic]:
    """A warning on each composite tool of a unit named like a backend tool (one the unit's
    composite tools call, or ``catalog`` lists): vMCP then lists none of them (:func:`gate`)."""
    configs = [tool.effective for tool in tools]
    implied = implied_catalog(configs, catalog.annotations)
    verdicts = gate(configs, implied)
    for config in configs:
        verdict = verdicts.get(config.name)
        colliding = isinstance(verdict, Hidden) and verdict.because is HiddenBecause.NAME_COLLISION
        if colliding and config.name in implied.routing.names:
            yield Diagnostic(
                "S36",
                f"vMCP will list or run none of the composite tools beside this one: its name "
                f"{config.name} is also a backend tool's",
                config.where.at,
                Severity.WARNING,
                config.name or None,
                None,
                "P5",
            )
