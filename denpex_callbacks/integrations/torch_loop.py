"""Plain PyTorch loops (also accelerate and Lightning Fabric loops): one monitor beside the loop.

The monitor reads each optimizer step at the scaler's ``update()`` and the loss at its
``scale()`` (every micro-batch's), so where the loop calls ``monitor.step()`` does not matter
and steps are numbered in optimizer steps (:mod:`~denpex_callbacks.integrations.torch_steps`).
It takes the objects a loop holds as they are: accelerate's and Fabric's wrappers, compiled
modules, several optimizers or models (:mod:`~denpex_callbacks.integrations.torch_setup`). The
flow after each step is the shared :class:`~denpex_callbacks.integrations.pipeline.StepPipeline`'s.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.metrics_sink import MetricsSink, MetricsTarget
from denpex_callbacks.integrations.lifecycle import guarded
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.integrations.run_rules import all_reduce_vote
from denpex_callbacks.integrations.torch_protocol import ScalerProtocol
from denpex_callbacks.integrations.torch_setup import (
    AutocastProbe,
    LoopObjects,
    loop_objects,
    loop_setup,
)
from denpex_callbacks.integrations.torch_steps import Call, LoopSteps, Step
from denpex_callbacks.readers.grad_scaler import GradScalerReader, first_lr

__all__ = ["AmpMonitor"]
LOGGER = logging.getLogger("denpex_callbacks")


class AmpMonitor:
    """Watches a hand-written AMP training loop (plain PyTorch, accelerate or Fabric).

    Pass the scaler, optimizers and models before the loop, so that a protocol break in the
    very first iteration is caught too, and call :meth:`step` once per iteration.

    Args:
        scaler: The ``torch.amp.GradScaler`` (None: the one behind an accelerate or Fabric
            optimizer, else none: AMP001 applies if the loop computes in fp16).
        optimizer: The optimizer(s): torch's, accelerate's ``AcceleratedOptimizer``, Fabric's
            wrapped one, or a list/tuple/dict of them.
        model: The model(s): a module (Fabric's, compiled, DDP) or a list/tuple/dict/ModuleDict;
            the locator hooks them and the re-run re-runs them after AMP006 or AMP003.
        precision: What the loop asked for (``"16-mixed"``, ``"bf16"``...), for AMP010 where
            the framework keeps no trace of it (Fabric); accelerate's is read.
        loss_fn: ``loss_fn(output, targets)`` (or ``loss_fn(output)``): a re-run re-runs the
            loss with it.
        on_fault: ``"warn"``, ``"stop"`` (``should_stop``, agreed over ranks) or ``"raise"``
            (``AmpDiagnosisError`` from ``step()``).
        report_dir: Folder of the JSONL run reports (relative: to the working directory;
            None: no report).
        config: Full configuration (a MonitorConfig or its dict form).
        logger: Where diagnoses are logged (default ``denpex_callbacks``).
        metrics: A TensorBoard ``SummaryWriter`` or a callable ``metrics(values, step)`` for
            the ``amp/`` metrics (:class:`~denpex_callbacks.core.metrics_sink.MetricsSink`).
        **options: Any other MonitorConfig field (``disable``, ``thresholds``, ``locate``...).

    Example:
        >>> import torch
        >>> model = torch.nn.Linear(4, 1)
        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
        >>> monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
        >>> for i in range(4):
        ...     with torch.autocast("cpu", dtype=torch.float16):
        ...         loss = model(torch.randn(8, 4)).float().pow(2).mean()
        ...     if i == 2:
        ...         loss = loss * float("nan")
        ...     scaler.scale(loss).backward()
        ...     scaler.step(opt)
        ...     scaler.update()
        ...     opt.zero_grad()
        ...     _ = monitor.step(loss)
        >>> monitor.close()
        >>> [(d.code, d.step) for d in monitor.diagnoses]
        [('AMP006', 2)]
    """

    def __init__(
        self,
        scaler: Any = None,
        optimizer: Any = None,
        model: Any = None,
        *,
        precision: Any = None,
        loss_fn: Callable[..., Any] | None = None,
        on_fault: str = UNSET,
        report_dir: str | os.PathLike[str] | None = UNSET,
        config: MonitorConfig | Mapping[str, Any] | None = None,
        logger: logging.Logger | None = None,
        metrics: MetricsTarget = None,
        **options: Any,
    ) -> None:
        self.pipeline = StepPipeline(
            build_config(config, on_fault=on_fault, report_dir=report_dir, **options),
            framework="torch",
            logger=logger or LOGGER,
        )
        self.monitor = self.pipeline.monitor
        if metrics is not None:
            sink = MetricsSink(metrics, self.monitor.config.record_every)
            self.pipeline.add_step_sink(
                lambda obs: sink.step(obs, len(self.monitor.faults()), self.monitor.metrics))
        self._vote = all_reduce_vote()
        self.objects = LoopObjects()
        self._precision = precision
        self._loss_fn = loss_fn
        self.autocast = AutocastProbe()  # the autocast dtype of the loop's first forward
        self.steps = LoopSteps()  # which optimizer step each call belongs to
        self._polled: list[Diagnosis] = []  # found by _poll, returned by the next step()
        self.protocol: ScalerProtocol | None = None  # the scaler's, once one is watched
        self.pipeline.on_close(self.autocast.close)
        self._attach(scaler, optimizer, model)

    @property
    def diagnoses(self) -> list[Diagnosis]:
        """Diagnoses so far (on a device, the last step's may still be in flight)."""
        return self.monitor.diagnoses

    @property
    def should_stop(self) -> bool:
        """True once a fault was found under ``on_fault="stop"`` (on any rank): break out."""
        return self.pipeline.stop_decided

    @property
    def scaler(self) -> Any:
        """The GradScaler watched (None: none)."""
        return self.objects.scaler

    def attach(self, scaler: Any = None, optimizer: Any = None, model: Any = None) -> None:
        """Watch these objects from now on, as if passed to the constructor.

        For a monitor built before the loop's objects exist (the pytest ``amp_monitor``
        fixture): attaching before the first iteration lets its protocol checks run too.
        """
        self._attach(scaler, optimizer, model)

    def step(
        self,
        loss: Any = None,
        *,
        scaler: Any = None,
        optimizer: Any = None,
        model: Any = None,
        step: int | None = None,
        grad_norm: Any = None,
        rerun: Callable[[], Any] | None = None,
        targets: Any = None,
        loss_fn: Callable[..., Any] | None = None,
    ) -> list[Diagnosis]:
        """Record the loop's progress, once per iteration, anywhere in it (after
        ``scaler.update()`` is the natural place).

        Args:
            loss: The iteration's loss (not synchronised); with a scaler it counts only where
                the scaler saw none (the loss it scaled is used, every micro-batch's).
            scaler: The GradScaler, if not given at construction.
            optimizer: The optimizer(s), if not given at construction.
            model: The model(s), if not given at construction.
            step: The step number (default: optimizer steps counted from 0).
            grad_norm: The gradient norm if the loop computes one (tensor or float).
            rerun: Recomputes this iteration's loss from its inputs without backward or step
                (e.g. ``functools.partial(compute_loss, model, x, y)``), called at most once,
                if this step fails, to re-run it with the same inputs, parameters and RNG state
                (without it: the models on their inputs, and the loss with ``loss_fn``).
            targets: What the loss compared the model's output with (kept by reference until
                the step is judged): checked for NaN/inf after a fault, given to ``loss_fn``.
            loss_fn: This iteration's loss function, if not given at construction.

        Returns:
            Diagnoses that became known with this call (on a device, usually an earlier
            step's).

        Raises:
            AmpDiagnosisError: Under ``on_fault="raise"``.
        """
        found = self._step(Call(step, loss, grad_norm, rerun, targets, loss_fn), scaler,
                           optimizer, model) or []
        if self._polled:
            found, self._polled = self._polled + found, []
        # Under "stop" every rank votes at every call, a collective (else: False).
        self.pipeline.decide_stop(self._vote, self.steps.next - 1)
        return found

    def close(self) -> None:
        """Examine the last steps, write the report summary, remove hooks and wrappers."""
        self._finish()
        self.pipeline.close()

    def __enter__(self) -> AmpMonitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def state_dict(self) -> dict[str, Any]:
        """Monitor history, to save beside the scaler's state in a checkpoint."""
        return {"monitor": self.monitor.state_dict(), "calls": self.steps.next}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`."""
        self.monitor.load_state_dict(state.get("monitor", {}))
        self.steps.next = int(state.get("calls", 0))

    @guarded
    def _attach(self, scaler: Any, optimizer: Any, model: Any, *, late: bool = False) -> None:
        """Watch what is new among these objects (``late``: handed to ``monitor.step()``, after
        the iteration's ``update()``, whose step the reader's first take then holds)."""
        given = loop_objects(scaler, optimizer, model, self._precision)
        objects = self.objects
        new_optimizers, first_scaler = objects.add(given)
        for raw in new_optimizers:
            for hook in (raw.register_step_post_hook(self.steps.optimizer_stepped),
                         raw.register_step_pre_hook(self._on_optimizer_pre_step)):
                self.pipeline.on_close(hook.remove)
        reader = None
        if first_scaler:  # (whether it is enabled is fixed in its __init__)
            reader = GradScalerReader.attached(given.scaler, on_error=self.pipeline.fail,
                                               on_close=self.pipeline.on_close, late=late)
        if reader is not None:
            reader.before_step = self._poll
            self.protocol = ScalerProtocol(reader, self._flag, self.steps)
        if given.models and not objects.models:
            # The locator and the re-run capture take the models as the loop holds them (a
            # compiled wrapper is hooked outside its graph), with every optimizer.
            self.pipeline.locate.watch(model, optimizers=objects.optimizers,
                                       loss_fn=self._loss_fn)
            self.autocast.watch(given.models[0])
        objects.models += [module for module in given.models if module not in objects.models]

    def _on_optimizer_pre_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.protocol is None:  # (with a scaler, scaler.step() polls: see _poll)
            self._poll()
        else:  # (the protocol check: is it called around the scaler?)
            self.protocol.optimizer_stepping(optimizer)

    def _poll(self) -> None:
        """Before an optimizer step changes the parameters: judge the earlier steps whose
        values have landed (a failing one can still be re-run with its own parameters); what
        they produced is returned by the next ``monitor.step()``."""
        if len(self.pipeline.queue):
            self._polled += self.pipeline.drain()

    def _start(self, loss: Any) -> None:
        if not self.monitor.started:
            self.pipeline.start(lambda: loop_setup(
                self.objects, autocast_dtype=self.autocast.dtype, loss=loss))

    @guarded
    def _step(self, call: Call, scaler: Any, optimizer: Any, model: Any) -> list[Diagnosis]:
        if scaler is not None or optimizer is not None or model is not None:
            self._attach(scaler, optimizer, model, late=True)
        self._start(call.loss)
        reader = self.protocol.reader if self.protocol is not None else None
        if reader is None:
            steps = self.steps.unscaled(call, optimizers_watched=bool(self.objects.optimizers))
        else:  # (the reader's readings, as every adapter takes them; stepped: see LoopSteps)
            steps = self.steps.scaled(call, reader.take(), stepped=reader.stepped)
        found = [d for step in steps for d in self._judge(step)]
        return found + self.pipeline.drain()

    def _judge(self, step: Step) -> list[Diagnosis]:
        optimizers, call = self.objects.optimizers, step.call
        return self.pipeline.step(
            step.number, step.reading, loss=call.loss, grad_norm=call.grad_norm,
            lr=first_lr(optimizers[0]) if optimizers else None, rerun=call.rerun,
            targets=call.targets, loss_fn=call.loss_fn or self._loss_fn)

    @guarded
    def _finish(self) -> None:
        """At close: an update() that never came, and the steps read since the last call."""
        protocol = self.protocol
        if protocol is None:
            return
        missing = protocol.update_never_came()
        if missing is not None:
            self._flag(missing)
        readings = protocol.reader.take()
        if readings:
            self._start(None)
            for step in self.steps.leftover(readings):
                self._judge(step)

    def _flag(self, finding: Finding) -> list[Diagnosis]:
        step = finding.step if finding.step is not None else self.steps.next
        self._start(None)
        return self.pipeline.flag(finding, step)
