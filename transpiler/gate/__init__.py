"""The gate over many tools: each pair checked through the pipeline, and the gate measuring itself.

- :mod:`~transpiler.gate.batch`: every selected pair of a set of inputs checked (in worker
  processes), one result per pair.
- :mod:`~transpiler.gate.mutation`: mutants of each pair's script run through the same checks.

It sits above :mod:`transpiler.pipeline`, which checks one tool with :mod:`transpiler.harness`.
"""
