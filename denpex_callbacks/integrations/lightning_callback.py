"""Lightning adapter: the callback's hooks, for either Lightning namespace.

:class:`AmpDiagnosticHooks` holds the hooks and imports no Lightning namespace; each namespace
gets its own small entry module that mixes it into that namespace's ``Callback``
(:mod:`~denpex_callbacks.integrations.lightning_entry` for ``lightning.pytorch``,
:mod:`~denpex_callbacks.integrations.pytorch_lightning_entry` for ``pytorch_lightning``), so
importing one never imports the other (the two share a rank-zero logger that the second import
would rebind). The callback only reads state (the precision plugin's GradScaler, or the
DeepSpeed engine's optimizer) and feeds the shared
:class:`~denpex_callbacks.integrations.pipeline.StepPipeline`.

Steps are numbered as Lightning logs them: ``Observation.step`` is ``trainer.global_step``
before the optimizer step (0-based; skipped steps count, as in Lightning).

Example:
    >>> from denpex_callbacks.lightning import AmpDiagnosticCallback
    >>> callback = AmpDiagnosticCallback(on_fault="stop", report_dir=None)
    >>> callback.config.on_fault, callback.state_key
    ('stop', 'AmpDiagnosticCallback')
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import torch

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.integrations.lightning_rerun import watch_training_steps
from denpex_callbacks.integrations.lightning_setup import (
    logs_this_step,
    loss_of,
    namespace_of,
    run_setup,
    save_stop_checkpoint,
    user_logs,
)
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.readers import grad_scaler
from denpex_callbacks.readers.grad_scaler import (
    first_lr,
    scaler_enabled,
)
from denpex_callbacks.readers.step_values import (
    LossAccumulator,
    after_step_reader,
    before_step_reader,
)

__all__ = ["STATE_KEY", "AmpDiagnosticHooks"]

STATE_KEY = "AmpDiagnosticCallback"  # the same under both namespaces: checkpoints interchange
_LOG = logging.getLogger(__name__)


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
        self._reset_step_state()

    def _reset_step_state(self) -> None:
        self._pending: list[dict[str, Any]] = []  # optimizer steps awaiting their batch end
        self._losses = LossAccumulator()
        self._reader = "none"  # "torch", "deepspeed" or "none"
        # The re-run capture of each batch, ((batch, batch_idx), {}) (None: re-running off).
        self._capture: Callable[[tuple[Any, ...], dict[str, Any]], None] | None = None
        # What keeps the scale, and its readers: found once per run (per optimizer before the
        # step: found_inf is the optimizer's), read at every step.
        self._source: Any = None
        self._read_before: dict[int, Callable[[], dict[str, Any]]] = {}
        self._read_after: Callable[[], dict[str, Any]] = dict
        self._host: Any = None  # a GradScaler on the CPU: read on the hot path, as numbers
        self._views = grad_scaler.NO_VIEWS  # its numbers as memoryviews (host_views)
        self._log_every = 0  # trainer.log_every_n_steps (0: no logger rows)
        self._stopping = self.config.on_fault == "stop"  # a vote at every batch end
        # The next optimizer step's number (trainer.global_step then), counted on the hot path
        # between steps judged in full, which read it from the trainer again (None).
        self._next_step: int | None = None

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
        self._close_monitor()
        self._reset_step_state()
        self.pipeline = self.monitor = None
        if self.auto and not self._computes_in_fp16(trainer):
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
        self.pipeline.guard(self._start, trainer)

    def _start(self, trainer: Any) -> None:
        assert self.pipeline is not None
        if self._loaded_state is not None:
            self.pipeline.monitor.load_state_dict(self._loaded_state)
            self._loaded_state = None
        setup = run_setup(trainer, self._requested_precision)
        self._reader = str(setup.extra.get("scale_reader", "none"))
        self._source = self._scale_source(trainer)
        if self._source is not None:
            self._read_after = after_step_reader(self._source)
            if self._reader == "torch" and scaler_enabled(self._source) and getattr(
                    self._source, "_device", None) == "cpu":
                self._host = self._source  # the hot path reads it as plain numbers
                self._log_every = max(0, int(getattr(trainer, "log_every_n_steps", 1) or 0))
        self.pipeline.start(lambda: setup)

    def _computes_in_fp16(self, trainer: Any) -> bool:
        """Whether the run computes in fp16 (mixed, or pure: then AMP001 applies)."""
        try:
            precision = run_setup(trainer, self._requested_precision).active_precision
        except Exception:  # unreadable: watch it; the guarded start reports what breaks
            return True
        return precision.startswith("fp16")

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

    def _close_monitor(self) -> None:
        if self.pipeline is not None:
            self.pipeline.close(wait=False)

    # -- per optimizer step ----------------------------------------------------------------------

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int
                             ) -> None:
        """Keep a reference to the batch and the RNG state, to re-run a failing step."""
        capture = self._capture
        if capture is not None:  # (guarded itself: a failure stops capturing, nothing else)
            capture((batch, batch_idx), {})

    def on_before_optimizer_step(self, trainer: Any, pl_module: Any, optimizer: Any) -> None:
        """Snapshot the scale the step's backward used, and found_inf (after unscale_)."""
        pipeline = self.pipeline
        if pipeline is None or pipeline.monitor.disabled:
            return
        host = self._host
        try:  # (the pipeline's guard, inline: every optimizer step)
            if host is None:
                self._before_step(trainer, optimizer)
                return
            # The hot path, flat: the CPU GradScaler's scale now (update() changes it in
            # place) and this step's found_inf tensors (update() drops the dict that holds
            # them, not them: read only for a step judged in full); the learning rate is read
            # at the batch end, and only for a step judged in full.
            views = self._views
            if views[0] is not host._scale:  # (the first step, or the tensors replaced)
                views = self._views = grad_scaler.host_views(host)
            scale = views[1][()] if views[1] is not None else host._scale.item()
            state = host._per_optimizer_states.get(id(optimizer))  # (.get: a defaultdict)
            if self._pending:
                self._close_previous_pending(scale)
            number = self._next_step
            if number is None:  # read again after every step judged in full (see _batch_end)
                number = int(trainer.global_step)  # (a chain of properties: 6 µs a step)
            self._next_step = number + 1  # one optimizer step, the one about to run
            self._pending.append({"step": number, "optimizer": optimizer, "scale_before": scale,
                                  "found_inf": state.get("found_inf_per_device") if state
                                  else None})
        except Exception:
            pipeline.fail()

    def _before_step(self, trainer: Any, optimizer: Any) -> None:
        step: dict[str, Any] = {"step": int(trainer.global_step), "lr": first_lr(optimizer)}
        if self._source is not None:
            read = self._read_before.get(id(optimizer))
            if read is None:
                read = self._read_before[id(optimizer)] = before_step_reader(self._source,
                                                                             optimizer)
            step.update(read())
        self._close_previous_pending(step.get("scale_before"))
        self._pending.append(step)

    def _scale_source(self, trainer: Any) -> Any:
        """What keeps the scale: the precision plugin's GradScaler or the DeepSpeed engine."""
        if self._reader == "torch":
            return trainer.precision_plugin.scaler
        if self._reader == "deepspeed":
            return trainer.strategy.deepspeed_engine
        return None

    def _close_previous_pending(self, scale_now: Any) -> None:
        # Several optimizer steps in one batch (manual optimization): the scale before this
        # step is the scale after the previous one.
        if self._pending and "scale_after" not in self._pending[-1]:
            self._pending[-1]["scale_after"] = scale_now

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        """Complete this batch's optimizer steps, judge the ready ones, log metrics, stop."""
        pipeline = self.pipeline
        if pipeline is not None and not pipeline.monitor.disabled:
            host, pending, taken = self._host, self._pending, False
            try:
                # The hot path, flat (a frame costs a microsecond here), the guard inline: the
                # batch's one optimizer step taken as a quiet step from the CPU GradScaler's
                # numbers and the batch's CPU loss. Not on a batch that writes a logger row
                # (metrics are logged then), nor with several optimizer steps, nor with
                # losses of earlier batches (accumulation): the full way.
                loss: Any = outputs.get("loss") if outputs.__class__ is dict else None
                if (host is not None and len(pending) == 1 and not self._losses.count
                        and loss.__class__ is torch.Tensor and loss.is_cpu):
                    values = pending[0]
                    step, every = values["step"], self._log_every  # (logs_this_step, inline)
                    views = self._views
                    # A skip shows as a fall of the scale (GradScaler: backoff_factor < 1).
                    if not (every and ((step + 1) % every == 0 or trainer.should_stop
                                       or trainer.fast_dev_run)) and views[1] is not None and (
                            views[0] is host._scale):
                        try:  # (one call into torch, not two: item() checks the size itself)
                            value = loss.item()
                        except RuntimeError:  # several values (manual optimization returns
                            value = None  # what it likes): the full way takes their mean
                        if value is not None and pipeline.take_quiet(
                                step, value, values["scale_before"], views[1][()], None,
                                views[2][()]):
                            self._pending, taken = [], True
            except Exception:
                pipeline.fail()
            if not taken:  # (guarded: the user's "raise" policy passes through)
                pipeline.guard(self._batch_end, trainer, pl_module, outputs)
        if self._stopping:
            self._decide_stop(trainer)

    def _batch_end(self, trainer: Any, pl_module: Any, outputs: Any) -> None:
        self._losses.add(loss_of(outputs))
        if not self._pending:
            return  # accumulating gradients: no optimizer step in this batch
        after = self._read_after()
        self._close_previous_pending(after.pop("scale_after", None))
        # Automatic optimization already divides each batch's loss by the accumulation.
        step_loss = self._losses.take(mean=not pl_module.automatic_optimization)
        self._next_step = None
        now = time.time()
        pipeline = self.pipeline
        assert pipeline is not None
        for values in self._pending:
            step = int(values.pop("step"))
            optimizer = values.pop("optimizer", None)
            if optimizer is not None:  # (the hot path's snapshot: its learning rate now,
                values["lr"] = first_lr(optimizer)  # and its found_inf tensors read)
                found = values["found_inf"]
                values["found_inf"] = sum(t.item() for t in found.values()) if found else None
            values.update(after)
            values["loss"], values["time"] = step_loss, now
            pipeline.step(step, values)
        # The optimizer steps so far (trainer.global_step, a chain of properties): the batch's
        # last step and one.
        global_step = step + 1
        self._pending = []
        self._log_metrics(trainer, pl_module, global_step)

    def _log_metrics(self, trainer: Any, pl_module: Any, global_step: int) -> None:
        assert self.monitor is not None
        if self.monitor.run.last_step is None:  # nothing observed yet
            return
        if not logs_this_step(trainer, global_step) or not user_logs(trainer):
            # Each self.log call costs ~0.4 ms: only on the steps a row is written, and only
            # beside the user's own step metrics (never a logger row of our own).
            return
        metrics = self.monitor.metrics()
        for name, value in metrics.items():
            # A host tensor: Lightning keeps a logged tensor on its device, whereas a float
            # becomes torch.tensor(value, device=module.device), a blocking copy per step.
            pl_module.log(name, torch.tensor(value), on_step=True, on_epoch=False, batch_size=1)

    def _decide_stop(self, trainer: Any) -> None:
        # Every rank calls the collective at every batch end, whatever its own state, so no
        # rank waits alone (a disabled monitor votes False).
        def vote(wanted: bool) -> bool:
            return bool(trainer.strategy.reduce_boolean_decision(wanted, all=False))

        if self.pipeline is not None and self.pipeline.decide_stop(vote, trainer.global_step - 1):
            trainer.should_stop = True
            if self.config.checkpoint_on_stop:
                # Every rank reaches this (the decision was reduced): save_checkpoint is
                # collective. Guarded: a failed save is logged, never raised into training.
                self.pipeline.guard(save_stop_checkpoint, trainer)

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
