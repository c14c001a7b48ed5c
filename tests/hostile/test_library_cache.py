"""The library's cache keys hold everything a result depends on.

api.py and docs/library.md: the library is "cached by content hash" and
loading an unchanged configuration again reuses its results. A script file
(``scriptFile:``) and the modules a script ``load()``s are content too: after
either changes, ``load()`` and ``check()`` see the new text, never a cached
verdict on the old one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import transpiler
from tests.hostile.pairing import PAIRING, copy
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions

QUICK = CheckOptions(examples=2, paths=2)
PASSING = (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT)


def test_a_changed_script_file_is_read_again(tmp_path: Path) -> None:
    """A script file edited between two load() calls: the second check judges the new text."""
    config = copy("script-file-below.yaml", tmp_path)
    script = copy("good.star", tmp_path / "workflows")
    assert transpiler.load(config).check("echo", options=QUICK).verdict in PASSING
    shutil.copy(PAIRING / "wrong.star", script)
    assert transpiler.load(config).check("echo", options=QUICK).verdict is Verdict.DIFFERS
    shutil.copy(PAIRING / "good.star", script)
    assert transpiler.load(config).check("echo", options=QUICK).verdict in PASSING


def test_a_changed_module_is_read_again(tmp_path: Path) -> None:
    """A module edited between two checks: the second check runs the new module."""
    config = copy("loads-lib.yaml", tmp_path)
    module = tmp_path / "lib.star"
    module.write_text('target = "svc.echo"\n')
    assert transpiler.load(config).check("echo", options=QUICK).verdict in PASSING
    module.write_text('target = "other.tool"\n')
    assert transpiler.load(config).check("echo", options=QUICK).verdict is Verdict.DIFFERS


def test_an_unchanged_configuration_is_still_one_cached_object(tmp_path: Path) -> None:
    """The keys grew, the cache still works: nothing changed, the same Config."""
    config = copy("script-file-below.yaml", tmp_path)
    copy("good.star", tmp_path / "workflows")
    assert transpiler.load(config) is transpiler.load(config)
