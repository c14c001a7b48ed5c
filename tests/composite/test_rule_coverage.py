"""Every runtime rule of composite-semantics.md sections C-Q is pinned by a named test.

A rule counts as pinned when its id (``S<n>``) appears in a test name or
docstring under tests/composite, or in the ``rules:`` of a corpus case (whose
test id carries the rule ids).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.composite.corpus import expect_files
from tests.conftest import SHARED

SEMANTICS = SHARED / "reference" / "composite-semantics.md"
TESTS = Path(__file__).parent
RULE = re.compile(r"\bS(\d+)\b")
SECTION = re.compile(r"^## ([A-Z])\. ", re.MULTILINE)


def runtime_rules() -> set[str]:
    """Rule ids defined (``S<n>.`` at the start of a line) in sections C through Q."""
    text = SEMANTICS.read_text(encoding="utf-8")
    sections = list(SECTION.finditer(text))
    rules: set[str] = set()
    for index, match in enumerate(sections):
        if not "C" <= match.group(1) <= "Q":
            continue
        end = sections[index + 1].start() if index + 1 < len(sections) else len(text)
        body = text[match.end() : end]
        rules.update(f"S{n}" for n in re.findall(r"^S(\d+)\.", body, re.MULTILINE))
    return rules


def pinned_rules() -> set[str]:
    """Rule ids named by tests (names and docstrings) and by corpus cases."""
    named: set[str] = set()
    for path in TESTS.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        source = path.read_text(encoding="utf-8")
        for definition in re.finditer(
            r'def (test_\w+)\([^)]*\)[^:]*:\s*(?:"""(.*?)""")?', source, re.S
        ):
            named.update(f"S{n}" for n in RULE.findall(definition.group(1).replace("_", " ")))
            named.update(f"S{n}" for n in RULE.findall(definition.group(2) or ""))
    for path in expect_files():
        named.update(yaml.safe_load(path.read_text(encoding="utf-8")).get("rules", []))
    return named


def test_the_reference_defines_the_runtime_rules() -> None:
    rules = runtime_rules()
    assert {"S40", "S56", "S113", "S136", "S162"} <= rules and len(rules) > 70


def test_every_runtime_rule_is_pinned_by_a_test() -> None:
    missing = sorted(runtime_rules() - pinned_rules(), key=lambda rule: int(rule[1:]))
    assert missing == [], f"rules without a test: {missing}"
