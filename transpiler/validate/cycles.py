"""Dependency cycles: the strongly connected components that contain one (Tarjan, iterative)."""

from __future__ import annotations

from collections.abc import Mapping


def cyclic_components(graph: Mapping[str, tuple[str, ...]]) -> list[list[str]]:
    """Strongly connected components that contain a cycle, in step order (Tarjan, iterative)."""
    order = list(graph)
    position = {node: index for index, node in enumerate(order)}
    index_of: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in order:
        if root in index_of:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, edge = work.pop()
            if edge == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = [t for t in graph.get(node, ()) if t in graph]
            if edge < len(targets):
                work.append((node, edge + 1))
                target = targets[edge]
                if target not in index_of:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index_of[target])
                continue
            if low[node] == index_of[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    components.append(sorted(component, key=position.__getitem__))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(components, key=lambda component: position[component[0]])
