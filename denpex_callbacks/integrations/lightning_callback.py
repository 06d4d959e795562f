"""Lightning adapter: the callback's hooks, for either Lightning namespace.

:class:`AmpDiagnosticHooks` holds the hooks and imports no Lightning namespace; each namespace
gets its own small entry module that mixes it into that namespace's ``Callback``
(:mod:`~denpex_callbacks.integrations.lightning_entry` for ``lightning.pytorch``,
:mod:`~denpex_callbacks.integrations.pytorch_lightning_entry` for ``pytorch_lightning``), so
importing one never imports the other (the two share a rank-zero logger that the second import
would rebind). The callback only reads state (the precision plugin's GradScaler, or the
DeepSpeed engine's optimizer) and feeds the shared
:class:`~denpex_callbacks.integrations.pipeline.StepPipeline`. Validation is a stream of its own
(:mod:`~denpex_callbacks.integrations.evaluation_stream`): each batch's returned loss is counted
on the device, and read with the metrics logged in validation at ``on_validation_end``.

Steps are numbered as Lightning logs them: ``Observation.step`` is ``trainer.global_step``
before the optimizer step (0-based; skipped steps count, as in Lightning).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

import torch

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.integrations.evaluation_stream import EvaluationStream
from denpex_callbacks.integrations.lifecycle import guarded
from denpex_callbacks.integrations.lightning_rerun import watch_training_steps
from denpex_callbacks.integrations.lightning_setup import (
    computes_in_fp16,
    logs_this_step,
    loss_of,
    namespace_of,
    run_setup,
    save_stop_checkpoint,
    scale_readers,
    user_logs,
)
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.readers.grad_scaler import first_lr
from denpex_callbacks.readers.scale_reading import LossSum, NoScaler, StepReader

__all__ = ["STATE_KEY", "AmpDiagnosticHooks"]

STATE_KEY = "AmpDiagnosticCallback"  # the same under both namespaces: checkpoints interchange


class AmpDiagnosticHooks:
    """Diagnoses fp16 mixed-precision failures inside a Lightning Trainer (the hooks).

    Use it as ``AmpDiagnosticCallback`` from ``denpex_callbacks.lightning`` (or
    ``denpex_callbacks.pytorch_lightning``), which mixes it into that namespace's Callback.

    Watches every optimizer step (not every batch: gradient accumulation and manual
    optimization included): the GradScaler's scale before and after the step, whether the
    step was skipped (found_inf, or a scale decrease for fused optimizers), the loss, the LR.
    Device values are read one step late without a host-device sync.

    Reports through the ``<namespace>.callbacks.amp_diagnostic`` logger (conditions the ranks
    share are printed by rank 0, a rank's own loss conditions by that rank), metrics
    ``amp/loss_scale``, ``amp/skipped_steps``, ``amp/skip_rate`` and ``amp/diagnoses``
    through ``pl_module.log`` (so every configured logger gets them), and one JSONL report
    per rank (``report_dir/rank<k>.jsonl``).

    Args:
        on_fault: ``"warn"`` (default), ``"stop"`` (``trainer.should_stop``, decided on all
            ranks together) or ``"raise"`` (AmpDiagnosisError from the hook).
        report_dir: Folder of the run reports; a relative path is taken from
            ``Trainer(default_root_dir)``; None writes none. Default: the config's
            (``denpex_reports``).
        config: Full configuration; ``on_fault``, ``report_dir`` and ``overrides`` are
            applied on top of it.
        **overrides: Any other :class:`MonitorConfig` field (``thresholds``, ``disable``...).

    Example:
        >>> from denpex_callbacks.core.thresholds import Thresholds
        >>> cb = AmpDiagnosticHooks(thresholds=Thresholds(zero_loss_steps=5))
        >>> cb.config.thresholds.zero_loss_steps, cb.config.on_fault
        (5, 'warn')
    """

    def __init__(
        self,
        on_fault: str = UNSET,
        report_dir: str | os.PathLike[str] | None = UNSET,
        config: MonitorConfig | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.config = build_config(config, on_fault=on_fault, report_dir=report_dir, **options)
        self.pipeline: StepPipeline | None = None
        self.monitor: Monitor | None = None  # the run's (diagnoses, metrics), from on_fit_start
        self.auto = False  # True when added by the entry point, not by the user
        self._requested_precision: str | None = None  # the Trainer's precision argument
        self._loaded_state: dict[str, Any] | None = None
        self._reset_run()

    def _reset_run(self) -> None:
        self._reader: StepReader = NoScaler()  # the run's scale reader
        self._lrs: list[float | None] = []  # of the batch's optimizer steps, until its end
        self._losses = LossSum()  # batch losses, where no scaler sees the loss
        # The re-run capture of each batch, ((batch, batch_idx), {}) (None: re-running off).
        self._capture: Callable[[tuple[Any, ...], dict[str, Any]], None] | None = None
        self._validation = EvaluationStream()
        self._metrics_before: dict[str, Any] = {}  # callback_metrics as a validation began

    @property
    def state_key(self) -> str:
        """One key for both namespaces and for explicit or auto-registered instances."""
        return STATE_KEY

    # -- lifecycle -----------------------------------------------------------------------------

    def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
        """Read the run's precision and scaler, start the Monitor (start-up lints).

        Auto-registered (installed, not asked for), the callback stays dormant on a run that
        does not compute in fp16 (bf16, fp32): no report, no log line, no metric.
        """
        if self.pipeline is not None:
            self.pipeline.close(wait=False)
        self._reset_run()
        self.pipeline = self.monitor = None
        if self.auto and not computes_in_fp16(trainer, self._requested_precision):
            return
        self.pipeline = StepPipeline(
            self.config, framework="lightning",
            logger=logging.getLogger(f"{namespace_of(trainer)}.callbacks.amp_diagnostic"),
            output_dir=str(trainer.default_root_dir),
        )
        # Lightning never calls the module's forward for a step: the batch is captured in
        # on_train_batch_start and training_step itself is re-run (integrations.lightning_rerun).
        self._capture = watch_training_steps(self.pipeline.locate, trainer)
        self.monitor = self.pipeline.monitor
        self._start(trainer)

    @guarded
    def _start(self, trainer: Any) -> None:
        pipeline = self.pipeline
        assert pipeline is not None
        if self._loaded_state is not None:
            pipeline.monitor.load_state_dict(self._loaded_state)
            self._loaded_state = None
        setup = run_setup(trainer, self._requested_precision)
        self._reader = scale_readers(trainer, setup, pipeline)
        pipeline.start(lambda: setup)

    def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Judge the steps still in flight, write the summary, close the report."""
        self._finish(policy=True)

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        """Keep what was seen when training dies (the report is closed with a summary)."""
        self._finish(policy=False)

    def _finish(self, *, policy: bool) -> None:
        if self.pipeline is None:
            return
        try:
            self.pipeline.close()
        except AmpDiagnosisError:
            if policy:  # a fault in the last steps still raises (after the report is closed)
                raise

    # -- per optimizer step ----------------------------------------------------------------------

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int
                             ) -> None:
        """Keep a reference to the batch and the RNG state, to re-run a failing step."""
        capture = self._capture
        if capture is not None:  # (guarded itself: a failure stops capturing, nothing else)
            capture((batch, batch_idx), {})

    @guarded
    def on_before_optimizer_step(self, trainer: Any, pl_module: Any, optimizer: Any) -> None:
        """The last moment the parameters are the earlier steps': judge what has landed (a
        failing step can still be re-run); note this step's learning rate (and its scale
        before, where the reader reads it now)."""
        assert self.pipeline is not None
        self.pipeline.drain()
        self._reader.step_begins()
        self._lrs.append(first_lr(optimizer))

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        """Hand this batch's optimizer steps to the pipeline, log metrics, vote on stopping."""
        self._batch_end(trainer, pl_module, outputs)
        self._decide_stop(trainer)

    @guarded
    def _batch_end(self, trainer: Any, pl_module: Any, outputs: Any) -> None:
        pipeline = self.pipeline
        assert pipeline is not None
        if not self._reader.sees_loss:  # the loss comes from the batch outputs then
            self._losses.add(loss_of(outputs))
        lrs, self._lrs = self._lrs, []
        readings = self._reader.take()
        if not readings:
            return  # accumulating gradients: no optimizer step in this batch
        # Automatic optimization already divides each batch's loss by the accumulation.
        loss = self._losses.take(mean=not pl_module.automatic_optimization)
        first = int(trainer.global_step) - len(readings)  # (numbered before each step)
        for offset, reading in enumerate(readings):
            lr = lrs[offset] if offset < len(lrs) else None
            pipeline.step(first + offset, reading, loss=loss if offset == len(readings) - 1
                          else None, lr=lr)
        self._log_metrics(trainer, pl_module, first + len(readings))

    def _log_metrics(self, trainer: Any, pl_module: Any, global_step: int) -> None:
        assert self.pipeline is not None
        if not logs_this_step(trainer, global_step) or not user_logs(trainer):
            # Only on the steps a row is written, and only beside the user's own step metrics
            # (never a logger row of our own).
            return
        # The row carries this step's numbers: its copy is waited for, which costs nothing
        # here (Lightning reads the row's metrics to the host to write it: a sync).
        self.pipeline.drain(wait=True)
        monitor = self.pipeline.monitor
        if monitor.run.last_step is None:  # nothing observed yet
            return
        for name, value in monitor.metrics().items():
            # A host tensor: Lightning keeps a logged tensor on its device, whereas a float
            # becomes torch.tensor(value, device=module.device), a blocking copy per step.
            pl_module.log(name, torch.tensor(value), on_step=True, on_epoch=False, batch_size=1)

    def _decide_stop(self, trainer: Any) -> None:
        # Under "stop" (decide_stop is False under the other policies) every rank calls the
        # collective at every batch end, whatever its own state, so no rank waits alone (a
        # disabled monitor votes False).
        def vote(wanted: bool) -> bool:
            return bool(trainer.strategy.reduce_boolean_decision(wanted, all=False))

        if self.pipeline is not None and self.pipeline.decide_stop(vote, trainer.global_step - 1):
            trainer.should_stop = True
            if self.config.checkpoint_on_stop:
                # Every rank reaches this (the decision was reduced): save_checkpoint is
                # collective. Guarded: a failed save is logged, never raised into training.
                with self.pipeline.guard():
                    save_stop_checkpoint(trainer)

    # -- validation: the evaluation stream ---------------------------------------------------------

    @guarded
    def on_validation_start(self, trainer: Any, pl_module: Any) -> None:
        """Note the metrics logged before validation (to tell its own apart)."""
        self._validation.losses.drop()
        self._metrics_before = dict(trainer.callback_metrics)

    @guarded
    def on_validation_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any,
                                batch_idx: int, dataloader_idx: int = 0) -> None:
        """Count the batch's returned loss on the device (nothing is read)."""
        self._validation.losses.add(loss_of(outputs))

    @guarded
    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        """AMP013 when a validation loss or a metric logged in validation is NaN/inf. Lightning
        has reduced and logged its validation metrics (read them to the host) by now: those
        new or replaced since the validation began (it stores each reduced value as a new
        tensor), at the step it logs the validation row at (the last optimizer step's)."""
        assert self.pipeline is not None
        before, self._metrics_before = self._metrics_before, {}
        metrics = {name: value for name, value in trainer.callback_metrics.items()
                   if before.get(name) is not value and not str(name).startswith("amp/")}
        self._validation.end(
            self.pipeline, max(int(trainer.global_step) - 1, 0), metrics,
            loss_metric=next((str(name) for name in metrics if "loss" in str(name)),
                             "validation_step loss"))

    # -- checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Detector history for the checkpoint (kept across resume)."""
        if self.monitor is not None:
            return {"monitor": self.monitor.state_dict()}
        return {"monitor": self._loaded_state} if self._loaded_state is not None else {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the history saved by :meth:`state_dict`."""
        state = state_dict.get("monitor")
        if state is None:
            return
        if self.monitor is not None and self.monitor.started:
            self.monitor.load_state_dict(state)
        else:
            self._loaded_state = state
