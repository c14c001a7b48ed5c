"""The differential test: generated templates and contexts, rendered by us and by Go.

Runs ``GOTEMPLATE_DIFF_CASES`` cases per seed (default 3400) for each seed in
``GOTEMPLATE_DIFF_SEEDS`` (default three), batched through one oracle process,
on vMCP's Go 1.26 (every case compared), and on Debian's Go 1.19 fallback
(newer-Go constructs counted apart, see ``differential``) for the first seed, or
for every seed under ``HYPOTHESIS_PROFILE=deep``; the terminal summary reports
the count, seeds and agreement of each.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.conftest import SUMMARY, fuzz_budget
from tests.gotemplate.differential import AGREE, DISAGREE, VMCP_GO, compare
from tests.gotemplate.strategies import Case, batch_strategy
from transpiler.cli.template import render_request
from transpiler.gobuild import version_numbers
from transpiler.gotemplate.oracle import GoOracle
from transpiler.gotemplate.protocol import RenderRequest

SEEDS = [int(s) for s in os.environ.get("GOTEMPLATE_DIFF_SEEDS", "20260101,7,31337").split(",")]
CASES_PER_SEED = int(os.environ.get("GOTEMPLATE_DIFF_CASES", "3400"))
#: The fallback's seeds: where vMCP's Go is there it is not the oracle, so CI gives it one seed.
FALLBACK_SEEDS = SEEDS if fuzz_budget(1) > 1 else SEEDS[:1]
BATCH = 20


def _run_seed(oracle: GoOracle, seed_value: int, tally: Counter[str]) -> None:
    @seed(seed_value)
    @settings(
        max_examples=CASES_PER_SEED // BATCH,
        database=None,
        derandomize=False,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(batch_strategy(BATCH))
    def check(batch: list[Case]) -> None:
        requests = [RenderRequest(case.template, case.context) for case in batch]
        for request, go in zip(requests, oracle.render_many(requests), strict=True):
            verdict = compare(request.template, go, render_request(request), oracle.go_version)
            tally[verdict.kind] += 1
            tally["ok" if go.ok else "error"] += 1
            assert verdict.kind != DISAGREE, (
                f"template {request.template!r}\ncontext {request.context!r}\n{verdict.detail}"
            )

    check()


@pytest.mark.go
def test_generated_templates_render_as_go_does(
    oracle_per_toolchain: GoOracle, record_property: Callable[[str, object], None]
) -> None:
    """At least 10,000 generated cases agree with vMCP's Go text/template, and a seed's worth
    with the fallback's (100% agreement)."""
    oracle = oracle_per_toolchain
    vmcp_go = version_numbers(oracle.go_version) >= VMCP_GO
    seeds = SEEDS if vmcp_go else FALLBACK_SEEDS
    started = time.monotonic()
    tally: Counter[str] = Counter()
    for seed_value in seeds:
        _run_seed(oracle, seed_value, tally)
    cases = (
        tally[AGREE] + tally[DISAGREE] + sum(v for k, v in tally.items() if k.startswith("go1."))
    )
    compared = tally[AGREE] + tally[DISAGREE]
    apart = [f"{k}: {v}" for k, v in sorted(tally.items()) if k.startswith("go1.")]
    record_property(
        SUMMARY,
        f"{oracle.go_version}: {cases} cases, seeds {seeds}, {time.monotonic() - started:.1f}s; "
        f"Go rendered {tally['ok']} and failed {tally['error']}; "
        f"agreement {tally[AGREE]}/{compared}; "
        + (f"counted apart (newer-Go constructs): {', '.join(apart)}" if apart else "none apart")
    )
    assert tally[DISAGREE] == 0
    assert cases >= len(seeds) * CASES_PER_SEED // BATCH * BATCH
    assert not vmcp_go or cases >= 10_000
    if vmcp_go:
        assert compared == cases, "on vMCP's Go every case is compared"
