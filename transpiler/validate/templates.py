"""The two ways vMCP parses templates at load time, and the step references it extracts."""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.gotemplate import TemplateSyntaxError, extract_references, parse


def template_error(text: str, name: str = "validation") -> str | None:
    """Go's parse error for ``text`` (``template: validation:1: ...``), or ``None``."""
    try:
        parse(text, name)
    except TemplateSyntaxError as error:
        return error.go_message
    return None


@dataclass(frozen=True)
class OutputFieldRef:
    """``.steps.<step>.output.<field>``: what the defaultResults rule looks for (S23)."""

    step: str
    field: str


def output_field_refs(text: str) -> list[OutputFieldRef]:
    """vMCP's ``extractStepFieldRefsFromTemplate``: unique refs in first-seen order.

    Raises :class:`TemplateSyntaxError` (named ``extract``) when the text does
    not parse.
    """
    chains = extract_references(parse(text, "extract"))
    refs: list[OutputFieldRef] = []
    for chain in chains:
        if len(chain) >= 4 and chain[0] == "steps" and chain[2] == "output":
            ref = OutputFieldRef(chain[1], chain[3])
            if ref not in refs:
                refs.append(ref)
    return refs
