"""Numbers for a metrics logger, sent only where they say something.

A healthy fp16 run's loss scale is the sign of life people look for on a dashboard, but a
value every step (or rows of our own in a logger the user configured) is noise. The sink sends
``amp/loss_scale``, ``amp/skipped_steps`` and ``amp/diagnoses`` (faults so far, 0 on a healthy
run: the one count to alert on) on the first step, on every step whose scale changed or that
was skipped, and every ``every`` steps; ``amp/fault/<id>`` joins them once that id fired.

A target is a TensorBoard ``SummaryWriter`` (anything with ``add_scalar(tag, value, step)``)
or a callable ``target(values: dict[str, float], step: int)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState

MetricsTarget = Any  # a SummaryWriter-like object or Callable[[dict[str, float], int], None]


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
