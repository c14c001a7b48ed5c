"""The verdicts of ``check`` on one tool, the same words everywhere (CLI, reports, library)."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """How a script relates to the composite tool it replaces.

    ``equivalent``: no scenario showed any difference. ``equivalent-except``:
    every difference is explained by a deviation class the script declares,
    each shown by a witness. ``differs``: a difference no declared class
    explains (a counterexample). ``not-converted``: there is no script to check
    (vMCP would not run the tool, or it cannot be expressed). ``unchecked``: the
    check could not finish (a limit of ours was met); nothing is claimed.
    ``incomplete``: no scenario differed, but none completed some step of the
    workflow, so the script was never compared with it there (a gap the policy
    may accept by name); or a scenario's difference could not be ruled out within
    the bounds of the search for a reading (the bound is named; nothing accepts it).
    """

    EQUIVALENT = "equivalent"
    EQUIVALENT_EXCEPT = "equivalent-except"
    DIFFERS = "differs"
    NOT_CONVERTED = "not-converted"
    UNCHECKED = "unchecked"
    INCOMPLETE = "incomplete"
