"""Step kinds and step keys are declared once (config/model.py); what reads them agrees.

The loader decodes, admission checks and the advice judges exactly the keys
:data:`STEP_FIELDS` declares; every per-kind table of every layer covers every
kind (:func:`exhaustive` fails at import otherwise, and here for a short one).
"""

from __future__ import annotations

from dataclasses import fields
from enum import StrEnum

import pytest

from transpiler.config.admission import COMPOSITE_TOOL
from transpiler.config.build import ModelBuilder
from transpiler.config.godecode import GoDecoder
from transpiler.config.model import (
    STEP_FIELDS,
    STEP_KINDS,
    YAML_KEYS,
    StepKind,
    WorkflowStepConfig,
    exhaustive,
)


def test_every_model_field_but_where_is_a_declared_step_key() -> None:
    attributes = {declared.attribute for declared in STEP_FIELDS.values()}
    assert attributes == {item.name for item in fields(WorkflowStepConfig)} - {"where"}
    assert dict(YAML_KEYS["WorkflowStepConfig"]) == {
        key: declared.attribute for key, declared in STEP_FIELDS.items()
    }


def test_the_loader_and_admission_read_the_declared_keys() -> None:
    builder = ModelBuilder(GoDecoder(kubernetes=False), "<test>", strict_yaml=True)
    assert list(builder.step_decoders) == list(STEP_FIELDS)
    step_schema = COMPOSITE_TOOL.properties["steps"].items
    assert step_schema is not None
    assert set(step_schema.properties) == set(STEP_FIELDS)
    assert step_schema.required == ("id",)
    assert step_schema.properties["type"].enum == ("tool", "elicitation", "forEach")


def test_each_kind_ignores_the_keys_it_neither_uses_nor_rejects() -> None:
    assert STEP_KINDS[StepKind.TOOL].ignores == (
        "message", "schema", "onDecline", "onCancel",
        "collection", "itemVar", "maxParallel", "maxIterations", "step",
    )  # fmt: skip
    assert STEP_KINDS[StepKind.ELICITATION].ignores == (
        "tool", "arguments", "collection", "itemVar", "maxParallel", "maxIterations", "step",
    )  # fmt: skip
    assert STEP_KINDS[StepKind.FOR_EACH].ignores == ("arguments", "schema", "onDecline", "onCancel")


def test_a_table_missing_a_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="forEach"):
        exhaustive(StepKind, {StepKind.TOOL: 1, StepKind.ELICITATION: 2})

    class Colour(StrEnum):
        RED = "red"

    assert dict(exhaustive(Colour, {Colour.RED: 1})) == {Colour.RED: 1}


@pytest.mark.parametrize(
    ("written", "iterations", "parallel"),
    [((0, 0), 100, 10), ((-3, -1), 100, 10), ((7, 2), 7, 2), ((5000, 90), 1000, 50)],
)
def test_for_each_limits(written: tuple[int, int], iterations: int, parallel: int) -> None:
    step = WorkflowStepConfig(max_iterations=written[0], max_parallel=written[1])
    assert (step.iteration_limit, step.parallel_limit) == (iterations, parallel)
