"""The comment at the top of a script, in either style: what it is, then lists of notes.

Each style says what its header holds (the lines that introduce the script,
then titled sections of notes) and how wide its bullets wrap; every line is
made inert when it is written (:class:`transpiler.emit.ir.Comment`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from transpiler.emit.ir import Comment, print_statements


def header_comment(
    intro: Sequence[str], sections: Sequence[tuple[str, Sequence[str]]], width: int
) -> str:
    """``# `` lines: ``intro``, then each section that has items, after a blank comment
    line: its title and its items as ``  - `` bullets wrapped at ``width`` columns."""
    lines = list(intro)
    for title, items in sections:
        if not items:
            continue
        lines += ["", title]
        for item in items:
            lines += textwrap.wrap(
                item, width=width, initial_indent="  - ", subsequent_indent="    "
            )
    return print_statements([Comment("\n".join(lines))]).text
