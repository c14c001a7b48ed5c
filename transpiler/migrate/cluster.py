"""What a migration of Kubernetes manifests does in the cluster, said in the audit.

``kubectl apply -f FILE`` creates and updates what the file holds but deletes
nothing: a ``VirtualMCPCompositeToolDefinition`` the migrated file no longer
holds stays in the cluster until it is deleted. The audit gives the command,
to run once the ``VirtualMCPScriptedToolDefinition`` and the
``VirtualMCPServer`` naming it in ``scriptedToolRefs`` are applied (so that the
tool is never unserved), and says how each server's references change.
"""

from __future__ import annotations

from collections.abc import Sequence

from transpiler.config.model import DocumentKind
from transpiler.inputs.yamlspan import SpanDocument

COMPOSITE = DocumentKind.COMPOSITE_TOOL_DEFINITION.value
SCRIPTED = DocumentKind.SCRIPTED_TOOL_DEFINITION.value


def resource_of(document: SpanDocument) -> tuple[str, str]:
    """A manifest's ``metadata.name`` and ``metadata.namespace`` (``default`` when absent)."""
    root = document.root
    metadata = root.get("metadata") if root is not None else None
    name = metadata.get("name") if metadata is not None else None
    namespace = metadata.get("namespace") if metadata is not None else None
    return (
        (name.text() if name is not None else None) or "",
        (namespace.text() if namespace is not None else None) or "default",
    )


def references_line(server: tuple[str, str], names: Sequence[str], keep: bool) -> str:
    """How a ``VirtualMCPServer``'s references to migrated definitions change."""
    name, namespace = server
    listed = ", ".join(names)
    if keep:
        return (
            f"VirtualMCPServer/{name} (namespace {namespace}): {listed} added to "
            "spec.config.scriptedToolRefs beside spec.config.compositeToolRefs (both forms "
            "until the run that finishes the migration)"
        )
    return (
        f"VirtualMCPServer/{name} (namespace {namespace}): spec.config.compositeToolRefs "
        f"{listed} become spec.config.scriptedToolRefs: the operator serves the {SCRIPTED}s of "
        "those names"
    )


def retired_definition_line(name: str, namespace: str, referenced: bool) -> str:
    """What becomes of a composite definition the migrated file no longer holds."""
    line = (
        f"{COMPOSITE}/{name} (namespace {namespace}): kubectl apply deletes nothing, so it stays "
        f"in the cluster; once the {SCRIPTED} and the VirtualMCPServer are applied, delete it: "
        f"kubectl delete {COMPOSITE.lower()} {name} -n {namespace}"
    )
    if not referenced:
        line += (
            " (no VirtualMCPServer among the inputs names it: where one does, move its "
            "compositeToolRefs entry to scriptedToolRefs first)"
        )
    return line
