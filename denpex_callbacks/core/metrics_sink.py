"""Numbers for a metrics logger, sent only where they say something.

A healthy fp16 run's loss scale is the sign of life people look for on a dashboard, but a
value every step (or rows of our own in a logger the user configured) is noise. The sink sends
``amp/loss_scale``, ``amp/skipped_steps`` and ``amp/diagnoses`` (faults so far, 0 on a healthy
run: the one count to alert on) on the first step, on every step whose scale changed or that
was skipped, and every ``every`` steps; ``amp/fault/<id>`` joins them once that id fired.

A target is a TensorBoard ``SummaryWriter`` (anything with ``add_scalar(tag, value, step)``)
or a callable ``target(values: dict[str, float], step: int)``.

Fingerprints, ``amp/fault/<id>`` = 1 from the step that diagnosis fired on, are there for
dashboard rules (the alerts page): one key per id that can end or ruin a run (those the catalog
rates ``error``, and AMP004, which becomes one when the scale reaches 0). A key appears only
once its diagnosis fired (as a warning or an error) and stays 1 for the rest of the run (also
across a resume: it is read from the engine's checkpointed diagnoses). A healthy run logs none:
HF prints every logged key in its console line and Lightning gives each one a column, so each
key has a cost. What tells "healthy" from "not logging" is ``amp/diagnoses``, on every row (0
while healthy). Warnings get no key of their own: their signals are already metrics
(``amp/loss_scale`` for AMP005, the loss for AMP007) and ``amp/diagnoses`` counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity

MetricsTarget = Any  # a SummaryWriter-like object or Callable[[dict[str, float], int], None]
FAULT_PREFIX = "amp/fault/"
FINGERPRINT_IDS = ("AMP001", "AMP002", "AMP003", "AMP004", "AMP006", "AMP012", "AMP014")


def informative_metrics(run: RunState, faults: int) -> dict[str, float]:
    """The metrics worth showing: the scale (when there is one), skipped steps, and the
    faults so far (present at 0 too, so that "healthy" differs from "not logging").

    Example:
        >>> informative_metrics(RunState(), 0)
        {'amp/skipped_steps': 0.0, 'amp/diagnoses': 0.0}
    """
    out: dict[str, float] = {}
    if run.last_scale is not None:
        out["amp/loss_scale"] = float(run.last_scale)
    out["amp/skipped_steps"] = float(run.skipped_total)
    out["amp/diagnoses"] = float(faults)
    return out


def fingerprint_metrics(faults: Iterable[Diagnosis]) -> dict[str, float]:
    """``amp/fault/<id>`` = 1.0 for each fingerprinted id among ``faults`` (warnings or worse;
    a disabled id is never diagnosed, so it never has a key).

    Args:
        faults: The faults so far (``Monitor.faults()``).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> nan = Diagnosis.from_finding(Finding("AMP006", 7, "loss is nan"))
        >>> zero = Diagnosis.from_finding(Finding("AMP007", 9, "loss is 0"))
        >>> fingerprint_metrics([nan, zero]), fingerprint_metrics([])
        ({'amp/fault/AMP006': 1.0}, {})
    """
    fired = {d.code for d in faults if d.severity.rank >= Severity.WARNING.rank}
    return {FAULT_PREFIX + code: 1.0 for code in FINGERPRINT_IDS if code in fired}


class MetricsSink:
    """Sends :func:`informative_metrics` to a target at the steps where they carry news.

    Args:
        target: A ``SummaryWriter`` (``add_scalar``) or ``callable(values, step)``.
        every: Also send every this many steps (a dashboard's heartbeat).

    Raises:
        TypeError: When ``target`` is neither.

    Example:
        >>> sent = []
        >>> sink = MetricsSink(lambda values, step: sent.append((step, values)), every=100)
        >>> run = RunState()
        >>> for step, scale in enumerate([1024.0, 1024.0, 512.0, 512.0]):
        ...     obs = Observation(step, scale_before=scale, scale_after=scale)
        ...     run.update(obs)
        ...     sink.step(obs, 0, lambda: informative_metrics(run, 0))
        >>> [step for step, _ in sent]
        [0, 2]
        >>> sent[1][1]["amp/loss_scale"]
        512.0
    """

    def __init__(self, target: MetricsTarget, every: int = 50) -> None:
        self._send: Callable[[dict[str, float], int], None]
        if hasattr(target, "add_scalar"):
            writer = target

            def send(values: dict[str, float], step: int) -> None:
                for name, value in values.items():
                    writer.add_scalar(name, value, step)

            self._send = send
        elif callable(target):
            self._send = target
        else:
            raise TypeError("metrics must be a SummaryWriter (add_scalar) or a callable "
                            f"(values, step), not {type(target).__name__}")
        self.every = max(1, every)
        self._last_scale: float | None = None
        self._last_faults = 0
        self._sent_any = False

    def step(
        self, obs: Observation, faults: int, metrics: Callable[[], dict[str, float]]
    ) -> None:
        """Send the metrics of step ``obs.step`` when they changed or the heartbeat is due.

        Args:
            obs: The step just judged.
            faults: Diagnoses so far (a change is news).
            metrics: Builds the values to send (``Monitor.metrics``); called only when sent,
                so a quiet step costs no dict building.
        """
        scale = obs.scale
        news = (not self._sent_any or bool(obs.was_skipped) or scale != self._last_scale
                or faults != self._last_faults or obs.step % self.every == 0)
        self._last_scale, self._last_faults = scale, faults
        if news:
            self._sent_any = True
            self._send(metrics(), obs.step)
