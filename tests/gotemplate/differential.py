"""Comparing our renderer with Go's: the oracle runs vMCP's Go 1.26, or Debian's 1.19.

Both results must be identical: the same output bytes, or the same error
class (parse or exec) with the same Go message. Our renderer follows Go 1.26,
and an oracle on Go 1.26 is compared exactly. Only an older oracle (the Go 1.19
fallback) gets these allowances for what changed in between:

- messages normalised before comparing: ``eq``/``lt``… name the types
  (``incompatible types for comparison: float64 and int``, 1.19 omits them);
  ``call`` names its callee (``non-function .x of type …``);
- cases left out of the agreement count, counted apart: ``{{else with}}``
  (Go 1.23+; 1.19 rejects it as ``unexpected <with> in else``); ``range``
  over an integer (Go 1.22+; 1.19 says ``range can't iterate over 3``); and a
  ``)`` without its ``(``: Go 1.19's lexer still emits the ``)`` before its
  error, so the parser words the error (``unexpected ")" in command``), while
  the rewritten lexer (Go 1.20+) stops at ``unexpected right paren`` and the
  parser may word it otherwise; both must be parse errors on the same line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from transpiler.gobuild import version_numbers
from transpiler.gotemplate.protocol import RenderResult

AGREE = "agree"
DISAGREE = "disagree"
ELSE_WITH = "go1.23 else-with"
RANGE_INT = "go1.22 range-over-int"
STRAY_PAREN = "go1.20 stray-right-paren"

_INCOMPATIBLE = re.compile(r"incompatible types for comparison: .+ and .+$")
_CALL = re.compile(r"error calling call: non-function .* of type (.+)$")
_RIGHT_PAREN_119 = re.compile(r'(unexpected "\)" in .+|unexpected right paren U\+0029 \'\)\')$')
_PARSE_LINE = re.compile(r"^template: [^:]*:\d+: ")
_RANGE_INT_119 = re.compile(r"range can't iterate over -?\d+$")
VMCP_GO = (1, 26)


@dataclass(frozen=True)
class Verdict:
    """How one case compared."""

    kind: str
    detail: str = ""


def _normalise_ours(result: RenderResult) -> RenderResult:
    if result.ok:
        return result
    error = _INCOMPATIBLE.sub("incompatible types for comparison", result.error)
    error = _CALL.sub(r"error calling call: non-function of type \1", error)
    return RenderResult(ok=False, kind=result.kind, error=error)


def _same_parse_line(go: RenderResult, ours: RenderResult) -> bool:
    if go.kind != "parse" or ours.kind != "parse":
        return False
    go_line, our_line = _PARSE_LINE.match(go.error), _PARSE_LINE.match(ours.error)
    return go_line is not None and our_line is not None and go_line[0] == our_line[0]


def compare(template: str, go: RenderResult, ours: RenderResult, go_version: str) -> Verdict:
    """The verdict for one case, given Go's (from Go ``go_version``) and our results."""
    if version_numbers(go_version) >= VMCP_GO:
        return _exactly(go, ours)
    if not go.ok and "else with" in template and go.error.endswith("unexpected <with> in else"):
        return Verdict(ELSE_WITH)
    if not go.ok and _RANGE_INT_119.search(go.error):
        return Verdict(RANGE_INT)
    if _RIGHT_PAREN_119.search(go.error) and _same_parse_line(go, ours):
        return Verdict(STRAY_PAREN)
    return _exactly(go, _normalise_ours(ours))


def _exactly(go: RenderResult, ours: RenderResult) -> Verdict:
    if (go.ok, go.out, go.kind, go.error) == (ours.ok, ours.out, ours.kind, ours.error):
        return Verdict(AGREE)
    return Verdict(DISAGREE, f"go:   {go}\nours: {ours}")
