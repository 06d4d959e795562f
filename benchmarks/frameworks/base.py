"""What every framework runner takes and returns.

A runner is one function ``run(spec) -> RunResult`` that trains ``spec.workload`` for
``spec.steps`` fp16 steps with one of the variants below, ticking ``spec.clock`` at the end of
each optimizer step. Adding a framework to the benchmarks and the GPU check is one module with
that function (and the constants listed in :data:`benchmarks.frameworks.FRAMEWORKS`) plus a line
there.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.syncs import SyncCounter, hook_names
from benchmarks.timing import StepClock
from benchmarks.workloads import Workload
from denpex_callbacks.locate.capture import StepCaptures

NONE, DENPEX, NAIVE, HEAVY = "a", "b", "c", "d"
DEVICE_PATH = "b+device"  # variant b through the device path (the CPU stand-in of CUDA's)
VARIANT_NAMES = {
    NONE: "no callback",
    DENPEX: "denpex, default mode",
    DEVICE_PATH: "denpex, device path (CPU stand-in)",
    NAIVE: "naive: get_scale() + float(loss) every step",
    HEAVY: "the framework's own heavy check",
}


@dataclass
class RunSpec:
    """One training run.

    Attributes:
        variant: ``a`` (no callback), ``b`` (denpex, default mode), ``c`` (naive monitor
            syncing every step) or ``d`` (the framework's heavy option).
        workload: Model and data.
        steps: Optimizer steps.
        device: ``"cpu"`` or ``"cuda"``.
        warmup: Steps left out of the timing.
        fault: Break the loss (``"inf"``, ``"nan"``, ``"zero"``) from ``fault_step`` on.
        fault_step: 0-based optimizer step where the fault begins.
        init_scale: Initial loss scale of the GradScaler (where the framework lets us set it).
        workdir: Folder for the framework's output and the run reports (a temporary one if
            None).
        syncs: Counts synchronising CUDA operations during the run and times the adapter's
            hooks (default: a counter that counts no syncs but still times the hooks).
        denpex_options: MonitorConfig keys given to the denpex adapter of variant b (e.g.
            ``{"rerun": False}``).
    """

    variant: str
    workload: Workload
    steps: int
    device: str = "cpu"
    warmup: int = 10
    fault: str | None = None
    fault_step: int = 0
    init_scale: float = 2.0**16
    workdir: str | None = None
    syncs: SyncCounter = field(default_factory=lambda: SyncCounter(enabled=False))
    denpex_options: dict[str, Any] = field(default_factory=dict)
    clock: StepClock = field(init=False)

    def __post_init__(self) -> None:
        sync = None
        if self.device.startswith("cuda"):
            import torch

            sync = torch.cuda.synchronize
        # Every variant probes the hook timer at each step's end (a no-op call: the same
        # small cost in each, and the timer's own cost per watched call for variant b).
        self.clock = StepClock(self.steps, self.warmup, sync,
                               counter=lambda: self.syncs.hook_seconds,
                               cpu_counter=lambda: self.syncs.hook_cpu_seconds,
                               probe=self.syncs.probe)
        if self.workdir is None:
            self.workdir = tempfile.mkdtemp(prefix="denpex_bench_")

    @contextlib.contextmanager
    def counting(self, *, captures: bool = True) -> Iterator[None]:
        """``syncs.counting()``; in variant b also the hooks denpex registers from objects it
        builds itself (the re-run capture's forward hooks) are watched (``captures``)."""
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.syncs.counting())
            if captures:
                stack.enter_context(self.watching_captures())
            yield

    def watching_captures(self) -> contextlib.AbstractContextManager[None]:
        """In variant b, watch the re-run capture's forward hooks of the captures built
        inside the block: a runner whose adapter registers it before training (the plain loop
        and DeepSpeed attach to the model up front) builds it in here, then counts with
        ``counting(captures=False)`` (a hook registered earlier is bound to the unwatched
        method, and its time would be missed)."""
        if self.variant != DENPEX:
            return contextlib.nullcontext()
        return self.syncs.watching_class(StepCaptures, ["_on_forward", "_on_output"])

    @property
    def report_dir(self) -> str:
        """Where the denpex run reports go."""
        return f"{self.workdir}/denpex_reports"


