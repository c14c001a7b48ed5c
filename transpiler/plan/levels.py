"""Execution levels: vMCP's Kahn levels (S50), computed with networkx.

networkx is imported on first use, not with the package (a tenth of a
second of every process that never plans).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from transpiler.config.model import WorkflowStepConfig

if TYPE_CHECKING:
    import networkx as nx


class PlanError(ValueError):
    """The steps have no execution order (unknown dependency or a cycle)."""


def dependency_graph(steps: Sequence[WorkflowStepConfig]) -> nx.DiGraph:
    """Nodes are step ids; an edge ``d -> s`` for each ``s.dependsOn`` entry ``d``."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(step.id for step in steps)
    for step in steps:
        for dependency in step.depends_on:
            if dependency not in graph:
                raise PlanError(f"step {step.id} depends on unknown step {dependency}")
            graph.add_edge(dependency, step.id)
    return graph


def execution_levels(steps: Sequence[WorkflowStepConfig]) -> tuple[tuple[str, ...], ...]:
    """The levels vMCP runs one after another; inside a level, steps in declaration order.

    A step's level is 0 without dependencies, else one more than its deepest
    dependency; repeated ``dependsOn`` entries change nothing (vMCP counts and
    decrements them alike). vMCP starts a level's steps in Go map order, so the
    order inside a level carries no meaning.
    """
    import networkx as nx

    graph = dependency_graph(steps)
    position = {step.id: index for index, step in enumerate(steps)}
    try:
        generations = list(nx.topological_generations(graph))
    except nx.NetworkXUnfeasible:
        raise PlanError("circular dependency: no execution order") from None
    return tuple(tuple(sorted(level, key=position.__getitem__)) for level in generations)


def ancestors(steps: Sequence[WorkflowStepConfig]) -> dict[str, frozenset[str]]:
    """For each step, every step it transitively depends on."""
    import networkx as nx

    graph = dependency_graph(steps)
    return {node: frozenset(nx.ancestors(graph, node)) for node in graph}
