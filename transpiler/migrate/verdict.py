"""The equivalence verdict for one emitted script, from the harness behind ``check``.

This adapter is the only place ``migrate`` and the library API touch
:mod:`transpiler.harness`. When the harness is not installed, every tool is
``unchecked``: migration never claims a certification it did not get.
"""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from transpiler.config.units import LoadedTool
from transpiler.diagnostics import TranspilerError
from transpiler.emit.report import EmitResult


class Verdict(StrEnum):
    """What the harness concluded about a script."""

    CERTIFIED = "certified"
    DIFFERS = "differs"
    DEVIATES = "deviates"
    OUT_OF_DOMAIN = "out-of-domain"
    NOT_CONVERTED = "not converted"
    UNCHECKED = "unchecked"


@dataclass(frozen=True)
class CheckOptions:
    """The options ``check`` takes: examples per tool, engine, seed."""

    examples: int = 100
    engine: str = "rust"
    seed: int = 0

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckOptions:
        """The options given on a command line built with :func:`add_check_options`."""
        return cls(examples=args.examples, engine=args.engine, seed=args.seed)


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """``--examples``, ``--engine``, ``--seed``, as ``check`` takes them."""
    defaults = CheckOptions()
    parser.add_argument(
        "--examples", type=int, default=defaults.examples, help="scenarios tried per tool"
    )
    parser.add_argument(
        "--engine",
        choices=("rust", "go", "both"),
        default=defaults.engine,
        help="Starlark engine(s) the scripts are checked on",
    )
    parser.add_argument("--seed", type=int, default=defaults.seed, help="scenario seed")


@dataclass(frozen=True)
class ToolCheck:
    """The verdict, a one-line reason, and the harness's own report object (``None`` if none)."""

    verdict: Verdict
    reason: str
    report: Any = None

    @property
    def certified(self) -> bool:
        """Whether the harness certified the script equivalent."""
        return self.verdict is Verdict.CERTIFIED


HARNESS_MODULE = "transpiler.harness.check"


def harness_available() -> bool:
    """Whether the harness's check engine (:mod:`transpiler.harness.check`) is installed."""
    try:
        return importlib.util.find_spec(HARNESS_MODULE) is not None
    except ModuleNotFoundError:
        return False


def check_script(tool: LoadedTool, emitted: EmitResult, options: CheckOptions) -> ToolCheck:
    """Ask the harness whether ``emitted`` behaves exactly like ``tool``."""
    if not harness_available():
        return ToolCheck(
            Verdict.UNCHECKED,
            f"equivalence not checked: the harness ({HARNESS_MODULE}) is not installed",
        )
    from transpiler.harness.check import CheckOptions as HarnessOptions
    from transpiler.harness.check import check_tool

    engines = ("rust", "go") if options.engine == "both" else (options.engine,)
    try:
        report = check_tool(
            tool,
            HarnessOptions(examples=options.examples, engines=engines, seed=options.seed),
            emitted=emitted,
        )
    except (TranspilerError, RecursionError) as error:
        return ToolCheck(
            Verdict.UNCHECKED, f"the equivalence check could not finish: {error or 'too deep'}"
        )
    verdict = {
        "certified": Verdict.CERTIFIED,
        "deviates": Verdict.DEVIATES,
        "differs": Verdict.DIFFERS,
    }.get(report.verdict, Verdict.NOT_CONVERTED)
    reason = report.reason or (
        f"certified on {', '.join(engines)}: {report.scenarios} scenarios, "
        f"{report.distinct_paths} paths"
    )
    return ToolCheck(verdict, reason, report)
