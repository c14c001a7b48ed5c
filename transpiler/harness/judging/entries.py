"""The ``tools/list`` entries of a composite tool and of its script, compared field by field.

vMCP's entry is :func:`~transpiler.listing.listed` (given the backends' annotations); the
script's is its scripted entry as written, or the one ``migrate`` writes when there is none
yet (:func:`~transpiler.listing.migrated`). Each field that differs is a
:class:`ListingDifference` at its own site (``description``, ``inputSchema``,
``outputSchema``, ``annotations.<hint>``), of class ``listing``, or ``listing-safety`` where
the script looks safer than vMCP lists the tool. A composite tool vMCP hides is one
difference at site ``visibility``: the scripted tool is listed where vMCP lists nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from transpiler.composite.advertise import (
    DESTRUCTIVE,
    OPEN_WORLD,
    READ_ONLY,
    Hidden,
    HiddenBecause,
)
from transpiler.config.model import CompositeToolConfig
from transpiler.config.tool_annotations import TITLE, annotations_to_mcp
from transpiler.deviations import Deviation
from transpiler.listing import (
    BackendAnnotations,
    ListedTool,
    floor_sources,
    hint_differences,
)

#: The site of a composite tool vMCP does not list.
VISIBILITY = "visibility"
#: The hint each contradiction is about, and the value vMCP's floor holds for it.
_FLOOR_VALUE = {READ_ONLY: False, DESTRUCTIVE: True, OPEN_WORLD: True}


@dataclass(frozen=True)
class ListingDifference:
    """One field of the ``tools/list`` entry that differs: its site, and the sentence that
    shows both sides (the witness)."""

    site: str
    witness: str
    safety: bool = False
    #: The witness in a few words, for a console (the witness when empty).
    brief: str = ""

    @property
    def deviation(self) -> Deviation:
        """The class of the difference."""
        return Deviation.LISTING_SAFETY if self.safety else Deviation.LISTING

    def render(self) -> str:
        """``listing-safety at annotations.destructiveHint: destructiveHint: vMCP true (...),
        script: false``."""
        return f"{self.deviation} at {self.site}: {self.witness}"

    def to_json(self) -> dict[str, Any]:
        """The difference for the JSON report."""
        return {"class": self.deviation, "site": self.site, "witness": self.witness}


def listing_differences(
    tool: CompositeToolConfig,
    vmcp: ListedTool | Hidden,
    script: ListedTool,
    backends: BackendAnnotations | None = None,
) -> tuple[ListingDifference, ...]:
    """Each field of the entry ``script`` that differs from vMCP's (``vmcp``, for ``tool``
    given ``backends``)."""
    if isinstance(vmcp, Hidden):
        return (_hidden(tool, vmcp, script, backends),)
    found = [
        ListingDifference(site, f"{site}: vMCP {_text(ours)}, script: {_text(theirs)}")
        for site, ours, theirs in (
            ("name", vmcp.name, script.name),
            ("description", vmcp.description, script.description),
            ("inputSchema", vmcp.input_schema, script.input_schema),
            ("outputSchema", vmcp.output_schema, script.output_schema),
        )
        if _canonical(ours) != _canonical(theirs)
    ]
    ours, theirs = (_title(side) for side in (vmcp, script))
    if ours != theirs:
        witness = f"{TITLE}: vMCP {_text(ours)}, script: {_text(theirs)}"
        found.append(ListingDifference(f"annotations.{TITLE}", witness))
    found += [
        ListingDifference(
            f"annotations.{hint.hint}", hint.render(), hint.drops_safety, hint.brief()
        )
        for hint in hint_differences(tool, script.annotations, backends)
    ]
    return tuple(found)


def _hidden(
    tool: CompositeToolConfig,
    hidden: Hidden,
    script: ListedTool,
    backends: BackendAnnotations | None,
) -> ListingDifference:
    """The scripted tool is listed where vMCP lists nothing; a safety drop when vMCP hides the
    tool for a hint the scripted tool is listed with."""
    if hidden.because is HiddenBecause.ANNOTATION_CONTRADICTION and hidden.hint is not None:
        floor_value = _FLOOR_VALUE[hidden.hint]
        sources = floor_sources(tool, hidden.hint, floor_value, backends or {})
        why = (
            f"{hidden.hint}={str(not floor_value).lower()} contradicts the floor derived from "
            f"{', '.join(sources)}"
        )
        kept = (annotations_to_mcp(script.annotations) or {}).get(hidden.hint)
        safety = kept is (not floor_value)
    else:
        why, safety = hidden.detail, False
    witness = f"vMCP does not list {tool.name} ({why}); the scripted tool is listed"
    return ListingDifference(VISIBILITY, witness, safety)


def _title(entry: ListedTool) -> Any:
    return (annotations_to_mcp(entry.annotations) or {}).get(TITLE)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _text(value: Any) -> str:
    return "absent" if value is None else json.dumps(value, sort_keys=True, default=str)
