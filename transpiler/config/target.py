"""What a configuration is judged against: which vMCP will load it (``--target``).

- ``vmcp``: vMCP as toolhive main holds it (e25de16): composite tools only; a
  ``scriptedTools`` key is an unknown field and the
  ``VirtualMCPScriptedToolDefinition`` kind does not exist.
- ``thv-0051``: that vMCP plus scripted tools as the draft RFC THV-0051 defines
  them: the ``scriptedTools``/``scriptedToolRefs`` and ``starlarkConfig`` config
  fields, the ``VirtualMCPScriptedToolDefinition`` resource, each with vMCP's
  strictness (an unknown field is refused). The RFC's ``ScriptedToolConfig``
  has no ``annotations``.
- ``thv-0051+annotations``: ``thv-0051`` for a vMCP build whose scripted tools
  also take ``annotations`` (MCP's title and hints), as composite tools do.

``migrate`` and ``check`` judge against :data:`DEFAULT_TARGET`; ``validate``
does for a file that holds scripted tools, and against ``vmcp`` otherwise
(docs/target.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from transpiler.diagnostics import InputError


@dataclass(frozen=True)
class Target:
    """One vMCP a configuration is judged against: whether it loads scripted tools, and
    whether those take ``annotations``."""

    name: str
    description: str
    scripted: bool = False
    annotations: bool = False

    def __str__(self) -> str:
        return self.name


VMCP: Final = Target("vmcp", "vMCP at toolhive e25de16: composite tools only")
THV_0051: Final = Target(
    "thv-0051",
    "vMCP at e25de16 with THV-0051's scripted tools as the draft RFC defines them "
    "(no annotations on a scripted tool)",
    scripted=True,
)
THV_0051_ANNOTATIONS: Final = Target(
    "thv-0051+annotations",
    "thv-0051 for a vMCP build whose scripted tools also take annotations (title and hints)",
    scripted=True,
    annotations=True,
)
#: Every target, by name.
TARGETS: Final = MappingProxyType(
    {target.name: target for target in (VMCP, THV_0051, THV_0051_ANNOTATIONS)}
)
#: What ``migrate`` and ``check`` judge against unless told otherwise.
DEFAULT_TARGET: Final = THV_0051


def target_named(name: str, origin: str = "--target") -> Target:
    """The target called ``name``; an :class:`InputError` naming ``origin`` for any other."""
    found = TARGETS.get(name)
    if found is None:
        raise InputError(f"{origin}: unknown target {name!r} (known: {', '.join(TARGETS)})")
    return found
