"""DeepSpeed adapter: a ``"denpex"`` section in the ds_config, one call after initialize.

DeepSpeed has no callback API, so :func:`attach` wraps ``engine.backward`` and ``engine.step``
as instance attributes (this also holds behind accelerate, which calls the same engine). Only
a ``step`` call at a gradient accumulation boundary is read (the micro-steps between pass
straight through: the scale cannot change in them); one that advances ``engine.global_steps``
is one real optimizer step and goes to the shared
:class:`~denpex_callbacks.integrations.pipeline.StepPipeline`: the scale before and after
(:class:`~denpex_callbacks.readers.deepspeed_optimizer.DeepSpeedReader`, or the GradScaler of
``torch_autocast`` mode), the mean of the losses given to ``engine.backward`` since the previous
step, the gradient norm and the learning rate. ``Observation.step`` is ``engine.global_steps``
after the step: the 1-based step number DeepSpeed prints in ``step=N`` lines; skipped steps
count, as in DeepSpeed.

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

import functools
import logging
from collections.abc import Callable, Mapping
from typing import Any

import deepspeed
from deepspeed.utils import logger as deepspeed_logger

from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.integrations.deepspeed_config import (
    SECTION,
    engine_config_section,
    engine_setup,
    monitor_config,
    refuse_pipeline_engine,
)
from denpex_callbacks.integrations.lifecycle import guarded
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.integrations.run_rules import all_reduce_vote
from denpex_callbacks.readers.deepspeed_optimizer import DeepSpeedReader, at_accumulation_boundary
from denpex_callbacks.readers.grad_scaler import GradScalerReader, first_lr
from denpex_callbacks.readers.instance_wraps import InstanceWraps
from denpex_callbacks.readers.scale_reading import LossSum

__all__ = ["DeepSpeedMonitor", "attach", "initialize", "monitor_config"]

METRIC_PREFIX = "Train/Samples/"
_ATTACHED = "_denpex_monitor"  # the engine attribute holding its DeepSpeedMonitor


class DeepSpeedMonitor:
    """Watches one DeepSpeed engine: wraps its ``backward`` and ``step``, feeds the pipeline.

    Build it with :func:`attach` (or :func:`initialize`) rather than directly.

    Attributes:
        engine: The watched engine.
        monitor: The rank's :class:`~denpex_callbacks.core.monitor.Monitor` (diagnoses, metrics).
    """

    def __init__(self, engine: Any, config: MonitorConfig, *, logger: logging.Logger | None = None):
        refuse_pipeline_engine(engine)
        self.engine = engine
        self.pipeline = StepPipeline(
            config, framework="deepspeed", logger=logger or deepspeed_logger)
        # ZeRO and DeepSpeed's fp16 optimizer write the parameters through flat buffers they
        # were re-pointed at, which leaves their version counters alone (checked on 0.16.8-0.19.8,
        # tests/versions/test_facts_deepspeed.py):
        # the engine's count of applied updates proves an update instead. (An optimizer
        # without an overflow flag counts every step as applied: never a missed update.)
        self.pipeline.locate.watch(
            engine.module, updates=lambda: engine.global_steps - engine.skipped_steps)
        self.monitor: Monitor = self.pipeline.monitor
        self._losses = LossSum()  # the losses given to engine.backward since the last step
        self._wraps = InstanceWraps()  # the engine's step
        self._reader: DeepSpeedReader | None = None
        self._scaler: GradScalerReader | None = None  # torch_autocast mode's GradScaler
        self._before: int | None = None  # engine.global_steps as the step being taken began

    @property
    def should_stop(self) -> bool:
        """True after the step where ``"on_fault": "stop"`` acted (on any rank): the training
        loop breaks out."""
        return self.pipeline.stop_decided

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> DeepSpeedMonitor:
        """Read the run's setup, run the start-up lints and wrap the engine's methods."""
        self.pipeline.start(lambda: engine_setup(self.engine))
        self._find_reader()
        if self._reader is not None:
            self._reader.watch_backward(self.engine, self._add_loss)
        original = self.engine.step
        self._wraps.wrap(self.engine, "step", functools.wraps(original)(self._wrap_step(original)))
        self.engine.__dict__[_ATTACHED] = self
        return self

    @guarded
    def _find_reader(self) -> None:
        pipeline = self.pipeline
        self._reader, self._scaler = DeepSpeedReader.attached(
            self.engine, on_exit=self._ended, on_error=pipeline.fail, on_close=pipeline.on_close)
        sink = getattr(self.engine, "monitor", None)
        if sink is not None and self.monitor.rank == 0 and getattr(sink, "enabled", False):
            pipeline.add_step_sink(functools.partial(self._write_metrics, sink))

    def close(self) -> None:
        """Judge the steps still in flight and write the report's summary. Safe to call twice."""
        self.pipeline.close()

    def detach(self) -> None:
        """Close, and give the engine back its own ``backward`` and ``step``."""
        self.close()
        self._wraps.restore()
        self.engine.__dict__.pop(_ATTACHED, None)

    # -- the wrapped calls -------------------------------------------------------------------

    @guarded
    def _add_loss(self, loss: Any) -> None:
        self._losses.add(loss)

    def _wrap_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        engine = self.engine

        def step(*args: Any, **kwargs: Any) -> Any:
            if not at_accumulation_boundary(engine):  # a micro-step: no scale change in it
                return original(*args, **kwargs)
            before = self._before = self._before_step()
            result = original(*args, **kwargs)
            if before is not None:
                self._after_step(stepped=engine.global_steps != before)
            # Under "stop" every rank votes at every optimizer step, a collective (else: False).
            self.pipeline.decide_stop(self._vote, int(engine.global_steps))
            return result

        return step

    @guarded
    def _before_step(self) -> int:
        """``engine.global_steps`` just before ``engine.step`` (the scale the step's backward
        used is read now); the last moment the parameters are the earlier steps', so what has
        landed is judged (a failing step can still be re-run)."""
        assert self._reader is not None
        self.pipeline.drain()
        self._reader.step_begins()
        return int(self.engine.global_steps)

    @guarded
    def _after_step(self, *, stepped: bool) -> None:
        reader = self._reader
        assert reader is not None
        readings = reader.take()  # (this call's step, begun in _before_step)
        if not stepped:
            return  # no optimizer step after all (an engine that could not say beforehand)
        if self._scaler is not None:  # torch_autocast mode: its GradScaler is read instead
            readings = self._scaler.take() or readings
        engine = self.engine
        self.pipeline.step(int(engine.global_steps), readings[-1],
                           loss=self._losses.take(mean=True), lr=first_lr(engine.optimizer),
                           grad_norm=reader.grad_norm())

    def _ended(self, error: BaseException) -> None:
        """DeepSpeed's optimizer step raised (its exit at the minimum scale): the step it
        refused was skipped at the scale it had."""
        before, reader = self._before, self._reader
        if before is not None and reader is not None:
            refused = reader.refused()
            refused.loss = self._losses.take(mean=True)
            self.pipeline.framework_ended(before + 1, refused, error)

    def _write_metrics(self, sink: Any, obs: Observation) -> None:
        """Mirror the Monitor's metrics into DeepSpeed's monitor (csv, tensorboard...) on rank 0,
        at each step judged, numbered in samples as DeepSpeed numbers its own."""
        samples = getattr(self.engine, "global_samples", obs.step)
        sink.write_events([(METRIC_PREFIX + name.replace("/", "_"), value, samples)
                           for name, value in self.monitor.metrics().items()])

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
