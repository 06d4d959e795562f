"""DeepSpeed adapter: a ``"denpex"`` section in the ds_config, one call after initialize.

DeepSpeed has no callback API, so :func:`attach` wraps ``engine.backward`` and ``engine.step``
as instance attributes (this also holds behind accelerate, which calls the same engine). Each
call of ``step`` that advances ``engine.global_steps`` is one real optimizer step (gradient
accumulation micro-steps do not advance it) and becomes one Observation: the scale before and
after (from :mod:`denpex_callbacks.readers.deepspeed_optimizer`), whether the optimizer
skipped it, the mean of the losses given to ``engine.backward`` since the previous step, the
gradient norm
and the learning rate. ``Observation.step`` is ``engine.global_steps`` after the step: the
1-based step number DeepSpeed prints in ``step=N`` lines; skipped steps count, as in DeepSpeed.

``"on_fault": "stop"`` sets ``watcher.should_stop`` after the faulty step, on every rank at
the same step (an all_reduce under several ranks); DeepSpeed has no stop flag of its own, so
the training loop checks it and breaks. Nothing is raised (``"raise"`` raises).

Example (a config section, validated without building an engine):
    >>> monitor_config({"enabled": True, "on_fault": "stop"}).on_fault
    'stop'
    >>> monitor_config({"enabled": False}) is None
    True
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import deepspeed
import torch
from deepspeed.utils import logger as deepspeed_logger

from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.integrations.deepspeed_config import (
    SECTION,
    engine_config_section,
    engine_setup,
    monitor_config,
)
from denpex_callbacks.integrations.deepspeed_edges import (
    LIVE,
    min_scale_exit_finding,
    refuse_pipeline_engine,
)
from denpex_callbacks.integrations.pipeline import StepPipeline, all_reduce_vote
from denpex_callbacks.readers.deepspeed_optimizer import (
    read_scale_state,
    unwrap_optimizer,
)
from denpex_callbacks.readers.grad_scaler import first_lr
from denpex_callbacks.readers.step_values import (
    LossAccumulator,
    after_step_reader,
    before_step_reader,
)

MIN_SCALE_MESSAGE = "Current loss scale already at minimum"
METRIC_PREFIX = "Train/Samples/"
_ATTACHED = "_denpex_monitor"  # the engine attribute holding its DeepSpeedMonitor
_UNREAD = object()  # a step's loss not taken from the accumulator yet


class _Before(NamedTuple):
    """What is read just before ``engine.step`` runs (no sync: numbers or device copies)."""

    global_steps: int
    values: dict[str, Any]  # values_before_step: the scale the step's backward used


class DeepSpeedMonitor:
    """Watches one DeepSpeed engine: wraps its ``backward`` and ``step``, feeds a Monitor.

    Build it with :func:`attach` (or :func:`initialize`) rather than directly.

    Attributes:
        engine: The watched engine.
        monitor: The rank's :class:`~denpex_callbacks.core.monitor.Monitor` (diagnoses, metrics).
        should_stop: True after the step where ``"on_fault": "stop"`` acted (on any rank):
            the training loop breaks out.
    """

    def __init__(self, engine: Any, config: MonitorConfig, *, logger: logging.Logger | None = None):
        refuse_pipeline_engine(engine)
        self.engine = engine
        self.pipeline = StepPipeline(config, framework="deepspeed",
                                     logger=logger or deepspeed_logger)
        # ZeRO and DeepSpeed's fp16 optimizer write the parameters through flat buffers they
        # were re-pointed at, which leaves their version counters alone (checked on 0.19.8):
        # the engine's count of applied updates proves an update instead. (An optimizer
        # without an overflow flag counts every step as applied: never a missed update.)
        self.pipeline.locate.watch(
            engine.module, updates=lambda: engine.global_steps - engine.skipped_steps)
        self.monitor: Monitor = self.pipeline.monitor
        self.should_stop = False
        self._losses = LossAccumulator()
        self._held_losses: list[Any] = []  # this step's micro-batch losses (see _wrap_backward)
        self._originals: dict[str, Callable[..., Any]] = {}
        # Where the scale lives, found once (the engine's optimizer does not change): each
        # step reads it twice, before and after engine.step.
        self._read_before: Callable[[], dict[str, Any]] = dict
        self._read_after: Callable[[], dict[str, Any]] = dict
        self._metrics_to: Any = None  # DeepSpeed's monitor, when rank 0 writes to it
        self._holder: tuple[Any, Any] | None = None  # (optimizer, its own loss scaler)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> DeepSpeedMonitor:
        """Read the run's setup, run the start-up lints and wrap the engine's methods."""
        self.pipeline.start(lambda: engine_setup(self.engine))
        self.pipeline.guard(self._find_readers)
        for name, wrapper in (("backward", self._wrap_backward), ("step", self._wrap_step)):
            original = getattr(self.engine, name)
            self._originals[name] = original
            setattr(self.engine, name, functools.wraps(original)(wrapper(original)))
        self.engine.__dict__[_ATTACHED] = self
        LIVE.add(self)  # closed at exit if the user does not; held weakly
        return self

    def close(self) -> None:
        """Judge the steps still in flight and write the report's summary. Safe to call twice."""
        self.pipeline.close()

    def detach(self) -> None:
        """Close, and give the engine back its own ``backward`` and ``step``."""
        self.close()
        for name in self._originals:
            self.engine.__dict__.pop(name, None)
        self._originals.clear()
        self.engine.__dict__.pop(_ATTACHED, None)
        LIVE.discard(self)

    def _find_readers(self) -> None:
        self._read_before = before_step_reader(self.engine)
        self._read_after = after_step_reader(self.engine)
        # ZeRO's own dynamic loss scaler keeps its scale and overflow as Python numbers: the
        # hot path reads them there (found once: the engine's optimizer does not change).
        opt = unwrap_optimizer(self.engine)
        if read_scale_state(self.engine).layout == "loss_scaler" and isinstance(
                getattr(getattr(opt, "loss_scaler", None), "cur_scale", None), (int, float)):
            self._holder = (opt, opt.loss_scaler)
        sink = getattr(self.engine, "monitor", None)
        if sink is not None and self.monitor.rank == 0 and getattr(sink, "enabled", False):
            self._metrics_to = sink

    # -- hooks -------------------------------------------------------------------------------

    def _wrap_backward(self, original: Callable[..., Any]) -> Callable[..., Any]:
        held = self._held_losses

        def backward(loss: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(loss, *args, **kwargs)
            # A reference only (read at the step, with the step's other numbers: one cold
            # stretch of denpex code per step rather than two); DeepSpeed scales a copy.
            held.append(loss)
            return result

        return backward

    def _take_loss(self) -> Any:
        """The mean loss of the step's micro-batches (their backward calls since the last)."""
        held, add = self._held_losses, self._losses.add
        if len(held) == 1 and not self._losses.count:  # one micro-batch on the CPU: its value
            loss = held[0]
            if loss.__class__ is torch.Tensor and loss.is_cpu:
                try:  # (one call into torch, not two: item() checks the size itself)
                    value = loss.item()
                except RuntimeError:  # several values: their mean, below
                    value = None
                if value is not None:
                    held.clear()
                    return value
        for loss in held:
            add(loss)
        held.clear()
        return self._losses.take()

    def _wrap_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        pipeline, engine = self.pipeline, self.engine
        boundary = getattr(engine, "is_gradient_accumulation_boundary", None)

        def step(*args: Any, **kwargs: Any) -> Any:
            holder: Any = self._holder
            # ZeRO's own loss scaler keeps Python numbers: the hot path (below, flat: a frame
            # costs a microsecond here) takes each optimizer step as a quiet step when it is
            # one. Its micro-steps need no question to DeepSpeed: global_steps does not move.
            hot = holder is not None and self._metrics_to is None
            # A micro-step takes no optimizer step: nothing to watch.
            if holder is None and callable(boundary) and not boundary():
                return original(*args, **kwargs)
            before: Any = None  # hot: (global_steps, scale); else a _Before
            if not pipeline.monitor.disabled:
                try:  # (the pipeline's guard, inline: every optimizer step)
                    before = (engine.global_steps, holder[1].cur_scale) if hot else (
                        self._before())
                except Exception:
                    pipeline.fail()
            try:
                result = original(*args, **kwargs)
            except Exception as exc:
                if before is not None and MIN_SCALE_MESSAGE in str(exc):
                    pipeline.guard(self._record_min_scale_exit, before if not hot else _Before(
                        before[0], {"scale_before": before[1]}), exc)
                raise  # DeepSpeed's own exception, unchanged
            if before is not None and not pipeline.monitor.disabled:
                try:
                    if not hot:
                        self._after_step(before)
                    elif engine.global_steps != before[0]:
                        take_or_push(holder, before)
                except AmpDiagnosisError:
                    raise  # the user's "raise" policy
                except Exception:
                    pipeline.fail()
            if self.monitor.config.on_fault == "stop":  # every rank, every boundary: a collective
                self.should_stop = pipeline.decide_stop(
                    self._vote, int(engine.global_steps)) or self.should_stop
            return result

        def take_or_push(holder: tuple[Any, Any], before: tuple[int, Any]) -> None:
            # An optimizer step with ZeRO's own scaler: a quiet step from its plain numbers,
            # else the full way.
            opt, scaler = holder
            loss = self._take_loss()
            grad_norm: Any = getattr(engine, "_global_grad_norm", None)  # (0.19.8: always set)
            if grad_norm.__class__ is torch.Tensor and grad_norm.is_cpu:
                grad_norm = grad_norm.item()
            overflow = opt.overflow
            step_now = engine.global_steps
            if not (loss.__class__ is float and (
                    grad_norm is None or grad_norm.__class__ is float) and pipeline.take_quiet(
                        step_now, loss, float(before[1]), float(scaler.cur_scale),
                        overflow if overflow.__class__ is bool else None, None, grad_norm)):
                self._push(step_now, _Before(before[0], {"scale_before": before[1]}),
                           skipped=None, judge=True, loss=loss)

        return step

    def _before(self) -> _Before:
        holder = self._holder
        if holder is not None:  # DeepSpeed's own scaler: its scale is a Python number
            return _Before(self.engine.global_steps, {"scale_before": holder[1].cur_scale})
        return _Before(int(self.engine.global_steps), self._read_before())

    def _after_step(self, before: _Before) -> None:
        step = int(self.engine.global_steps)
        if step == before.global_steps:
            return  # a gradient accumulation micro-step: no optimizer step was taken
        self._push(step, before, skipped=None, judge=True)

    def _push(self, step: int, before: _Before, *, skipped: bool | None,
              judge: bool = False, loss: Any = _UNREAD) -> None:
        """Snapshot this step's values (``judge``: and judge what is readable); tensors are
        read when their copy has landed. ``loss``: the step's, when taken already."""
        engine = self.engine
        if loss is _UNREAD:
            loss = self._take_loss()
        values: dict[str, Any] = {
            **before.values,
            **self._read_after(),
            "loss": loss,
            "grad_norm": getattr(engine, "_global_grad_norm", None),
            "lr": first_lr(engine.optimizer),
            "samples": getattr(engine, "global_samples", step),
            "time": time.time(),
        }
        if skipped is not None:
            values["skipped"] = skipped
        if judge:
            self.pipeline.step(step, values,
                               judged=self._write_metrics if self._metrics_to is not None else None)
        else:
            self.pipeline.record(step, values)

    def _drain(self, *, wait: bool = False) -> None:
        self.pipeline.drain(wait=wait,
                            judged=self._write_metrics if self._metrics_to is not None else None)

    def _write_metrics(self, step: int, values: dict[str, Any]) -> None:
        """Mirror the Monitor's metrics into DeepSpeed's monitor (csv, tensorboard...) on rank 0.
        Called once each step is judged.
        """
        samples = values["samples"]
        sink = self._metrics_to
        if sink is None:
            return
        events = [
            (METRIC_PREFIX + name.replace("/", "_"), value, samples)
            for name, value in self.monitor.metrics().items()
        ]
        sink.write_events(events)

    # -- DeepSpeed's min-scale exit and the stop policy --------------------------------------

    def _record_min_scale_exit(self, before: _Before, exc: Exception) -> None:
        """DeepSpeed is about to end the run: judge this step and have AMP003 on disk first."""
        # Under the "raise" policy too, DeepSpeed's own exception is the one that goes on.
        with contextlib.suppress(AmpDiagnosisError):
            self._push(before.global_steps + 1, before, skipped=True)
            self._drain(wait=True)
        finding = min_scale_exit_finding(self.monitor, before.global_steps + 1, exc)
        if finding is not None:  # (not acted on: DeepSpeed's own exception goes on)
            self.monitor.flag(finding, reported_step=before.global_steps + 1)
        self.monitor.close()

    def _vote(self, wanted: bool) -> bool:
        from deepspeed.accelerator import get_accelerator

        return all_reduce_vote(get_accelerator().current_device_name())(wanted)


def attach(
    engine: Any,
    config: MonitorConfig | None = None,
    *,
    logger: logging.Logger | None = None,
) -> DeepSpeedMonitor | None:
    """Watch a DeepSpeed engine; configured by the ``"denpex"`` section of its config.

    Call it once after ``deepspeed.initialize``. Attaching twice returns the first monitor.

    Args:
        engine: The ``DeepSpeedEngine`` returned by ``deepspeed.initialize``.
        config: Overrides the config section when given.
        logger: Where rank 0 logs (default: DeepSpeed's own logger).

    Returns:
        The monitor, or None when the section says ``"enabled": false``.

    Raises:
        ValueError: On an invalid ``"denpex"`` section, or a PipelineEngine.

    Example (needs a real engine, so not a doctest)::

        engine, optimizer, _, _ = deepspeed.initialize(model=model, config="ds_config.json")
        watcher = attach(engine)  # None when the section says "enabled": false
        ...
        print(watcher.monitor.metrics())
    """
    chosen = config if config is not None else monitor_config(engine_config_section(engine))
    if chosen is None:
        return None
    existing: DeepSpeedMonitor | None = engine.__dict__.get(_ATTACHED)
    if existing is not None:
        return existing
    return DeepSpeedMonitor(engine, chosen, logger=logger).start()


@functools.wraps(deepspeed.initialize)
def initialize(*args: Any, **kwargs: Any) -> Any:
    """``deepspeed.initialize`` followed by :func:`attach` on the engine it returns.

    Same arguments and return value as ``deepspeed.initialize``. A config given as a dict is
    checked first, so a bad ``"denpex"`` section fails before the engine is built.
    """
    given = kwargs.get("config", kwargs.get("config_params"))
    if isinstance(given, Mapping):
        monitor_config(given.get(SECTION))
    result = deepspeed.initialize(*args, **kwargs)
    attach(result[0])
    return result