@dataclass
class RunResult:
    """What one run measured and found.

    Attributes:
        per_step_s: Seconds per optimizer step (see :meth:`StepClock.per_step`).
        per_step_cpu_s: The thread's CPU seconds per optimizer step (on a CPU run with one
            torch thread, the step's own work, which another process does not inflate).
        steps_run: Steps the clock saw.
        diagnoses: ``{"code", "step", "reported_step", "severity"}`` per diagnosis (variant b).
        first_step: The number the framework gives its first optimizer step (0 or 1):
            fault step ``k`` is reported as step ``k + first_step``.
        hook_s_per_step: Median seconds per timed step spent inside the adapter's watched hook
            methods (None when none were watched).
        hook_cpu_s_per_step: The same in the thread's CPU time.
        hook_calls_per_step: Timed calls per step charged to the adapter: its watched calls
            and the framework's own methods its wrappers call (each pays the timer's own cost
            once while the adapter's time is counted).
        timer_s_per_call: Median time the timing wrapper adds to one watched call, measured
            on a watched no-op at each step's end (:meth:`SyncCounter.probe`).
        timer_cpu_s_per_call: The same in the thread's CPU time.
    """

    per_step_s: float
    per_step_cpu_s: float
    steps_run: int
    diagnoses: list[dict[str, Any]] = field(default_factory=list)
    first_step: int = 0
    hook_s_per_step: float | None = None
    hook_cpu_s_per_step: float | None = None
    hook_calls_per_step: float | None = None
    timer_s_per_call: float | None = None
    timer_cpu_s_per_call: float | None = None

    @property
    def hook_net_s_per_step(self) -> float | None:
        """:attr:`hook_s_per_step` less the timer's own cost on each watched call."""
        return _net(self.hook_s_per_step, self.hook_calls_per_step, self.timer_s_per_call)

    @property
    def hook_net_cpu_s_per_step(self) -> float | None:
        """:attr:`hook_cpu_s_per_step` less the timer's own cost on each watched call."""
        return _net(self.hook_cpu_s_per_step, self.hook_calls_per_step,
                    self.timer_cpu_s_per_call)


def _net(total: float | None, calls: float | None, cost: float | None) -> float | None:
    if total is None or calls is None or cost is None:
        return None
    return max(0.0, total - calls * cost)


@contextlib.contextmanager
def quiet(*logger_names: str) -> Iterator[None]:
    """The frameworks' banners and tips at ERROR only while a run lasts (levels restored:
    nothing changes for code running after the benchmarks, such as other tests)."""
    loggers = [logging.getLogger(name) for name in logger_names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def with_callbacks(
    spec: RunSpec, clock: Any, denpex: Callable[..., Any], naive: Callable[[], Any],
    extra_hooks: Iterable[str] = (),
) -> tuple[list[Any], Any]:
    """A callback framework's callbacks for ``spec.variant`` and the denpex one (or None).

    ``clock`` ticks ``spec.clock`` each step and is always there; variant b adds ``denpex()``,
    its per-step hooks (and the methods ``extra_hooks`` it registers as hooks itself, such as
    a forward hook) watched by the sync counter; variant c adds ``naive()``.
    """
    callbacks = [clock]
    callback = None
    if spec.variant == DENPEX:
        callback = denpex(**spec.denpex_options)
        # Its own hooks (not the no-op ones it inherits from the framework's Callback class).
        spec.syncs.watch(callback, [*hook_names(callback, own="denpex_callbacks"), *extra_hooks])
        callbacks.append(callback)
    elif spec.variant == NAIVE:
        callbacks.append(naive())
    return callbacks, callback


def finish(spec: RunSpec, diagnoses: Iterable[Any] = (), first_step: int = 0) -> RunResult:
    """The RunResult of a finished run."""
    return RunResult(
        per_step_s=spec.clock.per_step(),
        per_step_cpu_s=spec.clock.per_step(cpu=True),
        steps_run=len(spec.clock.ticks),
        diagnoses=[
            {"code": d.code, "step": d.step, "reported_step": d.reported_step,
             "severity": d.severity.value}
            for d in diagnoses
        ],
        first_step=first_step,
        hook_s_per_step=spec.clock.counted_per_step() if spec.syncs.hook_calls else None,
        hook_cpu_s_per_step=(spec.clock.counted_per_step(cpu=True) if spec.syncs.hook_calls
                             else None),
        hook_calls_per_step=(
            (spec.syncs.hook_calls + spec.syncs.nested_framework_calls) / len(spec.clock.ticks)
            if spec.syncs.hook_calls and spec.clock.ticks else None),
        timer_s_per_call=spec.syncs.timer_cost(),
        timer_cpu_s_per_call=spec.syncs.timer_cost(cpu=True),
    )
