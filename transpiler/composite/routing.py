"""The session routing table: which backend tool a step's ``tool:`` reference reaches.

One resolution serves both the workflow's own routing (S85) and the
advertise/call gate (S36), as vMCP shares ``ResolveToolRef``
(pkg/vmcp/router/session_router.go) between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class RoutingTarget:
    """Where a routing-table key leads: the workload and its own name for the capability."""

    workload_id: str
    capability: str


def target_of_reference(name: str) -> RoutingTarget:
    """The target a ``<workloadID>.<capability>`` name stands for (split at the first dot).

    A name without a dot, or with a leading one, has no workload: its capability is the
    whole name.
    """
    dot = name.find(".")
    if dot <= 0:
        return RoutingTarget("", name)
    return RoutingTarget(name[:dot], name[dot + 1 :])


class RoutingTable:
    """Routing-table keys (the advertised backend tool names) and their targets."""

    def __init__(self, targets: Mapping[str, RoutingTarget]) -> None:
        self._targets = MappingProxyType(dict(targets))

    @classmethod
    def of_names(cls, names: Iterable[str]) -> RoutingTable:
        """A table whose keys are tool names written as steps write them."""
        return cls({name: target_of_reference(name) for name in names})

    @property
    def names(self) -> tuple[str, ...]:
        """The keys, in insertion order."""
        return tuple(self._targets)

    def resolve(self, reference: str) -> str | None:
        """The key a step's tool reference resolves to, or None.

        pkg/vmcp/router/session_router.go ``ResolveToolRef``: the exact key first, then
        ``<workloadID>.<capability>`` split at the first dot; a leading dot (empty
        workload) never matches, nor does an empty reference.
        """
        if not reference:
            return None
        if reference in self._targets:
            return reference
        dot = reference.find(".")
        if dot <= 0:
            return None
        workload, capability = reference[:dot], reference[dot + 1 :]
        for key, target in self._targets.items():
            if target.workload_id == workload and target.capability == capability:
                return key
        return None
