"""Step time with alerts on: denpex (variant b) alone against denpex alerting to a webhook
that hangs.

Per framework, both variants train the same workload with the same fault (a zero loss from
the first timed step: AMP007 after 20 steps, a warning; unlike a NaN it lets every framework
train to the end, DeepSpeed included), alternately in rotated order. In the alerting variant
``DENPEX_ALERT_WEBHOOK`` points at a local server that takes each request and never answers
and ``DENPEX_ALERT_LEVEL`` is ``warning``, so the alert hangs in the background for the rest of
the run (``DENPEX_ALERT_TIMEOUT`` seconds per try, 3 tries: longer than the run). Result:
the median seconds per step of each and the paired ratio (the alerting run over the plain one
of the same round). Usage:
``.venv/bin/python benchmarks/run_all.py --only alerts`` (tables as
:func:`benchmarks.step_overhead.format_table` prints them).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from benchmarks.frameworks.base import DENPEX, RunResult, RunSpec
from benchmarks.hanging_webhook import hanging_webhook
from benchmarks.step_overhead import each_framework
from benchmarks.timing import compare, rotated_rounds
from benchmarks.workloads import Workload

PLAIN, ALERTING = "b", "b+alerts"
NAMES = {PLAIN: "denpex, default mode", ALERTING: "denpex + alerts to a hanging webhook"}
ALERT_TIMEOUT_S = "2"  # per try; 3 tries outlast a run, and close() then waits 2 x 2 s


@contextlib.contextmanager
def alert_environment(url: str | None) -> Iterator[None]:
    """Alerts to ``url`` from warnings on (None: no alert settings) while a run lasts."""
    names = ("DENPEX_ALERT_WEBHOOK", "DENPEX_ALERT_TIMEOUT", "DENPEX_ALERT_LEVEL")
    saved = {name: os.environ.pop(name, None) for name in names}
    if url is not None:
        os.environ.update(DENPEX_ALERT_WEBHOOK=url, DENPEX_ALERT_TIMEOUT=ALERT_TIMEOUT_S,
                          DENPEX_ALERT_LEVEL="warning")
    try:
        yield
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value


def measure(
    runner: ModuleType, workload: Workload, url: str, *, steps: int, rounds: int,
    warmup: int, fault_step: int,
) -> dict[str, Any]:
    """Rotated rounds of the two variants on one framework."""

    def run_one(variant: str) -> RunResult:
        with tempfile.TemporaryDirectory(prefix="denpex_bench_") as workdir, \
                alert_environment(url if variant == ALERTING else None):
            spec = RunSpec(DENPEX, workload, steps, warmup=warmup, fault="zero",
                           fault_step=fault_step, workdir=workdir)
            result: RunResult = runner.run(spec)
            return result

    runs = rotated_rounds([PLAIN, ALERTING], rounds, run_one)
    table = compare({v: [r.per_step_s for r in results] for v, results in runs.items()}, PLAIN)
    codes = {v: sorted({d["code"] for r in results for d in r.diagnoses})
             for v, results in runs.items()}
    return {"workload": workload.name, "steps": steps, "warmup": warmup, "rounds": rounds,
            "fault": f"zero loss from step {fault_step}", "diagnoses": codes,
            "variants": {v: {"name": NAMES[v], **row} for v, row in table.items()}}


def run(
    workload: Workload, *, steps: int, rounds: int, warmup: int = 10,
    only: list[str] | None = None,
) -> dict[str, Any]:
    """Every available framework (or those in ``only``)."""
    fault_step = warmup  # AMP007 comes 20 steps later, inside the timed steps
    with hanging_webhook() as url:
        return each_framework(
            f"alert overhead ({rounds} rounds x 2 variants x {steps} steps)", only,
            lambda runner: measure(runner, workload, url, steps=steps, rounds=rounds,
                                   warmup=warmup, fault_step=fault_step),
        )
