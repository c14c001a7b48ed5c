"""The policy file says exactly one thing, or ``check`` stops and says where it is wrong.

policy.py and docs/reference.md ("A policy file"): unknown keys and values of the wrong
type are errors naming the file and the key; the policy pins the gate "so
every CI run is the same run", so nothing in it is silently ignored: not
``strict: "true"`` (text), not a key given twice, not a second document.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.hostile.pairing import QUICK, check, copy

POLICIES = CORPUS / "hostile" / "policy"
#: Each refused policy and the key its error names.
REFUSED = {
    "strict-text.yaml": "strict",
    "strict-number.yaml": "strict",
    "strict-yes.yaml": "strict",
    "strict-and-accept.yaml": "strict",
    "key-twice.yaml": '"strict" already defined',
    "examples-text.yaml": "examples",
    "paths-fraction.yaml": "paths",
    "engines-unknown.yaml": "engines",
    "accept-number.yaml": "accept",
    "two-documents.yaml": "a second YAML document",
    "nested-3000.yaml": "nest",
    "changes-unknown-kind.yaml": "changes: unknown kind of change 'rewrite'",
    "changes-bad-level.yaml": "changes: widen: give allow, warn or deny, not 'fail'",
    "changes-list.yaml": "changes: give a mapping of change kinds",
    "changes-boolean.yaml": "changes: record: give allow, warn or deny, not True",
}
#: The line each refused ``changes`` policy names.
LINES = {
    "changes-unknown-kind.yaml": 4,
    "changes-bad-level.yaml": 2,
    "changes-list.yaml": 2,
    "changes-boolean.yaml": 3,
}


def with_policy(policy: str | Path, tmp_path: Path) -> Path:
    """``beside-good.yaml`` (it passes, showing ``error-text``) with ``policy`` next to it."""
    config = copy("beside-good.yaml", tmp_path)
    target = tmp_path / "vmcp-transpile.yaml"
    if isinstance(policy, Path):
        shutil.copy(policy, target)
    else:
        target.write_text(policy)
    return config


@pytest.mark.parametrize("name", REFUSED)
def test_a_policy_that_says_something_else_exits_2_naming_file_and_key(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong type, a contradiction, a key twice, a second document, deep nesting: exit 2,
    naming the policy file and the key."""
    config = with_policy(POLICIES / name, tmp_path)
    code, out, err = check(capsys, config, *QUICK)
    assert code == 2, out
    assert f"{tmp_path / 'vmcp-transpile.yaml'}" in err and REFUSED[name] in err
    if name in LINES:
        assert f"{tmp_path / 'vmcp-transpile.yaml'}:{LINES[name]}:" in err


@pytest.mark.parametrize(
    ("policy", "code"),
    [("strict: true\n", 1), ("strict: false\n", 0), ("strict:\n", 0), ("accept: []\n", 1)],
)
def test_the_switches_themselves_still_work(
    policy: str, code: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``strict: true`` (or ``accept: []``) fails a script that shows a declared class."""
    config = with_policy(policy, tmp_path)
    assert check(capsys, config, *QUICK)[0] == code
