"""The ``printf`` verbs: what each style of script makes of a verb of Go's ``fmt``.

:data:`VERBS` is the one table of them. The exact emitter accepts a format
whose verbs ``vmcp_compat.star``'s ``go_sprintf`` reproduces for every
operand; the readable emitter writes a format whose verbs all have a plain
Starlark ``%`` verb. A verb missing from the table is one neither style
writes. ``go_sprintf``'s chain of verbs is held to the table by a test (the
helper file is shipped, and inlined into scripts, as it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Final


class Support(Enum):
    """How ``go_sprintf`` formats a verb."""

    EXACT = "exact"  # as Go's fmt does, every operand
    PARTIAL = "partial"  # some operands only (the exact emitter refuses formats using it)


@dataclass(frozen=True)
class Verb:
    """A verb: ``go_sprintf``'s support, whether it honours the ``+`` flag with it, and the
    Starlark ``%`` verb a readable script writes for it (None: no plain form)."""

    support: Support
    plus: bool = True
    plain: str | None = None


_EXACT, _PARTIAL = Support.EXACT, Support.PARTIAL

VERBS: dict[str, Verb] = {
    "v": Verb(_EXACT, plain="s"),
    "s": Verb(_EXACT, plain="s"),
    "d": Verb(_EXACT, plain="d"),
    "q": Verb(_EXACT, plus=False),  # %+q is ASCII-only quoting
    "t": Verb(_EXACT),
    "f": Verb(_EXACT),
    "F": Verb(_EXACT),
    "e": Verb(_EXACT),
    "E": Verb(_EXACT),
    "g": Verb(_EXACT),
    "G": Verb(_EXACT),
    "x": Verb(_PARTIAL),  # integers and strings; a float's hexadecimal form is not written
    "X": Verb(_PARTIAL),
    "%": Verb(_EXACT, plain="%"),
}


#: One verb of a ``%`` format, Go's fmt's or a script's: its flags, width and precision,
#: then its letter (``%%``, a percent sign, matches too).
FORMAT_VERB: Final = re.compile(r"%(?:%|[-+# 0]*\d*(?:\.\d*)?.)")


def format_verbs(text: str) -> list[str]:
    """Each verb of the ``%`` format ``text`` as written (``%5.1f``), in order, but ``%%``."""
    return [verb for verb in FORMAT_VERB.findall(text) if verb != "%%"]
